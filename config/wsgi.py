import os

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.core.wsgi import get_wsgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Served only with a key of its own: the development key is in the repository, and anyone holding it can forge
# sessions and signed values. Management commands and tests do not load this module; `make run` sets DEBUG=1.
if settings.SECRET_KEY_IS_DEVELOPMENT and not settings.DEBUG:
    raise ImproperlyConfigured(
        "SECRET_KEY is not set, or is the development key committed in the repository: set SECRET_KEY to a long "
        "random value to serve the site (DEBUG=1 allows the development key, for local development only)."
    )
application = get_wsgi_application()

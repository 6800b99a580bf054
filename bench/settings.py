"""Settings of the load benchmark (bench/load.py): the site's own settings, with the URLconf that adds the ceiling.

Only bench/load.py selects this module (DJANGO_SETTINGS_MODULE=bench.settings); the site never serves the ceiling.
"""

from config.settings import *  # noqa: F403  (every production setting, unchanged)

ROOT_URLCONF = "bench.ceiling_urls"

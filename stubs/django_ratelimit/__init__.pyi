# django-ratelimit 4 (django_ratelimit/__init__.py).

ALL: tuple[None]
UNSAFE: list[str]

"""gpufit settings: one module, every value from the environment.

With no DATABASE_URL / REDIS_URL the site runs on an embedded default: SQLite in the project, the local-memory
cache, and Celery tasks executed eagerly in the web process. Production sets SECRET_KEY, ALLOWED_HOSTS,
DATABASE_URL, REDIS_URL (the cache), BROKER_URL (the task queue's own Redis) and HTTPS=1, which makes
`manage.py check --deploy` pass without warnings. Behind a reverse proxy (TLS termination, a load balancer) it also
sets TRUSTED_PROXY_HOPS to the number of proxies: only then are X-Forwarded-For and X-Forwarded-Proto believed (a
client can write either header itself).
"""

from __future__ import annotations

from datetime import timedelta
from pathlib import Path

import dj_database_url
from django.core.exceptions import ImproperlyConfigured
from django.utils.translation import gettext_lazy as _

from config.env import env_bool, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

# --- Core -------------------------------------------------------------------------------------------------------
# The "django-insecure-" prefix makes `check --deploy` flag it if it ever reaches production.
_DEVELOPMENT_SECRET_KEY = "django-insecure-development-only-key-1f0c8e3a9b7d"
SECRET_KEY = env_str("SECRET_KEY") or _DEVELOPMENT_SECRET_KEY
# The served application (config/wsgi.py, config/asgi.py) refuses to start on this key unless DEBUG is on;
# management commands and tests keep running on it.
SECRET_KEY_IS_DEVELOPMENT = SECRET_KEY == _DEVELOPMENT_SECRET_KEY
# DEBUG is never implied: it is on only when asked for explicitly.
DEBUG = env_bool("DEBUG", default=False)
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS", default=["localhost", "127.0.0.1", "[::1]"])
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Where the admin lives ("admin/" unless ADMIN_PATH says otherwise); robots.txt keeps crawlers out of it.
ADMIN_PATH = (env_str("ADMIN_PATH") or "admin/").strip("/") + "/"
if ADMIN_PATH == "/":
    raise ImproperlyConfigured("ADMIN_PATH must name a path such as 'admin/', not the site's root")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django.contrib.sitemaps",
    "django.contrib.humanize",
    "django_htmx",
    "csp",
    "axes",
    "models_catalog",
    "pricing",
    "calculator",
]

MIDDLEWARE = [
    # Outermost: a HEAD request is served as the GET it mirrors, so everything below sees a GET (web/middleware.py).
    "web.middleware.HeadAsGet",
    "django.middleware.security.SecurityMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    # zstd, br or gzip for HTML and JSON on the way out (static files come precompressed from WhiteNoise above).
    "django_http_compression.middleware.HttpCompressionMiddleware",
    # Cached pages answer here, before sessions, CSRF and the view (config/page_cache.py).
    "config.page_cache.PageCacheMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.locale.LocaleMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "web.middleware.NulCharacterGuard",
    "web.middleware.DatabaseUnavailable",
    # A model URL that names no catalog model: the "unknown model" page or the redirect to its spelling.
    "models_catalog.middleware.ModelNotFound",
    "csp.middleware.CSPMiddleware",
    # Under DEBUG only: the site's 404 page, not Django's technical one with every URL pattern (web/middleware.py).
    "web.middleware.NotFoundPageUnderDebug",
    # Last, as django-axes asks: turns a refused admin sign-in into its 429 answer.
    "axes.middleware.AxesMiddleware",
]

ROOT_URLCONF = "config.urls"
WSGI_APPLICATION = "config.wsgi.application"
ASGI_APPLICATION = "config.asgi.application"

TEMPLATES = [
    {
        # The site's pages: Jinja2.
        "BACKEND": "django.template.backends.jinja2.Jinja2",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": False,
        "OPTIONS": {
            "environment": "config.jinja2.environment",
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.csrf",
                "config.context_processors.site",
            ],
        },
    },
    {
        # Django templates remain only for the admin.
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------------------------
DATABASE_URL = env_str("DATABASE_URL")
if DATABASE_URL:
    # Health checks: a connection kept between requests is tested before a request reuses it, so the first
    # request after a database restart (or a dropped connection) reconnects instead of failing.
    DATABASES = {
        "default": dj_database_url.parse(
            DATABASE_URL, conn_max_age=env_int("DB_CONN_MAX_AGE", 60), conn_health_checks=True
        )
    }
else:
    DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": str(BASE_DIR / "db.sqlite3")}}
if DATABASES["default"]["ENGINE"] == "django.db.backends.sqlite3":
    # Concurrent writers (an import, a price refresh, a page) wait their turn instead of failing with "database is
    # locked": WAL lets readers go on while one writes, a transaction takes the write lock when it begins (a
    # deferred one that read first cannot wait for it and fails at once), and a writer waits up to `timeout` s.
    DATABASES["default"]["OPTIONS"] = {
        "init_command": "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL",
        "transaction_mode": "IMMEDIATE",
        "timeout": env_int("SQLITE_BUSY_TIMEOUT_S", 20),
    }
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# --- Cache and Celery -------------------------------------------------------------------------------------------
REDIS_URL = env_str("REDIS_URL")
# The task queue and results: a Redis of its own in production (noeviction, append-only: docker-compose.yml), since
# the cache's Redis evicts under its memory bound and loses everything on a restart; the cache's Redis by default.
BROKER_URL = env_str("BROKER_URL") or REDIS_URL


def redis_caches(url: str, key_prefix: str = "gpufit") -> dict[str, dict]:
    """The caches on the Redis at ``url``: ``default`` answers "not cached" while Redis is down (web/cache.py);
    ``counters`` (the rate and sign-in limits) counts in each process meanwhile."""
    common = {
        "LOCATION": url,
        "KEY_PREFIX": key_prefix,
        # Redis answers in milliseconds; one that is down or hung fails the cache call within a second instead
        # of holding the request (redis-py's default is to wait forever).
        "OPTIONS": {"socket_connect_timeout": 1.0, "socket_timeout": 1.0},
    }
    return {
        "default": {"BACKEND": "web.cache.FailSoftRedisCache", **common},
        "counters": {"BACKEND": "web.cache.CountingRedisCache", **common},
    }


if REDIS_URL:
    CACHES = redis_caches(REDIS_URL, env_str("CACHE_KEY_PREFIX") or "gpufit")
else:
    CACHES = {
        "default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "gpufit"},
        "counters": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache", "LOCATION": "gpufit-counters"},
    }
# The API's rate limit counts in `counters`; a count it still cannot read lets the request through.
RATELIMIT_USE_CACHE = "counters"
RATELIMIT_FAIL_OPEN = True

CELERY_BROKER_URL = BROKER_URL or "memory://"
CELERY_RESULT_BACKEND = BROKER_URL or "cache+memory://"
# Without Redis there is no worker: tasks run in the calling process.
CELERY_TASK_ALWAYS_EAGER = not BROKER_URL
CELERY_TASK_EAGER_PROPAGATES = True
CELERY_TASK_ACKS_LATE = True
# A task whose worker process died (OOM, SIGKILL) goes back to the queue instead of being dropped as failed: with
# acks_late its message was never acknowledged, and every task is idempotent, so running it again is safe.
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_TIME_LIMIT = 300
CELERY_TASK_SOFT_TIME_LIMIT = 240
# The longest countdown a retry waits: pricing.refresh_api_prices backs off from 60 s, doubling, over 5 retries
# (60 × 2⁴ s); tests/config/test_celery.py checks every registered task against it.
CELERY_RETRY_COUNTDOWN_MAX_S = 960
# With acks_late a message stays unacknowledged while its task runs and while a retry waits for its countdown;
# Redis hands an unacknowledged message to another worker after this long (a worker killed mid-task: its message
# comes back). It outlasts the longest a healthy worker holds one, or a slow task or a retry would run twice; a
# worker sweeps for such messages at start and then every interval × throttle seconds (kombu's 10 × 10 by default:
# a sweep costs one Redis scan, and a message is not due before the visibility timeout anyway).
CELERY_VISIBILITY_TIMEOUT_S = env_int(
    "CELERY_VISIBILITY_TIMEOUT_S", CELERY_RETRY_COUNTDOWN_MAX_S + CELERY_TASK_TIME_LIMIT + 60
)
CELERY_UNACKED_RESTORE_INTERVAL_S = env_int("CELERY_UNACKED_RESTORE_INTERVAL_S", 10)
CELERY_UNACKED_RESTORE_THROTTLE = env_int("CELERY_UNACKED_RESTORE_THROTTLE", 10)
CELERY_BROKER_TRANSPORT_OPTIONS = {
    "visibility_timeout": CELERY_VISIBILITY_TIMEOUT_S,
    "unacked_restore_interval": CELERY_UNACKED_RESTORE_INTERVAL_S,
    "unacked_restore_throttle": CELERY_UNACKED_RESTORE_THROTTLE,
    # A publish (an import POST) fails within seconds when Redis is down or hung instead of waiting on the socket.
    "socket_connect_timeout": 1.0,
    "socket_timeout": 2.0,
}
# One retry of a failed publish, at once: a hung Redis costs a POST at most 2 × socket_timeout.
CELERY_TASK_PUBLISH_RETRY_POLICY = {"max_retries": 1, "interval_start": 0, "interval_step": 0.5, "interval_max": 0.5}
CELERY_REDIS_SOCKET_CONNECT_TIMEOUT = 1.0
CELERY_REDIS_SOCKET_TIMEOUT = 5.0
# The catalog import (models_catalog/tasks.py) tries a Hub outage again this often, at most this long apart.
CATALOG_IMPORT_MAX_RETRIES = 3
CATALOG_IMPORT_RETRY_BACKOFF_MAX_S = 120
# An on-demand import still queued or running after every attempt could have run to its hard time limit has
# stalled (its worker died, its message was lost): the reaper records it as failed, and posting the id queues it
# again (models_catalog.import_requests.import_requests_expire).
CATALOG_IMPORT_TIME_LIMIT_S = (CATALOG_IMPORT_MAX_RETRIES + 1) * CELERY_TASK_TIME_LIMIT + (
    CATALOG_IMPORT_MAX_RETRIES * CATALOG_IMPORT_RETRY_BACKOFF_MAX_S
)
CELERY_RESULT_EXPIRES = 3600
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_TIMEZONE = "UTC"
# One beat process runs this schedule (docker-compose `beat`, `make beat`).
CELERY_BEAT_SCHEDULE: dict[str, dict] = {
    # Liveness of the worker path: broker → worker → result backend, every five minutes.
    "health-ping": {"task": "config.tasks.health_ping", "schedule": 300.0},
    # On-demand Hub imports stalled past CATALOG_IMPORT_TIME_LIMIT_S are recorded as failed, every five minutes.
    "catalog-expire-imports": {"task": "models_catalog.expire_import_requests", "schedule": 300.0},
    # Prices: one entry per provider API, each refresh its own task (pricing/tasks.py), on the provider's pace.
    # RunPod: GraphQL gpuTypes, hourly (prices move with stock).
    "prices-runpod": {"task": "pricing.refresh_provider", "schedule": 3600.0, "args": ("runpod",)},
    # Vast.ai: marketplace offer search, hourly (a live market; 10 requests/minute limit).
    "prices-vastai": {"task": "pricing.refresh_provider", "schedule": 3600.0, "args": ("vastai",)},
    # TensorDock: v2 locations, every 6 hours (100 requests/minute limit).
    "prices-tensordock": {"task": "pricing.refresh_provider", "schedule": 21600.0, "args": ("tensordock",)},
    # Vultr: cloud GPU plans, daily.
    "prices-vultr": {"task": "pricing.refresh_provider", "schedule": 86400.0, "args": ("vultr",)},
    # gpuhunt's published catalogs (pricing/providers/gpuhunt_source.py): its CI collects them hourly, per provider.
    # Lambda and CloudRift sell out and restock within hours: every 6 hours.
    "prices-lambda": {"task": "pricing.refresh_provider", "schedule": 21600.0, "args": ("lambda",)},
    "prices-cloudrift": {"task": "pricing.refresh_provider", "schedule": 21600.0, "args": ("cloudrift",)},
    # Hyperscaler and neocloud list prices change rarely: daily.
    "prices-aws": {"task": "pricing.refresh_provider", "schedule": 86400.0, "args": ("aws",)},
    "prices-azure": {"task": "pricing.refresh_provider", "schedule": 86400.0, "args": ("azure",)},
    "prices-gcp": {"task": "pricing.refresh_provider", "schedule": 86400.0, "args": ("gcp",)},
    "prices-oci": {"task": "pricing.refresh_provider", "schedule": 86400.0, "args": ("oci",)},
    "prices-nebius": {"task": "pricing.refresh_provider", "schedule": 86400.0, "args": ("nebius",)},
    "prices-verda": {"task": "pricing.refresh_provider", "schedule": 86400.0, "args": ("verda",)},
    # Lium: gpuhunt's live query of its public nodes feed (a marketplace, no catalog), every 6 hours.
    "prices-lium": {"task": "pricing.refresh_provider", "schedule": 21600.0, "args": ("lium",)},
    # Hosted per-token prices: OpenRouter's public models endpoint, daily (one dated row per route and day).
    "api-prices-openrouter": {"task": "pricing.refresh_api_prices", "schedule": 86400.0},
    # The daily price index per GPU (yesterday settles, today so far), every 6 hours; rows are kept indefinitely.
    "price-index": {"task": "pricing.compute_price_index", "schedule": 21600.0},
    # Retention: fold finished days into the price history, then delete raw offers past PRICING_OFFER_RETENTION_DAYS.
    "prices-prune": {"task": "pricing.prune_offers", "schedule": 86400.0},
    # Providers without an API: re-read the curated dated offer files daily (one task per provider).
    "prices-curated": {"task": "pricing.refresh_curated", "schedule": 86400.0},
}

# --- Internationalisation ---------------------------------------------------------------------------------------
LANGUAGE_CODE = "en"
LANGUAGES = [("en", _("English")), ("de", _("German"))]
LOCALE_PATHS = [BASE_DIR / "locale"]
USE_I18N = True
USE_TZ = True
TIME_ZONE = "UTC"

# --- Static files -----------------------------------------------------------------------------------------------
STATIC_URL = "/static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = Path(env_str("STATIC_ROOT") or BASE_DIR / "staticfiles")
# Production images set STATIC_MANIFEST=1 and run collectstatic: hashed, compressed files, cached for a year.
# Without it (development, tests) files are served straight from the source folders.
STATIC_MANIFEST = env_bool("STATIC_MANIFEST", default=(STATIC_ROOT / "staticfiles.json").exists())
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"
        if STATIC_MANIFEST
        else "django.contrib.staticfiles.storage.StaticFilesStorage"
    },
}
WHITENOISE_USE_FINDERS = not STATIC_MANIFEST

# --- Security ---------------------------------------------------------------------------------------------------
# HTTPS=1 in production. Behind a TLS-terminating proxy also set TRUSTED_PROXY_HOPS (see the docstring), or every
# request looks like plain HTTP and SECURE_SSL_REDIRECT redirects it again and again.
HTTPS = env_bool("HTTPS", default=False)
SECURE_SSL_REDIRECT = HTTPS
SESSION_COOKIE_SECURE = HTTPS
CSRF_COOKIE_SECURE = HTTPS
SECURE_HSTS_SECONDS = 31_536_000 if HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = HTTPS
SECURE_HSTS_PRELOAD = HTTPS
# X-Forwarded-Proto is believed only with a proxy in front (TRUSTED_PROXY_HOPS > 0, the same count that makes
# X-Forwarded-For believed): without one, any client could claim HTTPS. The nearest proxy must set the header,
# replacing any value the client sent.
# Reverse proxies in front of the app that append to X-Forwarded-For (0: use the socket address).
TRUSTED_PROXY_HOPS = env_int("TRUSTED_PROXY_HOPS", 0)
SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https") if TRUSTED_PROXY_HOPS > 0 else None
SECURE_REDIRECT_EXEMPT = [r"^healthz$"]
SECURE_REFERRER_POLICY = "strict-origin-when-cross-origin"
X_FRAME_OPTIONS = "DENY"
# Permissions-Policy (django-permissions-policy): the site uses none of these browser features, so neither a page
# nor anything it frames may. Only names that current browsers know: Chromium logs a console error for an unknown
# one, such as FLoC's retired "interest-cohort" (its successor, the Topics API, is "browsing-topics"). Writing to
# the clipboard (the copy buttons) keeps its default: this origin only.
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "accelerometer",
        "autoplay",
        "browsing-topics",
        "camera",
        "display-capture",
        "encrypted-media",
        "geolocation",
        "gyroscope",
        "hid",
        "idle-detection",
        "magnetometer",
        "microphone",
        "midi",
        "payment",
        "publickey-credentials-get",
        "screen-wake-lock",
        "serial",
        "usb",
        "xr-spatial-tracking",
    )
}

# Admin sign-in attempts (django-axes): counted per client address (models_catalog.client, the same address the
# API's rate limit counts) and per account; past AXES_FAILURE_LIMIT failures either one is refused with 429 before
# any password is checked, until ADMIN_LOGIN_COOLOFF_MINUTES pass without another try. The count lives in Redis when
# REDIS_URL is set, so every web process shares it (in each process while Redis is away: the `counters` cache);
# without Redis (one process) in the database, since the local-memory cache would give each process its own count.
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",  # first: refuses a locked client or account before the password check
    "django.contrib.auth.backends.ModelBackend",
]
AXES_HANDLER = "axes.handlers.cache.AxesCacheHandler" if REDIS_URL else "axes.handlers.database.AxesDatabaseHandler"
AXES_CACHE = "counters"  # counts in each process while Redis is away, never raises (web/cache.py)
AXES_LOCKOUT_CALLABLE = "config.admin_lockout.lockout_response"  # the 429 says Retry-After
AXES_FAILURE_LIMIT = env_int("ADMIN_LOGIN_FAILURE_LIMIT", 5)
AXES_COOLOFF_TIME = timedelta(minutes=env_int("ADMIN_LOGIN_COOLOFF_MINUTES", 15))
AXES_LOCKOUT_PARAMETERS = ["ip_address", "username"]
AXES_CLIENT_IP_CALLABLE = "models_catalog.client.client_address"
AXES_RESET_ON_SUCCESS = True
AXES_VERBOSE = False  # no banner on every start of every command; failures and lockouts are still logged

# Content Security Policy: every page loads only from this origin; no third-party requests.
CONTENT_SECURITY_POLICY = {
    "DIRECTIVES": {
        "default-src": ["'self'"],
        "script-src": ["'self'"],
        "style-src": ["'self'"],
        "img-src": ["'self'", "data:"],
        "font-src": ["'self'"],
        "connect-src": ["'self'"],
        "object-src": ["'none'"],
        "base-uri": ["'self'"],
        "form-action": ["'self'"],
        "frame-ancestors": ["'none'"],
    }
}

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": env_str("LOG_LEVEL", "INFO")},
    "loggers": {"django.db.backends": {"level": "WARNING"}},
}

# --- Product ----------------------------------------------------------------------------------------------------
SITE_NAME = "gpufit"
# Rendered pages kept in the default cache (config/page_cache.py) at most this long; a price refresh or a model
# import replaces them at once. 0 turns the page cache off.
PAGE_CACHE_SECONDS = env_int("PAGE_CACHE_SECONDS", 600)
# Pages one path (a model's page, its fragment and Markdown, under any query string) may store within
# PAGE_CACHE_SECONDS; past it a new state is rendered, not kept, so a crawler of query strings cannot fill the cache.
PAGE_CACHE_STATES_PER_PATH = env_int("PAGE_CACHE_STATES_PER_PATH", 100)
# What a browser or a CDN in front may reuse without asking again, and how long it may serve a stale copy while
# it revalidates (with the ETag) in the background.
PAGE_CACHE_MAX_AGE_SECONDS = env_int("PAGE_CACHE_MAX_AGE_SECONDS", 60)
PAGE_CACHE_STALE_WHILE_REVALIDATE_SECONDS = env_int("PAGE_CACHE_STALE_WHILE_REVALIDATE_SECONDS", 300)

# --- Pricing ----------------------------------------------------------------------------------------------------
# Provider API credentials come only from the environment (never committed); a provider whose API needs a key
# and has none records a failed refresh and keeps its last good prices.
PRICING_RUNPOD_API_KEY = env_str("PRICING_RUNPOD_API_KEY", "")
PRICING_VASTAI_API_KEY = env_str("PRICING_VASTAI_API_KEY", "")
PRICING_TENSORDOCK_API_KEY = env_str("PRICING_TENSORDOCK_API_KEY", "")
PRICING_VULTR_API_KEY = env_str("PRICING_VULTR_API_KEY", "")
PRICING_HTTP_TIMEOUT_SECONDS = env_int("PRICING_HTTP_TIMEOUT_SECONDS", 20)
# Pages of 64 offers a Vast.ai refresh reads at most (6 s apart for its rate limit, within 3 minutes: about 25 max).
PRICING_VASTAI_MAX_PAGES = env_int("PRICING_VASTAI_MAX_PAGES", 20)
# "slug=url,..." sends a provider's refresh to another endpoint (a proxy, a staging replay server).
PRICING_ENDPOINT_OVERRIDES = env_list("PRICING_ENDPOINT_OVERRIDES")
# Offers older than this (or whose provider's last refresh failed) are shown as stale, with their capture date.
PRICING_STALE_AFTER_HOURS = env_int("PRICING_STALE_AFTER_HOURS", 7 * 24)
# Hard time limit of one provider refresh (task pricing.refresh_provider; the soft limit is 4/5 of it). The
# provider's refresh lock lasts exactly this long, so a worker killed mid-refresh frees the provider within it.
PRICING_REFRESH_TIME_LIMIT_SECONDS = env_int("PRICING_REFRESH_TIME_LIMIT_SECONDS", 300)
# Raw offers older than this many days are deleted daily (pricing.prune_offers), once folded into the daily price
# history per GPU and provider (kept indefinitely); each provider's newest snapshot stays whatever its age.
PRICING_OFFER_RETENTION_DAYS = env_int("PRICING_OFFER_RETENTION_DAYS", 90)

# --- Catalog ----------------------------------------------------------------------------------------------------
# The Hugging Face Hub the importer reads (tests point a worker at a local server replaying recorded responses).
HUB_ENDPOINT = env_str("HUB_ENDPOINT") or "https://huggingface.co"
HUB_TOKEN = env_str("HUB_TOKEN")  # optional: lets the importer read gated repos the token has accepted
HUB_TIMEOUT_S = env_int("HUB_TIMEOUT_S", 10)
HUB_MAX_RETRIES = env_int("HUB_MAX_RETRIES", 3)
# The longest Retry-After the importer waits out before it reports the Hub as rate limited.
HUB_MAX_RETRY_AFTER_S = env_int("HUB_MAX_RETRY_AFTER_S", 30)
# Quantized sibling repos (GGUF, MLX, AWQ, …) one import reads builds from.
HUB_QUANT_REPOS_MAX = env_int("HUB_QUANT_REPOS_MAX", 8)
# --- Catalog discovery (models_catalog/discovery.py) ---
# The Hub counts API requests per 5-minute window: 500 anonymous, 1,000 with a free account's token
# (https://huggingface.co/docs/hub/rate-limits). One request every 0.7 s is at most ~430 per window.
HUB_MIN_INTERVAL_S = env_int("HUB_MIN_INTERVAL_MS", 700) / 1000
# The pipeline tags whose models the calculator sizes (decoder transformers, with or without a vision tower).
DISCOVERY_PIPELINE_TAGS = tuple(env_list("DISCOVERY_PIPELINE_TAGS", ["text-generation", "image-text-to-text"]))
DISCOVERY_LISTING_LIMIT = env_int("DISCOVERY_LISTING_LIMIT", 100)  # models per listing (tag × sort)
# The floor: a model enters the catalog with this many downloads (30 days) or likes, or from a listed organisation.
DISCOVERY_MIN_DOWNLOADS = env_int("DISCOVERY_MIN_DOWNLOADS", 5000)
DISCOVERY_MIN_LIKES = env_int("DISCOVERY_MIN_LIKES", 100)
DISCOVERY_IMPORTS_PER_RUN = env_int("DISCOVERY_IMPORTS_PER_RUN", 20)
DISCOVERY_MODELS_PER_RUN = env_int("DISCOVERY_MODELS_PER_RUN", 200)  # listed models checked per builds/facts run
DISCOVERY_CHILDREN_LIMIT = env_int("DISCOVERY_CHILDREN_LIMIT", 50)  # quantized children listed per model
DISCOVERY_SKIP_RECHECK_DAYS = env_int("DISCOVERY_SKIP_RECHECK_DAYS", 14)
# A discovery task's hard time limit (and its lock's), below CELERY_VISIBILITY_TIMEOUT_S so no second worker gets it.
DISCOVERY_TIME_LIMIT_S = env_int("DISCOVERY_TIME_LIMIT_S", 900)
CELERY_BEAT_SCHEDULE.update(
    {
        # New Hub models above the floor, every 6 hours (a release reaches the catalog the same day).
        "catalog-discover-models": {"task": "models_catalog.discover_models", "schedule": 21600.0},
        # New quantized builds (GGUF, AWQ, GPTQ, FP8, W8A8, MLX) of listed models, every 6 hours.
        "catalog-discover-builds": {"task": "models_catalog.discover_builds", "schedule": 21600.0},
        # Downloads, likes, gated state, licence and latest commit of listed models, daily.
        "catalog-refresh-facts": {"task": "models_catalog.refresh_hub_facts", "schedule": 86400.0},
    }
)

# On-demand imports a reader's connection may start per hour.
CATALOG_IMPORTS_PER_CLIENT_PER_HOUR = env_int("CATALOG_IMPORTS_PER_CLIENT_PER_HOUR", 10)
# Requests one client may make to /api/v1/ ("<count>/<s|m|h|d>", django-ratelimit's syntax), counted in the
# `counters` cache (Redis when REDIS_URL is set, so every web process shares the count; each process alone while it
# is away); empty turns the limit off.
API_RATE_LIMIT = env_str("API_RATE_LIMIT", "120/m") or ""

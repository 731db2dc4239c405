"""Settings of the sandbox, a Django project of its own with its own database.

Every knob comes from a `SANDBOX_*` environment variable (docs/interface.md), with defaults that
suit a laptop. The sandbox is for development, demonstrations, tests and benchmarks only.
"""

from pathlib import Path

from portal.lib.env import env_bool, env_database, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent


# Unlike the portal, the sandbox starts without a secret key of its own, DEBUG or not: it
# holds demo and test data only, its accounts' passwords are published in README.md, and a
# secret key would protect nothing there. It is never deployed as the real service.
SECRET_KEY = env_str("SANDBOX_SECRET_KEY", "sandbox-only-not-a-secret-0f3a9c2e7b")
DEBUG = False
ALLOWED_HOSTS = ["127.0.0.1", "localhost", "[::1]", *env_list("SANDBOX_ALLOWED_HOSTS")]

SANDBOX_LOCKOUT_FAILURES = env_int("SANDBOX_LOCKOUT_FAILURES", 5)
SANDBOX_LOCKOUT_SECONDS = env_int("SANDBOX_LOCKOUT_SECONDS", 900)
SANDBOX_SESSION_IDLE_SECONDS = env_int("SANDBOX_SESSION_IDLE_SECONDS", 1800)
SANDBOX_TOKEN_DAYS = env_int("SANDBOX_TOKEN_DAYS", 30)
SANDBOX_TRUSTED_PROXIES = env_list("SANDBOX_TRUSTED_PROXIES")
SANDBOX_MAX_BODY_BYTES = env_int("SANDBOX_MAX_BODY_BYTES", 64 * 1024)
# Test hooks (a controlled clock, lockout reset) under /_testing/; never on in a demo.
SANDBOX_TESTING = env_bool("SANDBOX_TESTING", False)

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "sandbox",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "sandbox.urls"
WSGI_APPLICATION = "sandbox.wsgi.application"
APPEND_SLASH = False

TEMPLATES = [
    {
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

_default_database = f"sqlite:///{BASE_DIR / 'var' / 'sandbox.sqlite3'}"
DATABASES = {"default": env_database("SANDBOX_DATABASE_URL", _default_database)}

# Per process: encoded section data (sandbox/views.py), about 1 MB for the longest sections.
CACHES = {
    "default": {
        "BACKEND": "django.core.cache.backends.locmem.LocMemCache",
        "TIMEOUT": 3600,
        "OPTIONS": {"MAX_ENTRIES": 64},
    }
}

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

# The sandbox's accounts are hashed with a lighter PBKDF2 (see sandbox.hashers); staff of its
# admin keep Django's default.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "sandbox.hashers.AccountPasswordHasher",
]

DATA_UPLOAD_MAX_MEMORY_SIZE = SANDBOX_MAX_BODY_BYTES

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = False

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"sandbox": {"level": "INFO"}},
}

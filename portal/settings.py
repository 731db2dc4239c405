"""Settings of the portal: one module, every knob from the environment, safe laptop defaults."""

from pathlib import Path

import dj_database_url

from portal.env import env_bool, env_float, env_int, env_list, env_str

BASE_DIR = Path(__file__).resolve().parent.parent

DEBUG = env_bool("DEBUG", False)
SECRET_KEY = env_str("SECRET_KEY", "development-only-change-me-in-production")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS") or ["127.0.0.1", "localhost", "[::1]"]

# The upstream Assurance service (the local sandbox by default); see portal/upstream.py.
ASSURANCE_BASE_URL = env_str("ASSURANCE_BASE_URL", "http://127.0.0.1:8001")
ASSURANCE_FORMAT = env_str("ASSURANCE_FORMAT", "json")
ASSURANCE_CONNECT_TIMEOUT = env_float("ASSURANCE_CONNECT_TIMEOUT", 3.05)
ASSURANCE_READ_TIMEOUT = env_float("ASSURANCE_READ_TIMEOUT", 10.0)
ASSURANCE_TOTAL_TIMEOUT = env_float("ASSURANCE_TOTAL_TIMEOUT", 30.0)
ASSURANCE_RETRIES = env_int("ASSURANCE_RETRIES", 3)
ASSURANCE_MAX_BODY_BYTES = env_int("ASSURANCE_MAX_BODY_BYTES", 32 * 1024 * 1024)

INSTALLED_APPS = [
    "portal",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
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

DATABASES = {
    "default": dj_database_url.parse(
        env_str("DATABASE_URL", f"sqlite:///{BASE_DIR / 'var' / 'portal.sqlite3'}"),
        conn_max_age=60,
    )
}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

LANGUAGE_CODE = "en-gb"
TIME_ZONE = "Europe/London"
USE_I18N = True
USE_TZ = True

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
WHITENOISE_USE_FINDERS = True

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"console": {"class": "logging.StreamHandler"}},
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {"portal": {"level": env_str("PORTAL_LOG_LEVEL", "INFO")}},
}

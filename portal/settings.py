"""Settings of the portal: one module, every knob from the environment, safe laptop defaults.

A fresh checkout runs with none set under the make commands: SQLite under var/, a file cache
and a file-based broker, the local sandbox as the Assurance service. Production sets at least
SECRET_KEY (without it and DEBUG, the portal refuses to start), ALLOWED_HOSTS, PORTAL_HTTPS,
DATABASE_URL, REDIS_URL and ASSURANCE_BASE_URL (docs/running/configuration.md).
"""

import ipaddress
from datetime import timedelta
from pathlib import Path

from django.core.exceptions import ImproperlyConfigured
from django.utils.csp import CSP

from portal.lib.env import (
    database_label,
    env_bool,
    env_database,
    env_float,
    env_int,
    env_list,
    env_str,
)

BASE_DIR = Path(__file__).resolve().parent.parent
VAR_DIR = BASE_DIR / "var"

DEBUG = env_bool("DEBUG", False)
# Set by make run, make test and the other make commands (and the test suite itself): there,
# as with DEBUG, the portal may run with its development secret key; nowhere else.
PORTAL_DEVELOPMENT = env_bool("PORTAL_DEVELOPMENT", False)
SECRET_KEY = env_str("SECRET_KEY")
if not SECRET_KEY and not (DEBUG or PORTAL_DEVELOPMENT):
    raise ImproperlyConfigured(
        "SECRET_KEY is not set, and DEBUG is off: the portal will not start with its "
        "development key. Set SECRET_KEY to a long random string kept secret (or "
        "SECRET_KEY_FILE to a file holding it), for example the output of "
        "python -c 'import secrets; print(secrets.token_urlsafe(50))'. For development, "
        "use make run, or set DEBUG=true."
    )
SECRET_KEY = SECRET_KEY or "development-only-not-secret-set-SECRET_KEY-in-production"
# Former keys, still accepted for signatures (sessions, passwords' reset links) and, without
# PORTAL_TOKEN_KEY, for upstream tokens in sessions: rotating SECRET_KEY signs no one out
# (docs/running/keys.md). Comma-separated, or one a line in SECRET_KEY_FALLBACKS_FILE.
SECRET_KEY_FALLBACKS = env_list("SECRET_KEY_FALLBACKS")
ALLOWED_HOSTS = env_list("ALLOWED_HOSTS") or ["127.0.0.1", "localhost", "[::1]"]
# Origins besides the portal's own host allowed to send forms (behind a proxy that rewrites
# the Host, say): `https://portal.example.org`.
CSRF_TRUSTED_ORIGINS = env_list("CSRF_TRUSTED_ORIGINS")
# Addresses of reverse proxies whose X-Forwarded-For and X-Forwarded-Proto are believed.
PORTAL_TRUSTED_PROXIES = env_list("PORTAL_TRUSTED_PROXIES")

# --- the Assurance service (portal/assurance/service.py) ------------------------------------------
SANDBOX_URL = "http://127.0.0.1:8001"
ASSURANCE_BASE_URL = env_str("ASSURANCE_BASE_URL", SANDBOX_URL)
ASSURANCE_FORMAT = env_str("ASSURANCE_FORMAT", "json")
ASSURANCE_CONNECT_TIMEOUT = env_float("ASSURANCE_CONNECT_TIMEOUT", 3.05)
ASSURANCE_READ_TIMEOUT = env_float("ASSURANCE_READ_TIMEOUT", 10.0)
ASSURANCE_TOTAL_TIMEOUT = env_float("ASSURANCE_TOTAL_TIMEOUT", 30.0)
ASSURANCE_RETRIES = env_int("ASSURANCE_RETRIES", 3)
ASSURANCE_MAX_BODY_BYTES = env_int("ASSURANCE_MAX_BODY_BYTES", 32 * 1024 * 1024)
# After a call fails to reach the service, calls fail at once for this long (kept copies are
# served meanwhile), and then the service is tried again.
ASSURANCE_OUTAGE_SECONDS = env_int("ASSURANCE_OUTAGE_SECONDS", 10)
# The portal's own account for short-code look-ups; the sandbox's haulier by default.
_on_sandbox = ASSURANCE_BASE_URL.rstrip("/") == SANDBOX_URL
ASSURANCE_LOOKUP_USERNAME = env_str("ASSURANCE_LOOKUP_USERNAME", "haulier" if _on_sandbox else "")
ASSURANCE_LOOKUP_PASSWORD = env_str(
    "ASSURANCE_LOOKUP_PASSWORD", "haulier-demo-pass" if _on_sandbox else ""
)

# --- sign-in (portal/accounts) --------------------------------------------------------------------
# Upstream tokens are kept encrypted in the server-side session with this key (any string;
# by default one derived from SECRET_KEY).
PORTAL_TOKEN_KEY = env_str("PORTAL_TOKEN_KEY", "")
# Former token keys, still read (encryption always uses PORTAL_TOKEN_KEY); comma-separated.
PORTAL_TOKEN_KEY_FALLBACKS = env_list("PORTAL_TOKEN_KEY_FALLBACKS")
PORTAL_SESSION_IDLE_SECONDS = env_int("PORTAL_SESSION_IDLE_SECONDS", 60 * 60)
# The service's lockout: failed logins in a row from one address that lock it, and for how
# long (SANDBOX_LOCKOUT_FAILURES and _SECONDS on the sandbox). The limits below follow them.
ASSURANCE_LOCKOUT_FAILURES = env_int("ASSURANCE_LOCKOUT_FAILURES", 5)
ASSURANCE_LOCKOUT_SECONDS = env_int("ASSURANCE_LOCKOUT_SECONDS", 15 * 60)
# Whether the service believes the X-Forwarded-For the portal sends on login (the portal's
# address is among its trusted proxies): then its lockout falls on each user's own address.
ASSURANCE_FORWARDS_CLIENT_ADDRESS = env_bool("ASSURANCE_FORWARDS_CLIENT_ADDRESS", False)
# The portal's own lockout (django-axes, portal/accounts/lockout.py): failed sign-ins for one
# username (trimmed, in any case) from one client address, counted in PostgreSQL, before that
# username is refused from that address for the cool-off after the last of them; a password
# that has worked here before always passes. By default it comes with the service's warning
# (docs/running/sign-in-limits.md).
PORTAL_SIGN_IN_FAILURES = max(1, env_int("PORTAL_SIGN_IN_FAILURES", ASSURANCE_LOCKOUT_FAILURES - 2))
PORTAL_SIGN_IN_COOL_OFF_SECONDS = max(
    1, env_int("PORTAL_SIGN_IN_COOL_OFF_SECONDS", ASSURANCE_LOCKOUT_SECONDS)
)
# Attempts of any kind per client address in a minute, before the portal refuses more without
# checking them (each check costs a slow hash of the password; counted by django-ratelimit).
PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE = env_int("PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE", 60)
_REPLACED = {"PORTAL_SIGN_IN_FAILURES_PER_ADDRESS", "PORTAL_SIGN_IN_FAILURES_PER_USERNAME",
             "PORTAL_SIGN_IN_WINDOW_SECONDS"}  # fmt: skip
if _set := sorted(name for name in _REPLACED if env_str(name)):
    raise ImproperlyConfigured(
        f"{', '.join(_set)}: no longer read. The portal's lockout counts a username's failures "
        "from one address together: set PORTAL_SIGN_IN_FAILURES and "
        "PORTAL_SIGN_IN_COOL_OFF_SECONDS instead (docs/running/sign-in-limits.md)."
    )
AXES_LOCKOUT_PARAMETERS = [["username", "ip_address"]]
AXES_FAILURE_LIMIT = PORTAL_SIGN_IN_FAILURES
AXES_COOLOFF_TIME = timedelta(seconds=PORTAL_SIGN_IN_COOL_OFF_SECONDS)
# Attempts refused during a lockout are not counted: it ends a cool-off after the last failure.
AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT = False
AXES_RESET_ON_SUCCESS = True
AXES_USERNAME_CALLABLE = "portal.accounts.lockout.username"
AXES_CLIENT_IP_CALLABLE = "portal.accounts.lockout.address"
AXES_WHITELIST_CALLABLE = "portal.accounts.lockout.known_password"
# The sign-in page says itself that sign-in is locked, and for how long: axes keeps its answer.
AXES_LOCKOUT_CALLABLE = "portal.accounts.lockout.sign_in_page_as_answered"
# Sign-ins are in the audit trail: axes keeps no log of its own (that would grow for ever).
AXES_DISABLE_ACCESS_LOG = True
AXES_SENSITIVE_PARAMETERS = ["username", "ip_address", "csrfmiddlewaretoken"]

# --- look-ups by short code (portal/passports/lookup.py) ------------------------------------------
# Look-ups per client address in a minute, so that short codes cannot be enumerated: each code
# checked at /p/<code> or /p/check counts (counted by django-ratelimit); signed-in users get
# the larger allowance.
PORTAL_LOOKUPS_PER_MINUTE = env_int("PORTAL_LOOKUPS_PER_MINUTE", 30)
PORTAL_SIGNED_IN_LOOKUPS_PER_MINUTE = env_int("PORTAL_SIGNED_IN_LOOKUPS_PER_MINUTE", 120)
# How long a verdict (or a code's being unknown) is kept: at most a minute, so that a claim
# suspended since shows soon.
PORTAL_LOOKUP_KEEP_SECONDS = min(60, env_int("PORTAL_LOOKUP_KEEP_SECONDS", 60))
# The most codes checked at once at intake (/p/check), and how many of them are asked of the
# service at a time.
PORTAL_INTAKE_LIMIT = max(1, env_int("PORTAL_INTAKE_LIMIT", 50))
PORTAL_INTAKE_CALLS_AT_ONCE = max(1, env_int("PORTAL_INTAKE_CALLS_AT_ONCE", 8))
# --- intake sites' loads many at once (portal/intake/uploads.py) ---------------------------------
# The most rows one upload of a site's tickets takes (a file of more is refused whole).
PORTAL_INTAKE_UPLOAD_ROWS = max(1, env_int("PORTAL_INTAKE_UPLOAD_ROWS", 2000))
# --- the API (portal/api) -------------------------------------------------------------------------
# Requests of one token in a minute, before a 429; the most records one call takes or gives (a
# list's page, the loads sent at once); how long the answer to a POST with an Idempotency-Key is
# kept to be given again (at least a day).
PORTAL_API_REQUESTS_PER_MINUTE = max(1, env_int("PORTAL_API_REQUESTS_PER_MINUTE", 120))
PORTAL_API_RECORDS = min(500, max(1, env_int("PORTAL_API_RECORDS", 500)))
PORTAL_API_IDEMPOTENCY_HOURS = max(24, env_int("PORTAL_API_IDEMPOTENCY_HOURS", 24))
# --- passports (portal/passports) -----------------------------------------------------------------
# How long the memberships a user is a contact of (the service's authorisation) are kept: the
# create form's steps and each passport's page ask for them.
PORTAL_AUTHORISATION_SECONDS = env_int("PORTAL_AUTHORISATION_SECONDS", 60)
# The most passports one form makes at once (a batch of identical loads, made by a job).
PORTAL_BATCH_LIMIT = max(1, env_int("PORTAL_BATCH_LIMIT", 50))
# The most passports one export takes (a ZIP of their PDFs and manifests, made by a job).
PORTAL_EXPORT_LIMIT = max(1, env_int("PORTAL_EXPORT_LIMIT", 1000))
# How many calls one job makes to the service at once: an export's PDFs (a batch's passports
# are asked for one at a time: portal/passports/tasks.py).
PORTAL_JOB_CALLS_AT_ONCE = max(1, env_int("PORTAL_JOB_CALLS_AT_ONCE", 4))

# --- passports' signed codes (portal/passports/signing.py) ---------------------------------------
# Whether a passport's QR code carries its essentials signed (`/V/...`, checked with no signal)
# or only its look-up address (`/p/<code>`).
PORTAL_SIGNED_PASSPORTS = env_bool("PORTAL_SIGNED_PASSPORTS", True)
# How long a signed code holds, from when it was signed.
PORTAL_SIGNED_PASSPORT_DAYS = max(1, env_int("PORTAL_SIGNED_PASSPORT_DAYS", 21))
# The signing keys: keys.json (ids, public halves, times) and each private key, <id>.pem, kept
# secret as other secrets are; manage.py new_passport_key makes one (docs/running/keys.md).
PORTAL_PASSPORT_KEYS_DIR = env_str("PORTAL_PASSPORT_KEYS_DIR", str(VAR_DIR / "passport-keys"))

# --- passports sent by e-mail (portal/passports/mailing.py) ---------------------------------------
# Django's mailer, from the standard variables (the password by EMAIL_HOST_PASSWORD_FILE too).
MAILERS = {
    "default": {
        "BACKEND": "django.core.mail.backends.smtp.EmailBackend",
        "OPTIONS": {
            "host": env_str("EMAIL_HOST", "localhost"),
            "port": env_int("EMAIL_PORT", 25),
            "username": env_str("EMAIL_HOST_USER", ""),
            "password": env_str("EMAIL_HOST_PASSWORD", ""),
            "use_tls": env_bool("EMAIL_USE_TLS", False),
            "use_ssl": env_bool("EMAIL_USE_SSL", False),
            "timeout": env_int("EMAIL_TIMEOUT", 30),
        },
    }
}
if MAILERS["default"]["OPTIONS"]["use_tls"] and MAILERS["default"]["OPTIONS"]["use_ssl"]:
    raise ImproperlyConfigured("Set EMAIL_USE_TLS or EMAIL_USE_SSL, not both.")
DEFAULT_FROM_EMAIL = env_str("DEFAULT_FROM_EMAIL", "Assurance portal <portal@localhost>")
SERVER_EMAIL = env_str("SERVER_EMAIL", DEFAULT_FROM_EMAIL)
# So that the portal relays for no one: mails each user may ask for in an hour, and mails one
# recipient may be sent in a day, by everyone together.
PORTAL_MAILS_PER_USER_PER_HOUR = max(1, env_int("PORTAL_MAILS_PER_USER_PER_HOUR", 20))
PORTAL_MAILS_PER_RECIPIENT_PER_DAY = max(1, env_int("PORTAL_MAILS_PER_RECIPIENT_PER_DAY", 20))
# The mail of intake results (portal.intake.notifying): a load's changes within this many
# seconds of the first go in one mail; and so that a site (or its stolen token) cannot flood a
# grower, the most mails one grower is sent in an hour, and one site's loads send in a day.
# A mail over either is held, and sent once both have room again.
PORTAL_INTAKE_MAIL_WAIT_SECONDS = max(0, env_int("PORTAL_INTAKE_MAIL_WAIT_SECONDS", 60))
PORTAL_INTAKE_MAILS_PER_GROWER_PER_HOUR = max(
    1, env_int("PORTAL_INTAKE_MAILS_PER_GROWER_PER_HOUR", 10)
)
PORTAL_INTAKE_MAILS_PER_SITE_PER_DAY = max(1, env_int("PORTAL_INTAKE_MAILS_PER_SITE_PER_DAY", 500))
# A mail server that does not answer, or answers "try later": tried this many times in all,
# waiting PORTAL_MAIL_RETRY_SECONDS, then twice as long each time.
PORTAL_MAIL_TRIES = max(1, env_int("PORTAL_MAIL_TRIES", 5))
PORTAL_MAIL_RETRY_SECONDS = max(1, env_int("PORTAL_MAIL_RETRY_SECONDS", 30))
# The portal's own address as its users reach it (with any prefix it is served under), for the
# links in mail the portal sends of its own accord, with no request to take it from: the
# intake results mailed to a passport's maker (portal/intake/notifying.py).
PORTAL_URL = env_str("PORTAL_URL", f"http://127.0.0.1:{env_int('PORTAL_PORT', 8000)}").rstrip("/")
# A Maildir that `make run`'s own mail server writes to, shown at /development/mail/ (only when
# DEBUG or PORTAL_DEVELOPMENT is on).
PORTAL_DEVELOPMENT_MAILBOX = (
    env_str("PORTAL_DEVELOPMENT_MAILBOX", "") if DEBUG or PORTAL_DEVELOPMENT else ""
)
# A folder that `make run`'s receiver of webhooks keeps what it is sent in, and its address (the
# demo endpoint's), shown at /development/webhooks/ (only when DEBUG or PORTAL_DEVELOPMENT is on).
PORTAL_DEVELOPMENT_WEBHOOKS = (
    env_str("PORTAL_DEVELOPMENT_WEBHOOKS", "") if DEBUG or PORTAL_DEVELOPMENT else ""
)
PORTAL_DEVELOPMENT_WEBHOOK_URL = env_str("PORTAL_DEVELOPMENT_WEBHOOK_URL", "")
# Verifiers of passwords that have worked here (portal/accounts/verifiers.py) are made with the
# first: scrypt, slow and memory-hard. Portal users have no passwords of their own.
PASSWORD_HASHERS = [
    "django.contrib.auth.hashers.ScryptPasswordHasher",
    "django.contrib.auth.hashers.PBKDF2PasswordHasher",
    "django.contrib.auth.hashers.PBKDF2SHA1PasswordHasher",
    "django.contrib.auth.hashers.Argon2PasswordHasher",
    "django.contrib.auth.hashers.BCryptSHA256PasswordHasher",
]

# --- standards (portal/standards/cached.py) -------------------------------------------------------
STANDARDS_FRESH_SECONDS = env_int("STANDARDS_FRESH_SECONDS", 10 * 60)
STANDARDS_KEEP_SECONDS = env_int("STANDARDS_KEEP_SECONDS", 7 * 24 * 60 * 60)

INSTALLED_APPS = [
    "portal",
    "portal.accounts",
    "portal.standards",
    "portal.jobs",
    "portal.passports",
    "portal.intake",
    "portal.outbox",
    "portal.webhooks",
    "portal.api",
    "portal.operations",
    "portal.audit",
    "portal.dashboard",
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "django.contrib.staticfiles",
    "django_htmx",
    "portal.accounts.axes_config.AxesConfig",  # django-axes, named in words
]

# Every browser feature off (django-permissions-policy). Passports' QR codes are read by a
# phone's own camera app, which opens the look-up page; only the pages with a Scan button read
# them themselves (the gate check, a clerk's site and Record a load, the offline checker and
# a signed code's page), and allow the camera (and autoplay, to show its picture) for themselves
# alone (`with_the_camera`, portal/passports/views/camera.py). A page that comes to need a
# feature allows it with `permissions_policy_override`.
PERMISSIONS_POLICY: dict[str, list[str]] = {
    feature: []
    for feature in (
        "accelerometer", "autoplay", "camera", "display-capture", "fullscreen", "geolocation",
        "gyroscope", "hid", "idle-detection", "magnetometer", "microphone", "midi", "payment",
        "publickey-credentials-get", "screen-wake-lock", "serial", "usb", "xr-spatial-tracking",
    )
}  # fmt: skip

MIDDLEWARE = [
    "portal.operations.logs.RequestLogMiddleware",  # first: every request logged, with its id
    "portal.operations.metrics.RequestMetricsMiddleware",  # and counted, with its time
    "portal.api.middleware.ApiMiddleware",  # the API's bodies read, and its errors in JSON
    "django.middleware.security.SecurityMiddleware",
    "django_permissions_policy.PermissionsPolicyMiddleware",
    "portal.accounts.middleware.SignedInNoStoreMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    # The page's language: /cy/ Welsh, else English; the addresses printed on paper (/p/, /V/)
    # and the API by the person's choice (portal/accounts/language.py). Before CommonMiddleware,
    # whose added slash resolves the address in that language.
    "portal.accounts.language.LanguageMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "portal.audit.middleware.ActingRequestMiddleware",  # who changed rights, from where
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
    "django.middleware.csp.ContentSecurityPolicyMiddleware",
    "django_htmx.middleware.HtmxMiddleware",
    "portal.accounts.middleware.UpstreamSessionMiddleware",
    "portal.errors.ServiceErrorMiddleware",
    "axes.middleware.AxesMiddleware",  # a lockout's answer: the sign-in page's own (below)
]

ROOT_URLCONF = "portal.urls"
WSGI_APPLICATION = "portal.wsgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            # Every template translates ({% translate %}, {% blocktranslate %}: docs/welsh.md).
            "builtins": ["django.templatetags.i18n"],
            "context_processors": [
                "django.template.context_processors.request",
                "django.template.context_processors.i18n",
                "portal.accounts.language.switch",
                "django.template.context_processors.csp",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
                "portal.accounts.navigation.links",
                # `intake_clerk`: the header's Intake link, the gate check's Record links.
                "portal.intake.clerkship.clerk",
                # `grower`: the header's links to making and listing passports.
                "portal.accounts.navigation.grower",
            ],
        },
    },
]

# --- data -----------------------------------------------------------------------------------------
DATABASES = {"default": env_database("DATABASE_URL", f"sqlite:///{VAR_DIR / 'portal.sqlite3'}")}
DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
# Cache keys and job queues are named after the database, so that two checkouts (or the tests
# beside make run) sharing one Redis never share sign-in counters, sessions or jobs.
DATABASE_LABEL = database_label(DATABASES["default"])

REDIS_URL = env_str("REDIS_URL", "")
if REDIS_URL:
    # Compressed: a section's page is some hundreds of KiB of HTML, a tenth of that in LZ4,
    # which reads back faster than the whole would come from Redis.
    CACHES = {
        "default": {
            "BACKEND": "django_redis.cache.RedisCache",
            "LOCATION": REDIS_URL,
            "OPTIONS": {"COMPRESSOR": "django_redis.compressors.lz4.Lz4Compressor"},
        }
    }
else:  # shared by the portal's processes and its worker on one machine
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.filebased.FileBasedCache",
                          "LOCATION": str(VAR_DIR / "cache")}}  # fmt: skip
CACHES["default"]["KEY_PREFIX"] = f"portal.{DATABASE_LABEL}"

# --- jobs (portal/celery.py) ----------------------------------------------------------------------
CELERY_BROKER_URL = REDIS_URL or "filesystem://"
CELERY_BROKER_TRANSPORT_OPTIONS = (
    {}
    if REDIS_URL
    else {
        "data_folder_in": str(VAR_DIR / "broker"),
        "data_folder_out": str(VAR_DIR / "broker"),
        "processed_folder": str(VAR_DIR / "broker-processed"),
        "control_folder": str(VAR_DIR / "broker-control"),
        "store_processed": False,
    }
)
CELERY_TASK_DEFAULT_QUEUE = f"portal.{DATABASE_LABEL}"
CELERY_CONTROL_EXCHANGE = f"portal.{DATABASE_LABEL}"  # celery inspect and control reach only these
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_TASK_IGNORE_RESULT = True
# The longest a job may run: at the soft limit it fails with a message, at the hard limit its
# process is killed. Redis hands a job nobody acknowledged to another worker once the
# visibility time-out has passed, so that must be longer than any job (docs/running/jobs.md).
PORTAL_JOB_TIME_LIMIT = env_int("PORTAL_JOB_TIME_LIMIT", 30 * 60)
PORTAL_JOB_VISIBILITY_TIMEOUT = env_int(
    "PORTAL_JOB_VISIBILITY_TIMEOUT", PORTAL_JOB_TIME_LIMIT + 600
)
if PORTAL_JOB_VISIBILITY_TIMEOUT <= PORTAL_JOB_TIME_LIMIT:
    raise ImproperlyConfigured(
        "PORTAL_JOB_VISIBILITY_TIMEOUT must be longer than PORTAL_JOB_TIME_LIMIT: a job still "
        "running would otherwise be handed to a second worker."
    )
CELERY_TASK_TIME_LIMIT = PORTAL_JOB_TIME_LIMIT
CELERY_TASK_SOFT_TIME_LIMIT = max(1, PORTAL_JOB_TIME_LIMIT - max(1, PORTAL_JOB_TIME_LIMIT // 10))
if REDIS_URL:  # workers look for jobs past their visibility time-out every 10 s
    CELERY_BROKER_TRANSPORT_OPTIONS.update(
        visibility_timeout=PORTAL_JOB_VISIBILITY_TIMEOUT,
        unacked_restore_interval=10,
        unacked_restore_throttle=1,
    )
# WeasyPrint's memory is given back to the system only when its process ends: a worker process
# grows by about 1 MiB an export (bench/exports), so it is replaced after ten.
CELERY_WORKER_MAX_TASKS_PER_CHILD = env_int("PORTAL_JOB_TASKS_PER_CHILD", 10)
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_CANCEL_LONG_RUNNING_TASKS_ON_CONNECTION_LOSS = False  # Redis restarting: jobs go on
# Each worker writes a heartbeat to the cache every third of this; /readyz counts the workers
# down when none has written for this long.
PORTAL_WORKER_HEARTBEAT_SECONDS = env_int("PORTAL_WORKER_HEARTBEAT_SECONDS", 30)
# --- webhooks (portal/outbox, docs/webhooks.md) -------------------------------------------------
# Networks webhooks may be sent to although they are not public (loopback for the tests and
# `make run`), and the only ones an endpoint's address may be http:// in. Empty in production.
PORTAL_WEBHOOK_ALLOWED_NETWORKS = env_list("PORTAL_WEBHOOK_ALLOWED_NETWORKS")
try:
    for _network in PORTAL_WEBHOOK_ALLOWED_NETWORKS:
        ipaddress.ip_network(_network, strict=False)
except ValueError as _malformed:
    raise ImproperlyConfigured(
        f"PORTAL_WEBHOOK_ALLOWED_NETWORKS holds {_network!r}, not a network: {_malformed}"
    ) from None
# When each attempt of a delivery is made, in seconds after the one before (the first at once):
# about 0 s, 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h, each a tenth earlier or later at random.
# The soak shortens it, to see every delivery end within its quiet period.
try:
    PORTAL_WEBHOOK_RETRY_SECONDS = [
        max(0, int(wait)) for wait in env_list("PORTAL_WEBHOOK_RETRY_SECONDS")
    ] or [0, 5, 5 * 60, 30 * 60, 2 * 3600, 5 * 3600, 10 * 3600, 10 * 3600]
except ValueError as _malformed:
    raise ImproperlyConfigured(
        f"PORTAL_WEBHOOK_RETRY_SECONDS: whole numbers of seconds, comma-separated ({_malformed})"
    ) from None
# The most endpoints a business or a site may have enabled at once.
PORTAL_WEBHOOK_ENDPOINTS_PER_OWNER = max(1, env_int("PORTAL_WEBHOOK_ENDPOINTS_PER_OWNER", 10))
# An attempt answered with anything but 2xx within this is a failure.
PORTAL_WEBHOOK_TIMEOUT_SECONDS = max(1, env_int("PORTAL_WEBHOOK_TIMEOUT_SECONDS", 15))
# A task's deliveries sent at once, each from a thread of its own (portal.outbox.delivering),
# and the most deliveries a task carries (those a commit made: portal.outbox.tasks).
PORTAL_WEBHOOK_SENDS_AT_ONCE = max(1, env_int("PORTAL_WEBHOOK_SENDS_AT_ONCE", 8))
PORTAL_WEBHOOK_DELIVERIES_A_TASK = max(1, env_int("PORTAL_WEBHOOK_DELIVERIES_A_TASK", 500))
# The sweep sends deliveries due for PORTAL_WEBHOOK_OVERDUE_SECONDS that no task carries.
PORTAL_WEBHOOK_SWEEP_SECONDS = max(1, env_int("PORTAL_WEBHOOK_SWEEP_SECONDS", 30))
PORTAL_WEBHOOK_OVERDUE_SECONDS = max(1, env_int("PORTAL_WEBHOOK_OVERDUE_SECONDS", 60))
# An endpoint whose every delivery failed for this long is disabled, and its owners e-mailed.
PORTAL_WEBHOOK_DISABLE_AFTER_DAYS = max(1, env_int("PORTAL_WEBHOOK_DISABLE_AFTER_DAYS", 5))
# Events (and their deliveries' attempts) are kept this long once their deliveries have ended.
PORTAL_WEBHOOK_EVENT_DAYS = max(1, env_int("PORTAL_WEBHOOK_EVENT_DAYS", 30))
# --- the periodic sweep (Celery beat; portal/jobs/beat.py) ----------------------------------------
# Beat sends the sweep every PORTAL_SWEEP_SECONDS; /readyz and the dashboard call it late once
# it has not finished for two of them (portal/operations/periodic.py).
PORTAL_SWEEP_SECONDS = max(1, env_int("PORTAL_SWEEP_SECONDS", 5 * 60))
CELERY_BEAT_SCHEDULE = {
    "jobs-sweep": {"task": "portal.jobs.tasks.sweep", "schedule": PORTAL_SWEEP_SECONDS},
    # Intake results' mails held by a cap, sent once it has room (portal.intake.notifying).
    "intake-held-result-mails": {"task": "intake-held-result-mails", "schedule": 60},
    # The mail a week before the latest sign-in of a user with API tokens ends (portal.api).
    "upstream-sign-in-reminders": {"task": "upstream-sign-in-reminders", "schedule": 60 * 60},
    # Webhooks' deliveries due that no task carries (portal.outbox.tasks.sweep).
    "outbox-sweep": {"task": "outbox-sweep", "schedule": PORTAL_WEBHOOK_SWEEP_SECONDS},
    # The API's kept answers to POSTs past their keeping (portal.api.idempotency).
    "api-sweep": {"task": "api-sweep", "schedule": 60 * 60},
}
# Beat wakes at least this often: to send what is due, and to keep its lock (below).
CELERY_BEAT_MAX_LOOP_INTERVAL = max(1, env_int("PORTAL_BEAT_LOOP_SECONDS", 5))
if REDIS_URL:
    # The schedule in Redis (celery-redbeat) and a lock there (portal/jobs/beat.py): any number
    # of beats may run, on any machines; the one holding the lock sends, the others wait to take
    # it. A beat killed leaves the lock to time out, so another takes over within its time-out
    # and a loop.
    CELERY_BEAT_SCHEDULER = "portal.jobs.beat:RedisScheduler"
    CELERY_REDBEAT_REDIS_URL = REDIS_URL
    CELERY_REDBEAT_REDIS_OPTIONS = {"socket_connect_timeout": 5, "socket_timeout": 5}
    CELERY_REDBEAT_KEY_PREFIX = f"portal.{DATABASE_LABEL}.beat:"
    CELERY_REDBEAT_LOCK_TIMEOUT = 4 * CELERY_BEAT_MAX_LOOP_INTERVAL
else:  # make run with no Redis, on one machine: the schedule in memory, no file to corrupt
    CELERY_BEAT_SCHEDULER = "portal.jobs.beat:MemoryScheduler"
# How long the staff dashboard's records (the service's calls, the portal's requests) are kept
# (portal/operations), and whether they are made at all (off only to measure what they cost).
PORTAL_METRICS_DAYS = max(2, env_int("PORTAL_METRICS_DAYS", 30))
PORTAL_METRICS_RECORDING = env_bool("PORTAL_METRICS_RECORDING", True)
# How long the audit trail keeps an event (portal/audit), removed by the same sweep; at least
# the 30 days for which PostgreSQL refuses to delete one (portal/audit/migrations/0002).
PORTAL_AUDIT_DAYS = max(30, env_int("PORTAL_AUDIT_DAYS", 365))
# Result files of jobs, and how long they are kept (portal/jobs). In production with workers on
# several machines, point the "jobs" storage at shared object storage (docs/running/scaling.md).
PORTAL_JOB_RESULT_DAYS = env_int("PORTAL_JOB_RESULT_DAYS", 7)
PORTAL_JOB_FILES_DIR = env_str("PORTAL_JOB_FILES_DIR", str(VAR_DIR / "jobs"))
# The files the portal keeps of its own (the laboratory certificates of growers' queries,
# portal/intake), in the default storage: never at an address of their own, each sent by a view
# that checks who asks.
PORTAL_FILES_DIR = env_str("PORTAL_FILES_DIR", str(VAR_DIR / "files"))
STORAGES = {
    "default": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": PORTAL_FILES_DIR, "base_url": None},
    },
    "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    "jobs": {
        "BACKEND": "django.core.files.storage.FileSystemStorage",
        "OPTIONS": {"location": PORTAL_JOB_FILES_DIR, "base_url": None},
    },
}
# Job files in an S3-compatible bucket (django-storages, the "s3" extra): the portal and every
# worker, on any machine, see the same files. Credentials may also come from boto3's own
# sources (AWS_* variables, an instance's role) when these are unset.
PORTAL_JOB_FILES_S3_BUCKET = env_str("PORTAL_JOB_FILES_S3_BUCKET", "")
if PORTAL_JOB_FILES_S3_BUCKET:
    STORAGES["jobs"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {
            "bucket_name": PORTAL_JOB_FILES_S3_BUCKET,
            "endpoint_url": env_str("PORTAL_JOB_FILES_S3_ENDPOINT_URL") or None,
            "region_name": env_str("PORTAL_JOB_FILES_S3_REGION") or None,
            "access_key": env_str("PORTAL_JOB_FILES_S3_ACCESS_KEY_ID") or None,
            "secret_key": env_str("PORTAL_JOB_FILES_S3_SECRET_ACCESS_KEY") or None,
            "file_overwrite": True,  # a job run again replaces its one file
            "querystring_auth": True,
        },
    }
    # The portal's own files in the same bucket, under files/: every portal process sees them.
    STORAGES["default"] = {
        "BACKEND": "storages.backends.s3.S3Storage",
        "OPTIONS": {**STORAGES["jobs"]["OPTIONS"], "location": "files", "file_overwrite": False},
    }
# Behind nginx (deploy/nginx/portal.conf.template), a job's file on this file system is sent by
# nginx from its internal location for this prefix (X-Accel-Redirect), once the portal has
# checked who asks, e.g. /_protected/job-files/. Empty: the portal sends files itself.
PORTAL_PROTECTED_FILES_PREFIX = env_str("PORTAL_PROTECTED_FILES_PREFIX", "")
if PORTAL_PROTECTED_FILES_PREFIX and not (
    PORTAL_PROTECTED_FILES_PREFIX.startswith("/") and PORTAL_PROTECTED_FILES_PREFIX.endswith("/")
):
    raise ImproperlyConfigured("PORTAL_PROTECTED_FILES_PREFIX must begin and end with /.")

# --- sessions, security ---------------------------------------------------------------------------
# Sessions and users are read on every signed-in request: from the cache, the database behind it.
SESSION_ENGINE = "django.contrib.sessions.backends.cached_db"
# django-axes's first (refused while locked out), then the Assurance account's: sign-in through
# the service, the signed-in user read from the cache (portal/accounts/backends.py).
AUTHENTICATION_BACKENDS = [
    "axes.backends.AxesStandaloneBackend",
    "portal.accounts.backends.AssuranceBackend",
]
SESSION_COOKIE_AGE = PORTAL_SESSION_IDLE_SECONDS
# The age counts from the last request: the session is saved at most once a minute to move it
# on (portal/accounts/middleware.py), not on every request.
SESSION_SAVE_EVERY_REQUEST = False
SESSION_COOKIE_HTTPONLY = True
SESSION_COOKIE_SAMESITE = "Lax"
LOGIN_URL = "accounts:sign-in"
LOGIN_REDIRECT_URL = "home"

PORTAL_HTTPS = env_bool("PORTAL_HTTPS", False)
SESSION_COOKIE_SECURE = CSRF_COOKIE_SECURE = LANGUAGE_COOKIE_SECURE = PORTAL_HTTPS
# The language chosen (portal/accounts/language.py): for a year, and only the server reads it.
LANGUAGE_COOKIE_AGE = 365 * 24 * 60 * 60
LANGUAGE_COOKIE_HTTPONLY = True
LANGUAGE_COOKIE_SAMESITE = "Lax"
SECURE_SSL_REDIRECT = PORTAL_HTTPS
SECURE_HSTS_SECONDS = 365 * 24 * 60 * 60 if PORTAL_HTTPS else 0
SECURE_HSTS_INCLUDE_SUBDOMAINS = PORTAL_HTTPS
SECURE_HSTS_PRELOAD = PORTAL_HTTPS
if PORTAL_TRUSTED_PROXIES:
    SECURE_PROXY_SSL_HEADER = ("HTTP_X_FORWARDED_PROTO", "https")
SECURE_CONTENT_TYPE_NOSNIFF = True
SECURE_REFERRER_POLICY = "same-origin"
X_FRAME_OPTIONS = "DENY"
CSRF_FAILURE_VIEW = "portal.errors.csrf_failure"
SECURE_CSP = {
    "default-src": [CSP.SELF],
    "script-src": [CSP.SELF, CSP.NONCE],
    "style-src": [CSP.SELF],
    "img-src": [CSP.SELF, "data:"],
    "font-src": [CSP.SELF],
    "connect-src": [CSP.SELF],
    "form-action": [CSP.SELF],
    "frame-ancestors": [CSP.NONE],
    "base-uri": [CSP.SELF],
    "object-src": [CSP.NONE],
}

# English at today's addresses, Welsh under /cy/ (portal/urls.py); the catalogue is
# locale/cy/LC_MESSAGES (docs/welsh.md), with our corrections of Django's own Welsh in
# locale/corrections, which take precedence over it. Compiled by the make commands.
LANGUAGE_CODE = "en-gb"
LANGUAGES = [("en-gb", "English"), ("cy", "Cymraeg")]
LOCALE_PATHS = [BASE_DIR / "locale", BASE_DIR / "locale" / "corrections"]
TIME_ZONE = "Europe/London"
USE_I18N = True
USE_TZ = True
# Times in 24-hour form everywhere, Django's admin included (portal/formats/).
FORMAT_MODULE_PATH = ["portal.formats"]

STATIC_URL = "static/"
STATICFILES_DIRS = [BASE_DIR / "static"]
STATIC_ROOT = env_str("STATIC_ROOT", "") or None  # for collectstatic in production
if STATIC_ROOT:
    # Collected files get names with a digest of their content (and .gz and .br copies), so
    # that nginx may tell browsers to keep them for ever: a changed file has a new name.
    STORAGES["staticfiles"] = {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"}
WHITENOISE_USE_FINDERS = True
WHITENOISE_AUTOREFRESH = DEBUG

# --- metrics for operators' tools (portal/operations) ---------------------------------------------
# /metrics answers these client addresses and networks (comma-separated), and requests with
# this bearer token (PORTAL_METRICS_TOKEN_FILE: from a file); anyone else gets 404.
try:
    PORTAL_METRICS_ALLOWED = [
        ipaddress.ip_network(allowed, strict=False)
        for allowed in env_list("PORTAL_METRICS_ALLOWED") or ["127.0.0.1", "::1"]
    ]
except ValueError as error:
    raise ImproperlyConfigured(f"PORTAL_METRICS_ALLOWED: {error}") from None
PORTAL_METRICS_TOKEN = env_str("PORTAL_METRICS_TOKEN", "")

# --- logs (portal/operations/logs.py) -------------------------------------------------------------
# To standard output: one JSON object a line in production, plain lines in development.
PORTAL_LOG_FORMAT = env_str(
    "PORTAL_LOG_FORMAT", "text" if DEBUG or PORTAL_DEVELOPMENT else "json"
).lower()
if PORTAL_LOG_FORMAT not in ("json", "text"):
    raise ImproperlyConfigured(f"PORTAL_LOG_FORMAT must be json or text, not {PORTAL_LOG_FORMAT!r}")
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {
        "json": {"()": "portal.operations.logs.JsonFormatter"},
        "text": {"format": "%(asctime)s %(levelname)s %(name)s [%(request_id)s] %(message)s"},
    },
    # The loggers that write request paths never write a passport's whole short code.
    "filters": {
        "short_codes": {"()": "portal.passports.logs.MaskShortCodes"},
        "no_look_ups": {"()": "portal.passports.logs.LeaveOutLookUps"},
        "request_id": {"()": "portal.operations.logs.WithRequestId"},
        "no_readiness": {"()": "portal.operations.logs.LeaveOutReadiness"},
        "refusals_in_one_line": {"()": "portal.operations.logs.RefusalsInOneLine"},
    },
    "handlers": {
        "console": {
            "class": "logging.StreamHandler",
            "stream": "ext://sys.stdout",
            "formatter": PORTAL_LOG_FORMAT,
            "filters": ["request_id"],
        }
    },
    "root": {"handlers": ["console"], "level": "WARNING"},
    "loggers": {
        "portal": {"level": env_str("PORTAL_LOG_LEVEL", "INFO")},
        "django.request": {
            "filters": ["no_look_ups", "no_readiness", "refusals_in_one_line", "short_codes"]
        },
        "urllib3.connectionpool": {"filters": ["short_codes"]},
        # django-health-check's record of each failed check, with its traceback, at every probe:
        # /readyz logs what went wrong in one line (portal/operations/health.py).
        "health_check": {"level": "ERROR"},
    },
}

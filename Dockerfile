# syntax=docker/dockerfile:1
# The portal's image: gunicorn by default; the same image runs the worker, the scheduler, the
# migrations and the sandbox (compose.yaml). Settings come from the environment only, secrets
# from *_FILE (docs/running/configuration.md).
#
#   docker build -t assurance-portal .

ARG PYTHON_IMAGE=python:3.13-slim-trixie

# --- build: compilers, and every dependency installed into /venv -----------------------------
FROM ${PYTHON_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends build-essential pkg-config gettext \
 && rm -rf /var/lib/apt/lists/*
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_CACHE_DIR=1
RUN python -m venv /venv
WORKDIR /src
# The dependencies alone first (their layer is kept while only the code changes): the project
# installed from pyproject.toml with empty packages, then removed; the code is run from /app.
COPY pyproject.toml README.md ./
RUN mkdir portal sandbox && touch portal/__init__.py sandbox/__init__.py \
 && /venv/bin/pip install '.[s3]' \
 && /venv/bin/pip uninstall -y assurance-portal

# The catalogues of translations compiled (docs/welsh.md), checked as make install checks them.
COPY locale locale
RUN find locale -name '*.po' -exec sh -c 'msgfmt --check --output-file="${1%.po}.mo" "$1"' _ {} \;

# --- the image: the runtime libraries WeasyPrint needs, no compilers, a user of its own ------
FROM ${PYTHON_IMAGE}
RUN apt-get update \
 && apt-get install -y --no-install-recommends \
      libpango-1.0-0 libpangoft2-1.0-0 libharfbuzz0b libharfbuzz-subset0 fonts-dejavu-core \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 portal \
 && useradd --system --uid 10001 --gid portal --home-dir /app --shell /usr/sbin/nologin portal
COPY --from=build /venv /venv
ENV PATH=/venv/bin:$PATH \
    PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    XDG_CACHE_HOME=/tmp/cache \
    PORTAL_BIND=0.0.0.0:8000 \
    STATIC_ROOT=/app/staticfiles \
    PORTAL_JOB_FILES_DIR=/srv/job-files \
    PORTAL_FILES_DIR=/srv/files \
    PORTAL_PASSPORT_KEYS_DIR=/srv/passport-keys
WORKDIR /app
COPY --chown=root:root . /app
COPY --from=build --chown=root:root /src/locale /app/locale
# Static files collected with names that change with their content (and .gz copies), for
# nginx. Folders the portal's user writes: job files, its own files, the sandbox's demo
# database (var/), and where compose's one-shot services put static files, the demo
# certificate and the key that signs passports' codes.
RUN PORTAL_DEVELOPMENT=true python manage.py collectstatic --no-input --verbosity 0 \
 && python -m compileall -q portal sandbox deploy scripts \
 && mkdir -p /srv/job-files /srv/files /srv/static /srv/tls /srv/passport-keys /app/var \
 && chown portal:portal /srv/job-files /srv/files /srv/static /srv/tls /srv/passport-keys /app/var \
 && chmod 0700 /srv/passport-keys
USER portal
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=6s --start-period=30s --retries=3 \
  CMD ["python", "deploy/healthcheck.py"]
CMD ["gunicorn", "--config", "deploy/gunicorn.conf.py", "portal.wsgi:application"]

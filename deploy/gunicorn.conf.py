"""Gunicorn in production, behind nginx (deploy/nginx/portal.conf.template):

    gunicorn --config deploy/gunicorn.conf.py portal.wsgi:application

Every value comes from the environment. The portal's own worker, its limits on a request's
head and the hooks that keep the workers' metrics (PROMETHEUS_MULTIPROC_DIR, a temporary folder
if unset; docs/operations.md, Metrics) are portal/gunicorn_config.py's, as under `make run`.

PORTAL_BIND       where to listen: 127.0.0.1:8000 (several, comma-separated)
PORTAL_WORKERS    processes: by default half the CPUs this process may use, at least 2 (two
                  instances on one machine, portal@8000 and portal@8001, then use them all)
PORTAL_THREADS    threads in each process: 4 (requests mostly wait on the service)
PORTAL_TRUSTED_PROXIES  nginx's address, whose X-Forwarded-Proto gunicorn believes (127.0.0.1)
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

# The checkout (or the image's /app), so that `portal` is found whatever the working directory.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from portal.gunicorn_config import (
    child_exit,
    limit_request_field_size,
    limit_request_fields,
    limit_request_line,
    on_exit,
    on_starting,
    post_fork,
    pre_fork,
    worker_class,
)


def _cpus() -> int:
    try:
        return len(os.sched_getaffinity(0))  # a container's or a unit's CPU set
    except AttributeError:
        return os.cpu_count() or 1


def _number(name: str, default: int) -> int:
    raw = os.environ.get(name, "").strip()
    if not raw:
        return default
    if not raw.isdigit() or int(raw) < 1:
        raise ValueError(f"{name} must be a whole number of at least 1, not {raw!r}")
    return int(raw)


bind = [b.strip() for b in os.environ.get("PORTAL_BIND", "127.0.0.1:8000").split(",") if b.strip()]
workers = _number("PORTAL_WORKERS", max(2, _cpus() // 2))
threads = _number("PORTAL_THREADS", 4)

# A request may wait on the service for ASSURANCE_TOTAL_TIMEOUT (30 s); nginx waits 45 s.
# `timeout` is how long a worker may stay silent before it is killed: longer than any request.
timeout = 60
# On SIGTERM (systemctl stop, a deploy) requests under way have this long to finish.
graceful_timeout = 35
# nginx keeps no idle connection to the portal (deploy/nginx/portal.conf.template): a few
# seconds for any other client that does.
keepalive = 5
# Workers are replaced now and then, a few at a time, should memory ever creep up (each
# replacement takes over its predecessor's metrics files: portal/operations/processes.py).
max_requests = 5000
max_requests_jitter = 500

# X-Forwarded-Proto is believed from nginx only. The client's address is the portal's own
# business (portal/lib/client_address.py, PORTAL_TRUSTED_PROXIES).
forwarded_allow_ips = os.environ.get("PORTAL_TRUSTED_PROXIES", "").strip() or "127.0.0.1"
proxy_allow_ips = forwarded_allow_ips

# nginx keeps the access log (with short codes masked) and the portal logs each request
# itself as JSON: gunicorn writes its errors only, to standard error (the journal, docker logs).
accesslog = None
errorlog = "-"
loglevel = os.environ.get("PORTAL_GUNICORN_LOG_LEVEL", "info")
capture_output = True

# Loaded in each worker, after fork: no connection (database, Redis) is shared between them.
preload_app = False

__all__ = [
    "child_exit",
    "limit_request_field_size",
    "limit_request_fields",
    "limit_request_line",
    "on_exit",
    "on_starting",
    "post_fork",
    "pre_fork",
    "worker_class",
]

"""How gunicorn serves the portal: the one configuration, in production behind nginx
(deploy/nginx/portal.conf.template) as under `make run` and the tests (scripts/servers.py,
which give --bind, --workers and --threads on the command line):

    gunicorn --config deploy/gunicorn.conf.py portal.wsgi:application

Every value comes from the environment. The limits on a request's head are gunicorn's own,
written out: no client can make a worker hold more than a few KiB of it before the portal sees
the request. The portal's own worker answers an address too long with the portal's page
(portal/operations/web_worker.py).

Its hooks keep the workers' metrics (portal/operations/processes.py; docs/running/metrics.md,
Metrics): the folder they are written to (PROMETHEUS_MULTIPROC_DIR, a temporary one if unset) is
emptied when gunicorn starts, and each worker writes under a slot that its replacement takes over
once it has ended, so that the files do not pile up however often workers are replaced.

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
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gunicorn.arbiter import Arbiter
    from gunicorn.workers.base import Worker

# The checkout (or the image's /app), so that `portal` is found whatever the working directory.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from portal.operations import processes


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

worker_class = "portal.operations.web_worker.PortalWorker"
limit_request_line = 4094  # bytes: the method, the address and the protocol
limit_request_fields = 100
limit_request_field_size = 8190  # bytes of any one header


# --- hooks: the workers' metrics -----------------------------------------------------------------


def on_starting(server: Arbiter) -> None:
    processes.start_afresh()


def pre_fork(server: Arbiter, worker: Worker) -> None:
    """In the master: the new worker's slot, one no running worker holds (a worker is running
    until the master has reaped it)."""
    worker.metrics_slot = processes.free_slot(
        getattr(running, "metrics_slot", -1) for running in server.WORKERS.values()
    )


def post_fork(server: Arbiter, worker: Worker) -> None:
    """In the new worker, before it loads the portal."""
    processes.claim(_slot_name(worker))


def child_exit(server: Arbiter, worker: Worker) -> None:
    """In the master, once it has reaped an ended worker."""
    processes.release(_slot_name(worker))


def on_exit(server: Arbiter) -> None:
    processes.finish()


def _slot_name(worker: Worker) -> str:
    return f"web-{worker.metrics_slot}"

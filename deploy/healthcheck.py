"""The image's health check: GET /healthz from the portal's own gunicorn, as nginx would ask it
(a host name the portal serves, over HTTPS as far as the portal can tell). Exit status 0 when
it answers 200.

    python deploy/healthcheck.py        # PORTAL_BIND's port, 8000 by default
"""

from __future__ import annotations

import http.client
import os
import sys


def main() -> int:
    bind = os.environ.get("PORTAL_BIND", "127.0.0.1:8000").split(",")[0].strip()
    port = int(bind.rsplit(":", 1)[1])
    hosts = [h.strip().lstrip(".") for h in os.environ.get("ALLOWED_HOSTS", "").split(",")]
    host = next((h for h in hosts if h and h != "*"), "localhost")
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("GET", "/healthz", headers={"Host": host, "X-Forwarded-Proto": "https"})
        status = connection.getresponse().status
    except OSError as error:
        print(f"/healthz: {error}", file=sys.stderr)
        return 1
    finally:
        connection.close()
    if status != 200:
        print(f"/healthz answered {status}", file=sys.stderr)
    return 0 if status == 200 else 1


if __name__ == "__main__":
    sys.exit(main())

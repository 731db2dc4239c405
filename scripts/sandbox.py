"""Starts the sandbox alone: migrates its database, loads the demo data, serves it with gunicorn.

python -m scripts.sandbox [--port 8001] [--host 127.0.0.1] [--workers 2]
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def prepare() -> None:
    """Migrates the sandbox's database and loads the demo data (idempotently)."""
    os.environ["DJANGO_SETTINGS_MODULE"] = "sandbox.settings"
    (ROOT / "var").mkdir(exist_ok=True)
    import django
    from django.core.management import call_command

    django.setup()
    call_command("migrate", verbosity=0, interactive=False)
    call_command("load_demo")


def gunicorn_command(host: str, port: int, workers: int) -> list[str]:
    return [
        sys.executable, "-m", "gunicorn", "sandbox.wsgi:application",
        "--bind", f"{host}:{port}",
        "--workers", str(workers),
        "--threads", "4",
        "--access-logfile", "-" if os.environ.get("SANDBOX_ACCESS_LOG") else "/dev/null",
        "--error-logfile", "-",
        "--log-level", "warning",
        "--graceful-timeout", "5",
    ]  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=int(os.environ.get("SANDBOX_PORT", 8001)))
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--quiet", action="store_true", help="print nothing but errors")
    args = parser.parse_args()
    prepare()
    if not args.quiet:
        print(f"Sandbox of the Assurance service on http://{args.host}:{args.port}/", flush=True)
    os.chdir(ROOT)
    os.execv(sys.executable, gunicorn_command(args.host, args.port, args.workers))  # noqa: S606


if __name__ == "__main__":
    main()

"""`make run`: starts the whole system on this machine and says where it is.

The sandbox of the Assurance service (with its demo data) and the portal, started by
scripts/servers.py, a Celery worker and Celery beat; first, a development key that signs
passports' QR codes if there is none (`manage.py new_passport_key --if-none`, in
var/passport-keys); once the sandbox answers, the portal's demo of intake results on the
sandbox's demo passport (`manage.py load_intake_demo`).
PostgreSQL and Redis are used when DATABASE_URL and REDIS_URL say so, or when they answer on
their usual local ports; otherwise the portal falls back to SQLite, a file cache, a
file-system broker and beat's schedule in memory, and says so. Stops everything on Ctrl-C.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from sandbox.demo.accounts import ACCOUNTS, INTAKE_CLERK, PASSPORTS
from sandbox.ids import display_short_code
from scripts import servers

ROOT = Path(__file__).resolve().parent.parent
LOCAL_POSTGRES = "postgres://postgres@127.0.0.1:5432/portal"
LOCAL_REDIS = "redis://127.0.0.1:6379/0"
MAILDIR = ROOT / "var" / "mail"
WEBHOOKS_DIR = ROOT / "var" / "webhooks"
DEMO_PASSPORT = PASSPORTS[0]  # a load recorded at intake: its grower sees it on its page


def answers(host: str, port: int) -> bool:
    try:
        with socket.create_connection((host, port), timeout=1):
            return True
    except OSError:
        return False


def choose_database() -> tuple[str, str]:
    """DATABASE_URL for the portal, and how it was chosen."""
    if os.environ.get("DATABASE_URL"):
        return os.environ["DATABASE_URL"], "DATABASE_URL"
    if answers("127.0.0.1", 5432):
        try:
            import psycopg

            with psycopg.connect("postgresql://postgres@127.0.0.1:5432/postgres",
                                 autocommit=True, connect_timeout=3) as db:  # fmt: skip
                if not db.execute("SELECT 1 FROM pg_database WHERE datname = 'portal'").fetchone():
                    db.execute("CREATE DATABASE portal")
            return LOCAL_POSTGRES, "PostgreSQL on 127.0.0.1:5432, database portal"
        except Exception as error:  # any failure means: fall back
            return "", f"SQLite in var/ (PostgreSQL answered but refused: {error})"
    return "", "SQLite in var/portal.sqlite3 (no PostgreSQL on 127.0.0.1:5432)"


def database_problem(url: str) -> str | None:
    """Why the PostgreSQL database `url` names cannot be used, in a sentence; None if it can
    (or it is not PostgreSQL's: SQLite makes its file)."""
    if not url.startswith(("postgres://", "postgresql://")):
        return None
    import psycopg

    try:
        with psycopg.connect(url.replace("postgres://", "postgresql://", 1), connect_timeout=5):
            return None
    except psycopg.Error as error:
        said = str(error).strip().splitlines()
        return said[-1] if said else type(error).__name__


def choose_redis() -> tuple[str, str]:
    if os.environ.get("REDIS_URL"):
        return os.environ["REDIS_URL"], "REDIS_URL"
    if answers("127.0.0.1", 6379):
        return LOCAL_REDIS, "Redis on 127.0.0.1:6379"
    return "", "a file cache and a file-system broker in var/ (no Redis on 127.0.0.1:6379)"


def environment(database: str, redis: str, sandbox_port: int) -> dict[str, str]:
    """The environment of every process `make run` starts: the sandbox, the portal and the
    worker (and of `make manage`'s commands)."""
    on_sandbox = on_the_sandbox()
    return {
        **os.environ,
        **(_sandbox_lookup_account() if on_sandbox else {}),
        "DATABASE_URL": database,
        "REDIS_URL": redis,
        "ASSURANCE_BASE_URL": os.environ.get("ASSURANCE_BASE_URL")
        or f"http://127.0.0.1:{sandbox_port}",
        "PORTAL_DEVELOPMENT": "true",  # the portal's development secret key is allowed
        # The sandbox believes the portal's X-Forwarded-For, so its lockout falls on whoever
        # failed to sign in; another service (ASSURANCE_BASE_URL set) decides for itself.
        "SANDBOX_TRUSTED_PROXIES": os.environ.get("SANDBOX_TRUSTED_PROXIES") or "127.0.0.1",
        "ASSURANCE_FORWARDS_CLIENT_ADDRESS": os.environ.get("ASSURANCE_FORWARDS_CLIENT_ADDRESS")
        or ("true" if on_sandbox else "false"),
    }


def on_the_sandbox() -> bool:
    """Whether the portal talks to the sandbox `make run` starts: no ASSURANCE_BASE_URL names
    another service."""
    return not os.environ.get("ASSURANCE_BASE_URL")


def _sandbox_lookup_account() -> dict[str, str]:
    """The sandbox's haulier looks passports up for visitors, on whatever port it runs."""
    return {
        "ASSURANCE_LOOKUP_USERNAME": os.environ.get("ASSURANCE_LOOKUP_USERNAME") or "haulier",
        "ASSURANCE_LOOKUP_PASSWORD": os.environ.get("ASSURANCE_LOOKUP_PASSWORD")
        or "haulier-demo-pass",
    }


def _said_if_stopped(receiver: subprocess.Popen, port: int) -> bool:
    """Whether the webhook receiver has stopped, saying so and how to start it again."""
    if receiver.poll() is None:
        return False
    again = (f"{sys.executable} -m scripts.webhook_receiver --port {port} "
             f"--folder {WEBHOOKS_DIR}")  # fmt: skip
    print(f"The webhook receiver stopped: the portal tries its deliveries again later. Start it "
          f"again with\n  {again}", file=sys.stderr, flush=True)  # fmt: skip
    return True


def main() -> int:
    sandbox_port = int(os.environ.get("SANDBOX_PORT", "8001"))
    portal_port = int(os.environ.get("PORTAL_PORT", "8000"))
    database, database_choice = choose_database()
    redis, redis_choice = choose_redis()
    mail_port = None if os.environ.get("EMAIL_HOST") else servers.free_port()
    webhook_port = servers.free_port()
    env = (environment(database, redis, sandbox_port) | _mail_environment(mail_port)
           | _webhook_environment(webhook_port))  # fmt: skip
    for folder in ("broker", "broker-processed", "broker-control"):
        (ROOT / "var" / folder).mkdir(parents=True, exist_ok=True)

    print(f"Portal database: {database_choice}")
    problem = database_problem(database)
    if problem:
        print(
            f"The portal's database cannot be used: {problem}. Create it, or unset "
            "DATABASE_URL to use PostgreSQL on 127.0.0.1:5432 or SQLite.",
            file=sys.stderr,
        )
        return 1
    print(f"Cache and job broker: {redis_choice}", flush=True)
    passport_key(env)
    processes: dict[str, subprocess.Popen] = {}
    try:
        if mail_port is not None:
            processes["mail server"] = servers.start_mail_server(MAILDIR, mail_port)
        processes["webhook receiver"] = servers.start_webhook_receiver(WEBHOOKS_DIR, webhook_port)
        sandbox = servers.start_sandbox(port=sandbox_port, env=env, wait=False)
        processes["sandbox"] = sandbox.process
        portal = servers.start_portal(port=portal_port, env=env, wait=False)
        processes["portal"] = portal.process
        processes["worker"] = servers.start_worker(env)
        processes["beat"] = servers.start_beat(env)  # the periodic sweep of jobs and records
        sandbox.wait_until_up()
        intake_demo = on_the_sandbox() and load_intake_demo(env)
        portal.wait_until_up()
        print_addresses(portal.endpoint("/"), sandbox.endpoint("/"), mail_port, intake_demo,
                        env["PORTAL_DEVELOPMENT_WEBHOOK_URL"])  # fmt: skip
        signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
        # The rest goes on without the receiver: its deliveries are tried again once it is back.
        needed = {name: p for name, p in processes.items() if name != "webhook receiver"}
        said = False
        while all(p.poll() is None for p in needed.values()):
            said = said or _said_if_stopped(processes["webhook receiver"], webhook_port)
            time.sleep(0.5)
        stopped = [name for name, p in needed.items() if p.poll() is not None]
        print(f"Stopped: {', '.join(stopped)}; stopping the rest.", file=sys.stderr)
        return 1
    except RuntimeError as error:  # a server that did not start
        print(error, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        for process in processes.values():
            servers.stop(process, seconds=10)


def load_intake_demo(env: dict[str, str]) -> bool:
    """The portal's demo of intake results (portal/intake/demo.py) on the sandbox's demo
    passport, loaded where missing; whether it is there. A failure is said and passed over:
    the rest of the system works without it."""
    command = [sys.executable, "manage.py", "load_intake_demo", DEMO_PASSPORT["short_code"],
               "--added-by", DEMO_PASSPORT["created_by"], "--clerk", INTAKE_CLERK,
               "--webhook-url", env.get("PORTAL_DEVELOPMENT_WEBHOOK_URL", "")]  # fmt: skip
    try:
        loaded = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                                timeout=120, check=False)  # fmt: skip
    except subprocess.TimeoutExpired:
        print("The intake demo was not loaded: it took more than 120 s.", file=sys.stderr)
        return False
    if loaded.returncode == 0:
        print(loaded.stdout.strip(), flush=True)
        return True
    said = (loaded.stderr.strip() or loaded.stdout.strip()).splitlines()
    print(f"The intake demo was not loaded: {said[-1] if said else 'no reason given'}",
          file=sys.stderr, flush=True)  # fmt: skip
    return False


def passport_key(env: dict[str, str]) -> None:
    """A key that signs passports' codes, made if none does (in var/passport-keys, unless
    PORTAL_PASSPORT_KEYS_DIR says where): `manage.py new_passport_key --if-none`. A failure
    is said and passed over: passports' QR codes then hold their look-up address."""
    command = [sys.executable, "manage.py", "new_passport_key", "--if-none"]
    made = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120, check=False)  # fmt: skip
    said = (made.stdout if made.returncode == 0 else made.stderr).strip().splitlines()
    if made.returncode != 0:
        print(f"No key signs passports' codes: {said[-1] if said else 'no reason given'}",
              file=sys.stderr, flush=True)  # fmt: skip
        return
    for line in said:
        if line.startswith("Made key"):
            print(f"Passports' codes: {line}", flush=True)


def _mail_environment(mail_port: int | None) -> dict[str, str]:
    """The portal's mail goes to make run's own mail server, unless EMAIL_HOST names another."""
    if mail_port is None:
        return {}
    return {"EMAIL_HOST": "127.0.0.1", "EMAIL_PORT": str(mail_port),
            "PORTAL_DEVELOPMENT_MAILBOX": str(MAILDIR)}  # fmt: skip


def _webhook_environment(port: int) -> dict[str, str]:
    """Webhooks may go to loopback (make run's receiver), unless the environment says where
    they may go; what the receiver keeps is shown to staff at /development/webhooks/."""
    return {
        "PORTAL_WEBHOOK_ALLOWED_NETWORKS": os.environ.get("PORTAL_WEBHOOK_ALLOWED_NETWORKS")
        or "127.0.0.0/8",
        "PORTAL_DEVELOPMENT_WEBHOOKS": str(WEBHOOKS_DIR),
        "PORTAL_DEVELOPMENT_WEBHOOK_URL": f"http://127.0.0.1:{port}/",
    }


def print_addresses(
    portal: str, sandbox: str, mail_port: int | None, intake_demo: bool = False,
    webhook_url: str = "",
) -> None:  # fmt: skip
    print()
    print(f"  Assurance portal:           {portal}  (Cymraeg: {portal}cy/)")
    print(f"  Assurance service sandbox:  {sandbox}  (admin: {sandbox}admin/)")
    if mail_port is None:
        print(f"  Mail:                       sent through {os.environ['EMAIL_HOST']}")
    else:
        print(f"  Mail the portal sent:       {portal}development/mail/  "
              f"(a mail server on 127.0.0.1:{mail_port} keeps it in var/mail)")  # fmt: skip
    if webhook_url:
        print(f"  Webhooks the portal sent:   {portal}development/webhooks/  "
              f"(a receiver at {webhook_url} keeps them in var/webhooks)")  # fmt: skip
    print()
    print("  Demo accounts (username / password):")
    for account in ACCOUNTS:
        print(f"    {account['username']:<10} {account['password']}")
    if intake_demo:
        print()
        code, grower = display_short_code(DEMO_PASSPORT["short_code"]), DEMO_PASSPORT["created_by"]
        print(f"  A load recorded at intake:  {portal}passports/{code}/  "
              f"(as {grower}; {INTAKE_CLERK} is its site's clerk)")  # fmt: skip
    print()
    print("  Press Ctrl-C to stop.", flush=True)


if __name__ == "__main__":
    sys.exit(main())

"""Starting the sandbox and the portal on a port, and waiting until they answer, and a worker of
the portal's jobs: for `make run`, the tests and the benchmarks alike.

    server = start_sandbox(directory)        # a free port; its database and log in directory
    requests.get(server.endpoint("/v1/..."))
    server.stop()

Each server runs in a process of its own under gunicorn, on 127.0.0.1. On Linux it is also sent
SIGTERM when the thread that started it ends, so that none outlives a test run or benchmark
that dies: start servers from a thread that lives as long as they should.
"""

from __future__ import annotations

import ctypes
import http.client
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Mapping
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent.parent
LOOPBACK = "127.0.0.1"
START_SECONDS = 90.0  # for a server to answer once started
STOP_SECONDS = 15.0  # for a server to stop before it is killed
LOG_TAIL = 6000  # characters of a server's log quoted when it fails to start

# How gunicorn serves the portal: the one configuration, production's, with the address,
# workers and threads given on the command line.
PORTAL_GUNICORN_CONFIG = str(ROOT / "deploy" / "gunicorn.conf.py")


def free_port() -> int:
    """A TCP port on 127.0.0.1 that nothing listens on now."""
    with socket.socket() as s:
        s.bind((LOOPBACK, 0))
        return s.getsockname()[1]


@dataclass
class Server:
    """A server this process started."""

    name: str
    url: str  # http://127.0.0.1:PORT, without a trailing slash
    process: subprocess.Popen
    health_path: str  # answers 200 once the server is up
    log: Path | None  # None: its output is this process's own

    @property
    def port(self) -> int:
        return int(self.url.rsplit(":", 1)[1])

    def endpoint(self, path: str) -> str:
        return f"{self.url}{path}"

    def wait_until_up(self, seconds: float = START_SECONDS) -> None:
        wait_until_up(self.endpoint(self.health_path), self.process, seconds, self.log, self.name)

    def stop(self) -> None:
        stop(self.process)


def start_sandbox(
    directory: Path | None = None,
    port: int | None = None,
    *,
    workers: int = 2,
    env: Mapping[str, str] | None = None,
    wait: bool = True,
    **settings: str,
) -> Server:
    """The sandbox (`python -m scripts.sandbox`: migrated, demo data loaded, under gunicorn) on
    `port`, a free one by default, with `env` (by default this process's) and SANDBOX_*
    `settings`; once it answers, unless `wait` is false.

    With a `directory`, its log is written there, and its SQLite database kept there unless
    `settings` name another; otherwise its database is SANDBOX_DATABASE_URL's (or
    var/sandbox.sqlite3) and its output this process's."""
    variables = dict(os.environ if env is None else env)
    log = None
    if directory is not None:
        variables["SANDBOX_DATABASE_URL"] = f"sqlite:///{directory / 'sandbox.sqlite3'}"
        log = directory / "sandbox.log"
    variables.update(settings)
    port = port or free_port()
    command = ["-m", "scripts.sandbox", "--host", LOOPBACK, "--port", str(port),
               "--workers", str(workers), "--quiet"]  # fmt: skip
    with _output(log, "w") as output:
        process = _spawn(command, variables, output)
    server = Server("sandbox", f"http://{LOOPBACK}:{port}", process, "/", log)
    return _waited(server) if wait else server


def start_portal(
    directory: Path | None = None,
    port: int | None = None,
    *,
    workers: int = 2,
    threads: int = 4,
    env: Mapping[str, str] | None = None,
    wait: bool = True,
    **settings: str,
) -> Server:
    """The portal under gunicorn as in production, after migrating its database, on `port`, a
    free one by default, with `env` (by default this process's) and `settings`; once it
    answers, unless `wait` is false. Its development secret key is allowed
    (PORTAL_DEVELOPMENT).

    With a `directory`, its log is written there, and its SQLite database kept there unless
    `settings` name another; otherwise its database is DATABASE_URL's (or var/portal.sqlite3)
    and its output this process's. Raises RuntimeError if the database cannot be migrated."""
    variables = {**(os.environ if env is None else env), "PORTAL_DEVELOPMENT": "true"}
    log = None
    if directory is not None:
        variables["DATABASE_URL"] = f"sqlite:///{directory / 'portal.sqlite3'}"
        log = directory / "portal.log"
    variables.update(settings)
    _migrate_portal(variables, log)
    port = port or free_port()
    command = ["-m", "gunicorn", "--config", PORTAL_GUNICORN_CONFIG, "portal.wsgi:application",
               "--bind", f"{LOOPBACK}:{port}", "--workers", str(workers),
               "--threads", str(threads), "--log-level", "warning",
               "--graceful-timeout", "5"]  # fmt: skip
    with _output(log, "a") as output:
        process = _spawn(command, variables, output)
    server = Server("portal", f"http://{LOOPBACK}:{port}", process, "/healthz", log)
    return _waited(server) if wait else server


def start_worker(
    env: Mapping[str, str],
    *,
    concurrency: int = 2,
    log: Path | None = None,
    name: str = "celery",
) -> subprocess.Popen:
    """A Celery worker of the portal's jobs with `env`, `concurrency` processes, named `name`
    on this machine (workers beside one another need names of their own, as production's
    have). Its output goes to `log`, or this process's."""
    command = ["-m", "celery", "-A", "portal.celery", "--quiet", "worker",
               "--hostname", f"{name}@%h",
               "--loglevel", "warning", "--concurrency", str(concurrency)]  # fmt: skip
    with _output(log, "a") as output:  # a worker started again keeps its last words
        # In a session of its own: Ctrl-C in the terminal (or a signal to this process's group)
        # reaches this process, which stops the worker, and the worker stops its pool's
        # processes. Signalled with them at once, it may find a task message half read by one
        # and print billiard's traceback as it stops.
        return _spawn(command, env, output, own_session=True)


def beat_command(loglevel: str = "warning") -> list[str]:
    """Celery beat's command line, after the Python interpreter, for every place that starts
    beat. Its scheduler is the settings' (CELERY_BEAT_SCHEDULER): with Redis, RedBeat's, which
    keeps the schedule and a lock in Redis, so that beats may run on several machines and one
    sends; without, Celery's in memory. Neither keeps a file."""
    return ["-m", "celery", "-A", "portal.celery", "--quiet", "beat", "--loglevel", loglevel]


def start_beat(env: Mapping[str, str], *, log: Path | None = None) -> subprocess.Popen:
    """Celery beat, which sends the portal's periodic sweep, with `env`. Its output goes to
    `log`, or this process's."""
    with _output(log, "a") as output:
        return _spawn(beat_command(), env, output)


def start_mail_server(maildir: Path, port: int, log: Path | None = None) -> subprocess.Popen:
    """A mail server for development (aiosmtpd) on `port`, that keeps every mail it is given in
    the Maildir `maildir` and sends none on."""
    command = ["-m", "aiosmtpd", "--nosetuid", "--listen", f"{LOOPBACK}:{port}",
               "--class", "aiosmtpd.handlers.Mailbox", str(maildir)]  # fmt: skip
    with _output(log, "w") as output:
        return _spawn(command, os.environ, output)


def start_webhook_receiver(
    folder: Path, port: int, log: Path | None = None, *options: str
) -> subprocess.Popen:
    """A receiver of webhooks for development (scripts/webhook_receiver.py) on `port`, that
    keeps each event it is sent in `folder`; `options` its own (the soak's faults)."""
    command = ["-m", "scripts.webhook_receiver", "--port", str(port), "--folder", str(folder),
               *options]  # fmt: skip
    with _output(log, "w") as output:
        return _spawn(command, os.environ, output)


def wait_until_up(
    url: str,
    process: subprocess.Popen,
    seconds: float = START_SECONDS,
    log: Path | None = None,
    name: str = "server",
) -> None:
    """Returns once GET `url` answers 200; raises RuntimeError, quoting the server's `log`, if
    `process` stops or `seconds` pass first."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # never a proxy
    deadline = time.monotonic() + seconds
    answered = "nothing"
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(
                f"The {name} stopped on start (exit status {process.returncode}){_quoted(log)}"
            )
        try:
            with opener.open(url, timeout=5):
                return
        except urllib.error.HTTPError as error:
            answered = f"status {error.code}"
        except (OSError, http.client.HTTPException):  # not listening yet, or still loading
            pass
        time.sleep(0.2)
    raise RuntimeError(
        f"The {name} did not answer GET {url} with 200 in {seconds:.0f} s (last: {answered})"
        f"{_quoted(log)}"
    )


def stop(process: subprocess.Popen, seconds: float = STOP_SECONDS) -> None:
    """Stops a server started here (gunicorn stops its workers with it): SIGTERM, and SIGKILL
    if it has not stopped after `seconds`."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=seconds)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait(timeout=5)


def _migrate_portal(env: Mapping[str, str], log: Path | None) -> None:
    with _output(log, "w") as output:
        migrate = subprocess.run(
            [sys.executable, "manage.py", "migrate", "--verbosity=0"],
            cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT if output else None,
            timeout=300, check=False,
        )  # fmt: skip
    if migrate.returncode != 0:
        raise RuntimeError(f"The portal's database could not be migrated{_quoted(log)}")


def _spawn(
    command: list[str], env: Mapping[str, str], output: IO | None, *, own_session: bool = False
) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, *command], cwd=ROOT, env=env,
        stdout=output, stderr=subprocess.STDOUT if output else None,
        preexec_fn=stop_with_parent, start_new_session=own_session,
    )  # fmt: skip


def _waited(server: Server) -> Server:
    try:
        server.wait_until_up()
    except BaseException:
        server.stop()
        raise
    return server


def _output(log: Path | None, mode: str) -> AbstractContextManager[IO | None]:
    """The log file opened for a child's output (closed here once the child has it), or
    nothing: the child writes to this process's own output."""
    return log.open(mode) if log is not None else nullcontext()


def _quoted(log: Path | None) -> str:
    if log is None:
        return "; see its messages above."
    text = log.read_text(errors="replace") if log.exists() else ""
    return f"; its log, {log}:\n{text[-LOG_TAIL:]}"


if sys.platform == "linux":
    _PR_SET_PDEATHSIG = 1
    # Looked up here, not in the child: between fork and exec the child should do no more than
    # the one call.
    _prctl = ctypes.CDLL(None, use_errno=True).prctl

    def stop_with_parent() -> None:
        """For a child's `preexec_fn`: it is sent SIGTERM when this process dies."""
        _prctl(_PR_SET_PDEATHSIG, signal.SIGTERM)

else:
    stop_with_parent = None

"""The soak's own system, on free loopback ports, never the machine's shared services: a
PostgreSQL cluster (initdb into the soak's folder), a Redis configured as docs/running/install.md
tells production to configure it, the sandbox, the portal under gunicorn as deployed, Celery
workers, beat as production runs it (deploy/systemd/portal-scheduler.service), a mail server
(aiosmtpd) that keeps every mail, and a receiver of webhooks (scripts/webhook_receiver.py)
that keeps every event it takes, answers 500 to one in ten and too late to one in twenty-five,
with the grower's business's endpoint at it (the intake demo's). `Stack.stop` removes all of it.

The servers are started as `make run` starts them (scripts/servers.py); what is the soak's own
is the PostgreSQL cluster, the Redis and beat, and knowing each process so that faults can be
aimed at it.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import psycopg

from scripts import run, servers
from scripts.servers import LOOPBACK, ROOT, stop_with_parent

PG_BIN = Path(os.environ.get("SOAK_PG_BIN", "/usr/local/bin"))
WORKERS = 2  # Celery workers, each of WORKER_CONCURRENCY processes
WORKER_CONCURRENCY = 2
# Short limits, so that a job whose worker died comes back within the soak's quiet period
# rather than the hour production allows (docs/running/jobs.md).
JOB_TIME_LIMIT, VISIBILITY_TIMEOUT = 45, 55
SWEEP_SECONDS = 20  # beat sends the sweep this often, to find lost jobs within the quiet period
# Webhooks: tried again within about 40 s in all (longer than the receiver is down), a late
# answer after 3 s, and what a lost task left swept within 15 s, all within the quiet period.
WEBHOOK_RETRY_SECONDS, WEBHOOK_TIMEOUT = "0,1,2,4,8,8,8,8", 3
RECEIVER_FAULTS = ("--fail-one-in", "10", "--late-one-in", "25", "--late-seconds", "5")
DATABASE = "portal"


def children(pid: int) -> list[int]:
    """The processes `pid` started (its direct children), from /proc."""
    found: list[int] = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        try:
            found += [int(child) for child in (task / "children").read_text().split()]
        except OSError:  # the process or thread ended meanwhile
            continue
    return found


def resident_kib(pid: int) -> int:
    """The resident memory of `pid` and its children, in KiB (0 once it has ended)."""
    total = 0
    for process in [pid, *children(pid)]:
        try:
            status = Path(f"/proc/{process}/status").read_text()
        except OSError:
            continue
        total += next((int(line.split()[1]) for line in status.splitlines()
                       if line.startswith("VmRSS:")), 0)  # fmt: skip
    return total


def _as_postgres(command: list[str]) -> list[str]:
    """PostgreSQL refuses to run as root: as root, run its commands as the postgres user."""
    return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command


@dataclass
class PostgreSQL:
    """A cluster of the soak's own in `folder`, on `port`, trusting local connections."""

    folder: Path
    port: int

    @property
    def data(self) -> Path:
        return self.folder / "data"

    @property
    def url(self) -> str:
        return f"postgres://postgres@{LOOPBACK}:{self.port}/{DATABASE}"

    def create(self) -> None:
        self.folder.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        subprocess.run(_as_postgres([str(PG_BIN / "initdb"), "-D", str(self.data), "-U",
                                     "postgres", "--auth=trust", "--no-sync"]),
                       check=True, capture_output=True, timeout=120)  # fmt: skip
        self.start()
        with psycopg.connect(self.admin_url, autocommit=True) as db:
            db.execute(f"CREATE DATABASE {DATABASE}")

    @property
    def admin_url(self) -> str:
        return f"postgresql://postgres@{LOOPBACK}:{self.port}/postgres"

    def start(self) -> None:
        options = (f"-p {self.port} -c listen_addresses={LOOPBACK} -k {self.folder} "
                   "-c max_connections=200 -c fsync=off")  # fmt: skip
        subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-l",
                                     str(self.folder / "postgresql.log"), "-o", options, "-w",
                                     "-t", "60", "start"]),
                       check=True, capture_output=True, timeout=90)  # fmt: skip

    def stop(self, mode: str = "fast") -> None:
        subprocess.run(_as_postgres([str(PG_BIN / "pg_ctl"), "-D", str(self.data), "-m", mode,
                                     "-w", "stop"]),
                       check=False, capture_output=True, timeout=90)  # fmt: skip

    def connections(self) -> int | None:
        """Connections to the portal's database now; None while it does not answer."""
        try:
            with psycopg.connect(self.admin_url, connect_timeout=2) as db:
                row = db.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = %s",
                                 [DATABASE]).fetchone()  # fmt: skip
                return int(row[0])
        except psycopg.Error:
            return None


@dataclass
class Redis:
    """A redis-server of the soak's own, configured as production's (docs/running/install.md:
    `appendonly yes`, `maxmemory 512mb`, `maxmemory-policy volatile-lru`)."""

    folder: Path
    port: int
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{LOOPBACK}:{self.port}/0"

    def start(self) -> None:
        self.folder.mkdir(parents=True, exist_ok=True)
        log = (self.folder / "redis.log").open("a")
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", LOOPBACK, "--dir",
             str(self.folder), "--appendonly", "yes", "--maxmemory", "512mb",
             "--maxmemory-policy", "volatile-lru"],
            stdout=log, stderr=subprocess.STDOUT, preexec_fn=stop_with_parent,
        )  # fmt: skip
        log.close()
        deadline = time.monotonic() + 30
        while not run.answers(LOOPBACK, self.port):
            if time.monotonic() > deadline or self.process.poll() is not None:
                raise RuntimeError(f"Redis did not start; see {self.folder / 'redis.log'}")
            time.sleep(0.05)


def start_beat(env: dict[str, str], log: Path) -> subprocess.Popen:
    """Celery beat as production runs it (deploy/systemd/portal-scheduler.service): its
    schedule and lock in the soak's Redis."""
    command = [sys.executable, *servers.beat_command(loglevel="info")]
    with log.open("a") as output:
        return subprocess.Popen(command, cwd=ROOT, env=env, stdout=output,
                                stderr=subprocess.STDOUT, preexec_fn=stop_with_parent)  # fmt: skip


@dataclass
class Stack:
    """The whole system, its parts' data in `folder` and their logs in `logs`."""

    folder: Path
    logs: Path
    postgres: PostgreSQL = field(init=False)
    redis: Redis = field(init=False)
    env: dict[str, str] = field(default_factory=dict)
    sandbox: servers.Server | None = None
    portal: servers.Server | None = None
    mail: subprocess.Popen | None = None
    receiver: subprocess.Popen | None = None
    receiver_port: int = 0
    workers: list[subprocess.Popen | None] = field(default_factory=list)
    beat: subprocess.Popen | None = None
    seen: set[int] = field(default_factory=set)  # every process started, to end them all
    # Processes that ended when no fault ended them: (when, which, exit status).
    crashed: list[tuple[float, str, int]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)  # faults, or the supervisor

    def __post_init__(self) -> None:
        self.postgres = PostgreSQL(self.folder / "postgresql", servers.free_port())
        self.redis = Redis(self.folder / "redis", servers.free_port())

    @property
    def maildir(self) -> Path:
        return self.folder / "mail"

    @property
    def webhooks(self) -> Path:
        """Where the receiver keeps what it took."""
        return self.folder / "webhooks"

    @property
    def receiver_url(self) -> str:
        return f"http://{LOOPBACK}:{self.receiver_port}/"

    @property
    def sandbox_database(self) -> Path:
        return self.folder / "sandbox" / "sandbox.sqlite3"

    def start(self) -> None:
        self.postgres.create()
        self.redis.start()
        mail_port = servers.free_port()
        sandbox_port = servers.free_port()
        self.receiver_port = servers.free_port()
        self.env = self._environment(sandbox_port, mail_port)
        self.mail = servers.start_mail_server(self.maildir, mail_port,
                                              log=self.logs / "mail.log")  # fmt: skip
        self.start_receiver()
        (self.folder / "sandbox").mkdir()
        self.sandbox = servers.start_sandbox(
            self.logs, sandbox_port, env=self.env, workers=3,
            SANDBOX_DATABASE_URL=f"sqlite:///{self.sandbox_database}",
        )  # fmt: skip
        self.portal = servers.start_portal(self.logs, servers.free_port(), env=self.env,
                                           workers=2, DATABASE_URL=self.postgres.url)  # fmt: skip
        self._grant_staff("haulier")
        if not run.load_intake_demo(self.env):  # the clerk's site (soak/locustfile.py, Clerk)
            raise RuntimeError("The intake demo could not be loaded: see above.")
        self.workers = [self.start_worker(n) for n in range(WORKERS)]
        self.start_beat()
        self.seen |= {p.pid for p in self.processes()}

    def _environment(self, sandbox_port: int, mail_port: int) -> dict[str, str]:
        base = run.environment(self.postgres.url, self.redis.url, sandbox_port)
        return {
            **base,
            "SOAK_RUN": uuid.uuid4().hex,
            "EMAIL_HOST": LOOPBACK, "EMAIL_PORT": str(mail_port),
            "PORTAL_JOB_FILES_DIR": str(self.folder / "jobs"),
            "PORTAL_JOB_TIME_LIMIT": str(JOB_TIME_LIMIT),
            "PORTAL_JOB_VISIBILITY_TIMEOUT": str(VISIBILITY_TIMEOUT),
            "PORTAL_SWEEP_SECONDS": str(SWEEP_SECONDS),
            "PORTAL_WEBHOOK_ALLOWED_NETWORKS": "127.0.0.0/8",
            "PORTAL_DEVELOPMENT_WEBHOOK_URL": self.receiver_url,
            "PORTAL_WEBHOOK_RETRY_SECONDS": WEBHOOK_RETRY_SECONDS,
            "PORTAL_WEBHOOK_TIMEOUT_SECONDS": str(WEBHOOK_TIMEOUT),
            "PORTAL_WEBHOOK_SWEEP_SECONDS": "5",
            "PORTAL_WEBHOOK_OVERDUE_SECONDS": "10",
            "PROMETHEUS_MULTIPROC_DIR": str(self.folder / "metrics"),
            # The load's few users sign in and look up far more than a person would.
            "PORTAL_MAILS_PER_USER_PER_HOUR": "100000",
            "PORTAL_MAILS_PER_RECIPIENT_PER_DAY": "100000",
            "PORTAL_LOOKUPS_PER_MINUTE": "100000",
            "PORTAL_SIGNED_IN_LOOKUPS_PER_MINUTE": "100000",
            "PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE": "100000",
            "PORTAL_LOG_LEVEL": "WARNING",
            "PORTAL_GUNICORN_LOG_LEVEL": "warning",
        }  # fmt: skip

    def _grant_staff(self, username: str) -> None:
        subprocess.run([sys.executable, "manage.py", "grant_staff", username], cwd=ROOT,
                       env=self.env, check=True, capture_output=True, timeout=120)  # fmt: skip

    def start_worker(self, number: int) -> subprocess.Popen:
        worker = servers.start_worker(self.env, concurrency=WORKER_CONCURRENCY,
                                      log=self.logs / f"worker-{number}.log",
                                      name=f"worker-{number}")  # fmt: skip
        self.seen.add(worker.pid)
        return worker

    def start_receiver(self) -> None:
        self.receiver = servers.start_webhook_receiver(
            self.webhooks, self.receiver_port, self.logs / "webhook-receiver.log",
            "--keep", "10000000", *RECEIVER_FAULTS,
        )  # fmt: skip
        self.seen.add(self.receiver.pid)
        deadline = time.monotonic() + 30
        while not run.answers(LOOPBACK, self.receiver_port):
            if time.monotonic() > deadline or self.receiver.poll() is not None:
                raise RuntimeError("The webhook receiver did not start: see its log.")
            time.sleep(0.05)

    def start_beat(self) -> None:
        self.beat = start_beat(self.env, self.logs / "beat.log")
        self.seen.add(self.beat.pid)

    def processes(self) -> list[subprocess.Popen]:
        servers_ = [s.process for s in (self.sandbox, self.portal) if s is not None]
        parts = [*servers_, self.mail, self.receiver, self.beat, *self.workers]
        return [p for p in parts if p is not None]

    def restart_the_ended(self) -> None:
        """As systemd does (Restart=on-failure): a worker or beat that ended on its own is noted
        and started again; any other part that ended is noted."""
        with self.lock:
            for number, worker in enumerate(self.workers):
                if worker is not None and worker.poll() is not None:
                    self.crashed.append((time.time(), f"worker-{number}", worker.returncode))
                    self.workers[number] = self.start_worker(number)
            if self.beat is not None and self.beat.poll() is not None:
                self.crashed.append((time.time(), "beat", self.beat.returncode))
                self.start_beat()
            for name, server in (("portal", self.portal), ("sandbox", self.sandbox)):
                if server is not None and server.process.poll() is not None:
                    self.crashed.append((time.time(), name, server.process.returncode))
            if self.receiver is not None and self.receiver.poll() is not None:
                self.crashed.append((time.time(), "webhook receiver", self.receiver.returncode))
                self.start_receiver()

    def remember_children(self) -> None:
        """Notes the processes the workers and servers forked, so that none outlives the soak."""
        for process in self.processes():
            self.seen.update(children(process.pid))

    def started_here(self, pid: int) -> bool:
        """Whether `pid` is a process of this soak's (its environment carries the run's mark)."""
        try:
            return f"SOAK_RUN={self.env['SOAK_RUN']}".encode() in Path(
                f"/proc/{pid}/environ"
            ).read_bytes().split(b"\0")
        except (OSError, KeyError):
            return False

    def stop(self) -> None:
        """Stops everything, in the order that loses least, and kills whatever is left."""
        self.remember_children()
        for process in [self.beat, *self.workers, self.portal and self.portal.process,
                        self.sandbox and self.sandbox.process, self.mail,
                        self.receiver]:  # fmt: skip
            if process is not None:
                servers.stop(process, seconds=10)
        for pid in self.seen:
            if self.started_here(pid):  # never a process that took a number of ours since
                try:
                    os.kill(pid, signal.SIGCONT)  # a frozen sandbox process
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
        if self.redis.process is not None:
            servers.stop(self.redis.process)
        self.postgres.stop("immediate")

"""The portal deployed as deploy/ describes, on this machine, on loopback ports: the sandbox as
the Assurance service, two gunicorn processes (deploy/gunicorn.conf.py) behind Debian's nginx
(deploy/nginx/portal.conf.template, with a self-signed certificate), two Celery workers and
Celery beat (as deploy/systemd's units run them), a database of its own on the PostgreSQL of
DATABASE_URL and a Redis of its own.

The database is reached through a small TCP forwarder of this process's, so that a test can
take it out of the portal's reach (and give it back) without stopping anyone's PostgreSQL.
Everything started here is stopped, and the database dropped, by `Deployment.stop`.
"""

from __future__ import annotations

import contextlib
import os
import re
import secrets
import select
import socket
import ssl
import string
import subprocess
import sys
import threading
from collections.abc import Mapping
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from importlib.machinery import SourceFileLoader
from pathlib import Path
from types import ModuleType
from urllib.parse import urlsplit, urlunsplit

import requests
import urllib3

from scripts import servers
from scripts.servers import LOOPBACK, ROOT, free_port
from tests.services import PrivateRedis, answers, wait_for

NGINX = "/usr/sbin/nginx"
TEMPLATE = ROOT / "deploy" / "nginx" / "portal.conf.template"
GUNICORN_CONFIG = ROOT / "deploy" / "gunicorn.conf.py"
SMOKE = ROOT / "deploy" / "smoke"
USERNAME, PASSWORD = "grower", "grower-demo-pass"
PASSPORT = "7KXM4-QHT2W"
PROTECTED_PREFIX = "/_protected/job-files/"
HEARTBEAT_SECONDS = 3  # PORTAL_WORKER_HEARTBEAT_SECONDS: a stopped worker is missed soon
START_SECONDS = 90.0
# The settings of the developer's or CI's environment that would make the deployment less
# like production than it should be: none of theirs reaches its processes.
OWN_PREFIXES = ("PORTAL_", "ASSURANCE_", "SANDBOX_", "STANDARDS_", "CELERY_")
OWN_NAMES = {"DEBUG", "SECRET_KEY", "DATABASE_URL", "REDIS_URL", "ALLOWED_HOSTS", "STATIC_ROOT",
             "DJANGO_SETTINGS_MODULE"}  # fmt: skip

urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)


def tail(path: Path, characters: int = 4000) -> str:
    return path.read_text(errors="replace")[-characters:] if path.exists() else ""


def smoke_module() -> ModuleType:
    """deploy/smoke as a module, for its page reader."""
    loader = SourceFileLoader("deploy_smoke", str(SMOKE))
    module = ModuleType(loader.name)
    module.__file__ = str(SMOKE)
    sys.modules.setdefault(loader.name, module)
    loader.exec_module(module)
    return module


# --- processes ------------------------------------------------------------------------------------


@dataclass
class Process:
    """A program of the deployment, its output in a log of its own; started again with the
    same command."""

    name: str
    command: list[str]
    env: Mapping[str, str]
    log: Path
    stop_seconds: float = 20
    process: subprocess.Popen | None = None

    def start(self) -> None:
        with self.log.open("a") as output:
            self.process = subprocess.Popen(
                self.command, cwd=ROOT, env=dict(self.env), stdout=output,
                stderr=subprocess.STDOUT, preexec_fn=servers.stop_with_parent,
            )  # fmt: skip

    @property
    def running(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def check_running(self) -> None:
        if not self.running:
            code = self.process.returncode if self.process else None
            raise AssertionError(f"{self.name} stopped (status {code}); its log:\n{tail(self.log)}")

    def stop(self) -> None:
        """SIGTERM, as systemd stops a unit; SIGKILL if it has not stopped in time."""
        if self.process is not None:
            servers.stop(self.process, self.stop_seconds)


class Forwarder:
    """Forwards connections from a loopback port to `target` (host, port) until stopped;
    stopping it also cuts every connection it carries, as a database gone away would."""

    def __init__(self, target: tuple[str, int], port: int | None = None) -> None:
        self.target = target
        self.port = port or free_port()
        self._listener: socket.socket | None = None
        self._sockets: set[socket.socket] = set()
        self._lock = threading.Lock()

    def start(self) -> None:
        listener = socket.socket()
        listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listener.bind((LOOPBACK, self.port))
        listener.listen(64)
        self._listener = listener
        threading.Thread(target=self._accept, args=(listener,), daemon=True).start()

    def stop(self) -> None:
        with self._lock:
            if self._listener is not None:
                self._listener.close()
                self._listener = None
            for sock in self._sockets:
                _close(sock)
            self._sockets.clear()

    def _accept(self, listener: socket.socket) -> None:
        while True:
            try:
                client, _ = listener.accept()
            except OSError:  # closed: stopped
                return
            try:
                server = socket.create_connection(self.target, timeout=5)
            except OSError:
                _close(client)
                continue
            with self._lock:
                if self._listener is not listener:
                    _close(client)
                    _close(server)
                    return
                self._sockets.update((client, server))
            threading.Thread(target=self._pump, args=(client, server), daemon=True).start()

    def _pump(self, a: socket.socket, b: socket.socket) -> None:
        try:
            while True:
                readable, _, _ = select.select([a, b], [], [], 1)
                for sock in readable:
                    data = sock.recv(65536)
                    if not data:
                        return
                    (b if sock is a else a).sendall(data)
        except (OSError, ValueError):  # cut by stop()
            return
        finally:
            with self._lock:
                self._sockets.difference_update((a, b))
            _close(a)
            _close(b)


def _close(sock: socket.socket) -> None:
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)
    sock.close()


# --- the certificate and nginx's configuration ----------------------------------------------------


def self_signed_certificate(folder: Path) -> tuple[Path, Path]:
    """A certificate for localhost and 127.0.0.1, signed by its own key, made as an operator
    makes the first one (deploy/self_signed_certificate.py): (certificate, key)."""
    script = ROOT / "deploy" / "self_signed_certificate.py"
    subprocess.run([sys.executable, str(script), str(folder), "localhost", LOOPBACK],
                   check=True, capture_output=True, timeout=60)  # fmt: skip
    return folder / "fullchain.pem", folder / "privkey.pem"


def template_names() -> set[str]:
    """The ${NAME} placeholders of deploy/nginx/portal.conf.template."""
    return set(re.findall(r"\$\{([A-Z][A-Z0-9_]*)\}", TEMPLATE.read_text()))


def nginx_main_config(folder: Path, site: Path) -> str:
    """A main configuration of nginx's with everything it writes in `folder`, and the site."""
    temp = {name: folder / name for name in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")}
    for path in temp.values():
        path.mkdir(exist_ok=True)
    # As root, nginx's workers would run as nobody, who cannot reach the test's folders.
    user = "user root;\n" if os.geteuid() == 0 else ""
    return (
        f"{user}worker_processes 2;\n"
        f"pid {folder / 'nginx.pid'};\n"
        f"error_log {folder / 'error.log'} info;\n"
        "events { worker_connections 1024; }\n"
        "http {\n"
        "  include /etc/nginx/mime.types;\n"
        "  default_type application/octet-stream;\n"
        f"  access_log {folder / 'access.log'};\n"
        f"  client_body_temp_path {temp['client_body']};\n"
        f"  proxy_temp_path {temp['proxy']};\n"
        f"  fastcgi_temp_path {temp['fastcgi']};\n"
        f"  uwsgi_temp_path {temp['uwsgi']};\n"
        f"  scgi_temp_path {temp['scgi']};\n"
        f"  include {site};\n"
        "}\n"
    )


# --- the deployment -------------------------------------------------------------------------------


@dataclass
class Deployment:
    folder: Path
    database_url: str  # the deployment's own database, through the forwarder
    admin_url: str  # the server's maintenance database, to drop the deployment's own
    database_name: str
    forwarder: Forwarder
    redis: PrivateRedis
    sandbox: servers.Server | None = None
    portals: list[Process] = field(default_factory=list)
    portal_ports: list[int] = field(default_factory=list)
    workers: list[Process] = field(default_factory=list)
    beat: Process | None = None
    nginx: Process | None = None
    https_port: int = 0
    http_port: int = 0
    env: dict[str, str] = field(default_factory=dict)
    sandbox_env: dict[str, str] = field(default_factory=dict)

    @property
    def url(self) -> str:
        return f"https://localhost:{self.https_port}"

    def session(self) -> requests.Session:
        session = requests.Session()
        session.trust_env = False
        session.verify = False
        return session

    def ready(self) -> tuple[int, dict]:
        """/readyz through nginx: its status and its checks."""
        response = self.session().get(f"{self.url}/readyz", timeout=10)
        try:
            checks = response.json().get("checks", {})
        except ValueError:
            checks = {"answer": response.text[:300]}
        return response.status_code, checks

    def down(self) -> set[str]:
        """What /readyz names as down (nothing when it answers 200)."""
        status, checks = self.ready()
        named = {name for name, check in checks.items() if not check.get("ok")}
        if status == 200:
            return named
        return named or {f"status {status}"}

    def wait_until_ready(self, seconds: float = 60) -> None:
        last: list[object] = []

        def ready() -> bool:
            last[:] = [self.ready()]
            return last[0][0] == 200  # type: ignore[index]

        try:
            wait_for(ready, "/readyz to answer 200", seconds)
        except AssertionError as error:
            raise AssertionError(f"{error}; last answer: {last}") from None

    def smoke(self, username: str = USERNAME, password: str = PASSWORD,
              timeout: float = 120) -> subprocess.CompletedProcess:  # fmt: skip
        """deploy/smoke through nginx, as an operator runs it."""
        return subprocess.run(
            [sys.executable, str(SMOKE), self.url, "--insecure", "--username", username,
             "--look-up", PASSPORT, "--timeout", "20", "--job-timeout", "60"],
            env={**os.environ, "SMOKE_PASSWORD": password},
            capture_output=True, text=True, timeout=timeout, check=False,
        )  # fmt: skip

    # --- starting it

    def start(self) -> None:
        self.redis.start()
        self.forwarder.start()
        # The service trusts no proxy: the portal forwards no client's address to it.
        self.sandbox_env = {k: v for k, v in os.environ.items() if not k.startswith("SANDBOX_")}
        (self.folder / "sandbox").mkdir()
        self.sandbox = servers.start_sandbox(self.folder / "sandbox", env=self.sandbox_env)
        static_root, job_files = self.folder / "static", self.folder / "job-files"
        job_files.mkdir()
        self.portal_ports = [free_port(), free_port()]
        self.env = {
            **{
                name: value
                for name, value in os.environ.items()
                if name not in OWN_NAMES and not name.startswith(OWN_PREFIXES)
            },
            "DEBUG": "false",
            "SECRET_KEY": secrets.token_urlsafe(50),
            "PORTAL_HTTPS": "true",
            "ALLOWED_HOSTS": "localhost,127.0.0.1",
            "PORTAL_TRUSTED_PROXIES": LOOPBACK,
            "ASSURANCE_BASE_URL": self.sandbox.url,
            "ASSURANCE_LOOKUP_USERNAME": "haulier",
            "ASSURANCE_LOOKUP_PASSWORD": "haulier-demo-pass",
            "ASSURANCE_OUTAGE_SECONDS": "2",
            "DATABASE_URL": self.database_url,
            "REDIS_URL": self.redis.url,
            "STATIC_ROOT": str(static_root),
            "PORTAL_JOB_FILES_DIR": str(job_files),
            "PORTAL_PROTECTED_FILES_PREFIX": PROTECTED_PREFIX,
            "PORTAL_WORKER_HEARTBEAT_SECONDS": str(HEARTBEAT_SECONDS),
            # Every request of the tests comes from 127.0.0.1, far more than a person's.
            "PORTAL_LOOKUPS_PER_MINUTE": "100000",
            "PORTAL_SIGN_IN_ATTEMPTS_PER_MINUTE": "100000",
            "PORTAL_WORKERS": "2",
            "PORTAL_WORKER_CONCURRENCY": "2",
            "PORTAL_JOB_TIME_LIMIT": "60",
            "PORTAL_JOB_VISIBILITY_TIMEOUT": "90",
        }
        self.manage("migrate", "--verbosity=0")
        self.manage("collectstatic", "--noinput", "--verbosity=0")
        self.portals = [self.portal(n, port) for n, port in enumerate(self.portal_ports, 1)]
        self.workers = [self.worker(n) for n in (1, 2)]
        self.beat = self.scheduler()
        for process in (*self.portals, *self.workers, self.beat):
            process.start()
        self.nginx = self.proxy(static_root, job_files)
        self.nginx.start()
        for n, port in enumerate(self.portal_ports):
            self.wait_for_portal(self.portals[n], port)
        wait_for(lambda: answers(f"//{LOOPBACK}:{self.https_port}", 443), "nginx to listen", 20)
        self.nginx.check_running()
        self.wait_until_ready()

    def manage(self, *args: str) -> None:
        result = subprocess.run(
            [sys.executable, "manage.py", *args], cwd=ROOT, env=self.env,
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
        if result.returncode != 0:
            raise RuntimeError(f"manage.py {' '.join(args)} failed:\n{result.stderr[-4000:]}")

    def portal(self, n: int, port: int) -> Process:
        """A portal process as deploy/systemd/portal@.service runs it: gunicorn with
        deploy/gunicorn.conf.py, bound to PORTAL_BIND."""
        command = [sys.executable, "-m", "gunicorn", "--config", str(GUNICORN_CONFIG),
                   "portal.wsgi:application"]  # fmt: skip
        env = {**self.env, "PORTAL_BIND": f"{LOOPBACK}:{port}"}
        return Process(
            f"portal {n}", command, env, self.folder / f"portal-{n}.log", stop_seconds=45
        )  # as the unit's TimeoutStopSec

    def wait_for_portal(self, portal: Process, port: int) -> None:
        """Until the process answers /healthz as behind nginx (over HTTPS, by its headers)."""
        headers = {"X-Forwarded-Proto": "https", "Host": "localhost"}

        def answers() -> bool:
            portal.check_running()
            try:
                answer = requests.get(f"http://{LOOPBACK}:{port}/healthz", headers=headers,
                                      timeout=2, allow_redirects=False)  # fmt: skip
            except requests.RequestException:
                return False
            return answer.status_code == 200

        wait_for(answers, f"{portal.name} to answer on {port}")

    def worker(self, n: int) -> Process:
        """A Celery worker as deploy/systemd/portal-worker@.service runs it."""
        command = [sys.executable, "-m", "celery", "-A", "portal.celery", "worker",
                   "--hostname", f"worker-{n}@%h", "--loglevel", "INFO",
                   "--concurrency", self.env["PORTAL_WORKER_CONCURRENCY"]]  # fmt: skip
        return Process(f"worker {n}", command, self.env, self.folder / f"worker-{n}.log")

    def scheduler(self) -> Process:
        """Celery beat, as deploy/systemd/portal-scheduler.service runs it."""
        command = [sys.executable, *servers.beat_command(loglevel="INFO")]
        return Process("beat", command, self.env, self.folder / "beat.log")

    def proxy(self, static_root: Path, job_files: Path) -> Process:
        """nginx with the site rendered from deploy/nginx/portal.conf.template for this
        deployment's ports, certificate and folders."""
        folder = self.folder / "nginx"
        folder.mkdir()
        certificate, key = self_signed_certificate(folder)
        self.https_port, self.http_port = free_port(), free_port()
        values = template_values(self, certificate, key, static_root, job_files)
        unknown = template_names() - values.keys()
        if unknown:
            raise RuntimeError(f"The site's template has placeholders unknown here: {unknown}")
        site = folder / "portal.conf"
        site.write_text(string.Template(TEMPLATE.read_text()).safe_substitute(values))
        config = folder / "nginx.conf"
        config.write_text(nginx_main_config(folder, site))
        command = [NGINX, "-p", str(folder), "-c", str(config), "-e", str(folder / "error.log"),
                   "-g", "daemon off;"]  # fmt: skip
        test = subprocess.run([*command, "-t"], capture_output=True, text=True, check=False)
        if test.returncode != 0:
            raise RuntimeError(
                f"nginx refused its configuration:\n{test.stderr}\n{site.read_text()}"
            )
        return Process("nginx", command, os.environ, folder / "nginx.out")

    # --- stopping it

    def stop(self) -> None:
        """Everything stopped, its programs at once (each may take seconds to finish its
        work), and the database dropped."""
        programs = [p for p in (self.nginx, *self.portals, *self.workers, self.beat) if p]
        with ThreadPoolExecutor(max(1, len(programs))) as stopping:
            list(stopping.map(Process.stop, programs))
        if self.sandbox is not None:
            self.sandbox.stop()
        self.forwarder.stop()
        self.redis.stop()
        drop_database(self.admin_url, self.database_name)


def template_values(
    deployment: Deployment, certificate: Path, key: Path, static_root: Path, job_files: Path
) -> dict[str, str]:
    """The values of the template's placeholders for this deployment."""
    return {
        "PORTAL_SERVER_NAME": "localhost",
        "PORTAL_HTTP_LISTEN": f"{LOOPBACK}:{deployment.http_port}",
        "PORTAL_HTTPS_LISTEN": f"{LOOPBACK}:{deployment.https_port}",
        "PORTAL_TLS_CERTIFICATE": str(certificate),
        "PORTAL_TLS_CERTIFICATE_KEY": str(key),
        "PORTAL_UPSTREAM_SERVERS": " ".join(
            f"server {LOOPBACK}:{port};" for port in deployment.portal_ports
        ),
        "PORTAL_STATIC_ROOT": str(static_root),
        "PORTAL_JOB_FILES_DIR": str(job_files),
        "PORTAL_ACCESS_LOG": str(deployment.folder / "nginx" / "access.log"),
    }


# --- the database ---------------------------------------------------------------------------------


def postgres_url() -> str | None:
    """DATABASE_URL when it names PostgreSQL."""
    url = os.environ.get("DATABASE_URL", "")
    return url if urlsplit(url).scheme in ("postgres", "postgresql", "pgsql") else None


def with_database(url: str, name: str, netloc: str | None = None) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(path=f"/{name}", netloc=netloc or parts.netloc))


def create_database(url: str) -> tuple[str, str]:
    """A database of the deployment's own on the server of `url`: its name, and the URL of the
    server's maintenance database."""
    import psycopg

    name = f"portal_deploy_{secrets.token_hex(4)}"
    admin = with_database(url, "postgres")
    with psycopg.connect(_libpq(admin), autocommit=True, connect_timeout=5) as db:
        db.execute(f'CREATE DATABASE "{name}"')
    return name, admin


def drop_database(admin_url: str, name: str) -> None:
    import psycopg

    with psycopg.connect(_libpq(admin_url), autocommit=True, connect_timeout=5) as db:
        db.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def _libpq(url: str) -> str:
    parts = urlsplit(url)
    return urlunsplit(parts._replace(scheme="postgresql"))


def start_deployment(folder: Path) -> Deployment:
    url = postgres_url()
    assert url is not None
    name, admin = create_database(url)
    parts = urlsplit(url)
    forwarder = Forwarder((parts.hostname or LOOPBACK, parts.port or 5432))
    userinfo = parts.netloc.rpartition("@")[0]
    netloc = (
        f"{userinfo}@{LOOPBACK}:{forwarder.port}" if userinfo else f"{LOOPBACK}:{forwarder.port}"
    )
    deployment = Deployment(
        folder=folder,
        database_url=with_database(url, name, netloc),
        admin_url=admin,
        database_name=name,
        forwarder=forwarder,
        redis=PrivateRedis(free_port(), folder),
    )
    try:
        deployment.start()
    except BaseException:
        deployment.stop()
        raise
    return deployment


def nginx_missing_reason() -> str | None:
    """Why nginx cannot be had, after scripts/install-system-packages tried; None if it is."""
    if Path(NGINX).exists():
        return None
    installer = subprocess.run(
        [str(ROOT / "scripts" / "install-system-packages")],
        capture_output=True, text=True, timeout=900, check=False,
    )  # fmt: skip
    if Path(NGINX).exists():
        return None
    said = " ".join((installer.stderr or installer.stdout).split())[:400]
    return f"Debian's nginx is not installed ({NGINX}) and could not be: {said}"


def tls_context() -> ssl.SSLContext:
    context = ssl.create_default_context()
    context.check_hostname = False
    context.verify_mode = ssl.CERT_NONE
    return context

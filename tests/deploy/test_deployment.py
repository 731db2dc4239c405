"""The portal deployed as deploy/ describes, on this machine (tests/deploy/deployment.py): two
portal processes behind Debian's nginx with a self-signed certificate, two Celery workers and
beat, against the sandbox, with a PostgreSQL database and a Redis of its own.

deploy/smoke passes through nginx, and again with one portal process and one worker stopped
while other requests go on, none of them failing; a slow body sent on many connections holds
up no other request; /readyz names what is down when the service, the workers, Redis and the
database are each taken away in turn.

Run alone with `pytest -m deploy` (about a minute and a half)."""

from __future__ import annotations

import contextlib
import itertools
import shutil
import socket
import ssl
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field

import pytest
import requests

from scripts import servers
from scripts.servers import free_port
from tests.deploy import deployment as deployed
from tests.deploy.deployment import (
    HEARTBEAT_SECONDS,
    PASSPORT,
    Deployment,
    nginx_missing_reason,
    postgres_url,
    start_deployment,
    tail,
    tls_context,
    wait_for,
)
from tests.services import answers

smoke = deployed.smoke_module()

pytestmark = [
    pytest.mark.deploy,
    pytest.mark.slow,
    pytest.mark.filterwarnings("ignore::urllib3.exceptions.InsecureRequestWarning"),
]

SLOW_CONNECTIONS = 30
QUICK_SECONDS = 2.0


@pytest.fixture(scope="module")
def deployment(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Deployment]:
    url = postgres_url()
    if url is None:
        pytest.skip("the deployment needs PostgreSQL: set DATABASE_URL to it, as CI does")
    if not answers(url, 5432):
        pytest.skip(f"PostgreSQL does not answer at DATABASE_URL's address ({url.split('@')[-1]})")
    if shutil.which("redis-server") is None:
        pytest.skip("the deployment needs redis-server, to start a Redis of its own")
    reason = nginx_missing_reason()
    if reason:
        pytest.skip(reason)
    started = start_deployment(tmp_path_factory.mktemp("deployment"))
    yield started
    started.stop()


def logs(deployment: Deployment) -> str:
    """The end of every log of the deployment, for a failure's message."""
    folder = deployment.folder
    paths = [*sorted(folder.glob("*.log")), folder / "sandbox" / "sandbox.log",
             folder / "nginx" / "error.log"]  # fmt: skip
    return "".join(f"\n--- {path.name}\n{tail(path, 2500)}" for path in paths if path.exists())


def passed(deployment: Deployment, result) -> bool:
    assert result.returncode == 0, (
        f"deploy/smoke failed:\n{result.stdout}\n{result.stderr}{logs(deployment)}"
    )
    return True


# --- deploy/smoke, and a process of each kind stopped -------------------------------------------


def test_smoke_passes_through_nginx(deployment: Deployment):
    result = deployment.smoke()
    assert passed(deployment, result)
    assert "✗" not in result.stdout
    assert "a job runs to its end and its file downloads: job" in result.stdout
    assert "the offline checker installs: its worker and" in result.stdout
    assert "made earlier" not in result.stdout


def signed_in(deployment: Deployment, username: str, password: str) -> requests.Session:
    """A session signed in through nginx with the sign-in form, as deploy/smoke does."""
    session = deployment.session()
    url = f"{deployment.url}/accounts/sign-in/"
    form = smoke.Page(session.get(url, timeout=10).text).form_to("/accounts/sign-in/")
    assert form is not None
    answer = session.post(
        url, data={**form.fields, "username": username, "password": password},
        headers={"Referer": url, "Origin": deployment.url}, allow_redirects=False, timeout=20,
    )  # fmt: skip
    assert answer.status_code == 302, answer.text[:500]
    return session


def test_job_files_are_sent_by_nginx_once_the_portal_has_checked_the_owner(
    deployment: Deployment,
):
    """The file of the job deploy/smoke made, answered by nginx's internal location (with its
    own headers) for its owner alone; that location out of reach from outside."""
    grower = signed_in(deployment, "grower", "grower-demo-pass")
    jobs = grower.get(f"{deployment.url}/jobs/", timeout=10)
    downloads = [link.href for link in smoke.Page(jobs.text).links
                 if link.href.endswith("/download/")]  # fmt: skip
    assert downloads, jobs.text
    address = f"{deployment.url}{downloads[0]}"

    download = grower.get(address, timeout=10)
    assert download.status_code == 200
    assert download.headers["Cache-Control"] == "private, no-store"  # nginx's location's
    assert "sandbox" in download.headers["Content-Security-Policy"]
    assert download.headers["Content-Disposition"].startswith("attachment;")
    assert "text/csv" in download.headers["Content-Type"]
    assert smoke.csv_rows(download) > 1

    stranger = signed_in(deployment, "haulier", "haulier-demo-pass")
    assert stranger.get(address, timeout=10).status_code == 404
    folder = deployment.folder / "job-files"
    kept = [path.relative_to(folder) for path in folder.rglob("*") if path.is_file()]
    assert kept
    for path in ("", kept[0]):
        outside = deployment.session().get(
            f"{deployment.url}/_protected/job-files/{path}", timeout=10
        )
        assert outside.status_code == 404


DOOR_TOO_LARGE = {"error": {
    "code": "body_too_large", "fields": {},
    "message": "The body is larger than 1,048,576 bytes: send less at a time.",
}}  # fmt: skip


def test_a_site_s_software_sending_too_much_hears_it_in_json_and_the_connection_closed(
    deployment: Deployment,
):
    """A body over the API's limit is answered by nginx, unread, in the API's own words and
    error shape (which a site's software reads, not nginx's HTML page), and the connection is
    closed then; the same whether the body's length is given or it is sent chunked, at the
    API's address or the door's first one."""
    too_much = b"[" + b" " * (1024 * 1024 + 100) + b"]"
    headers = {"Content-Type": "application/json", "Authorization": "Bearer intake_none"}
    for address, chunked in itertools.product(("/intake/api/loads", "/api/v1/intake/loads"),
                                              (False, True)):  # fmt: skip
        body = iter([too_much[:65536], too_much[65536:]]) if chunked else too_much
        answer = deployment.session().post(f"{deployment.url}{address}", data=body,
                                           headers=headers, timeout=20)  # fmt: skip
        assert answer.status_code == 413, answer.text[:300]
        assert answer.headers["Content-Type"] == "application/json"
        assert answer.json() == DOOR_TOO_LARGE
        assert answer.headers["Connection"] == "close"


@dataclass
class Traffic:
    """GETs of pages and look-ups through nginx, and a POST (answered 403, having no CSRF
    token: what matters is that a portal process answered it, since nginx never sends a POST
    twice), one after another (well under nginx's rate limit for an address), from a thread,
    until stopped; every answer recorded."""

    deployment: Deployment
    paths: tuple[str, ...] = ("/healthz", "/accounts/sign-in/", "/p/", f"/p/{PASSPORT}",
                              "POST /p/", "/standards/", "/static/css/portal.css")  # fmt: skip
    answers: list[tuple[str, int | str, float]] = field(default_factory=list)
    _stop: threading.Event = field(default_factory=threading.Event)
    _thread: threading.Thread | None = None

    def start(self) -> None:
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        assert self._thread is not None
        self._thread.join(30)

    def _run(self) -> None:
        session = self.deployment.session()
        n = 0
        while not self._stop.is_set():
            path = self.paths[n % len(self.paths)]
            n += 1
            started = time.monotonic()
            method, _, address = path.rpartition(" ")
            try:
                status: int | str = session.request(
                    method or "GET", f"{self.deployment.url}{address}", timeout=30
                ).status_code
            except requests.RequestException as error:
                status = f"{type(error).__name__}: {error}"
            self.answers.append((path, status, time.monotonic() - started))
            self._stop.wait(0.08)

    def wait_for_answers(self, more: int) -> None:
        """Returns once `more` requests than now have had their answer (or their error)."""
        then = len(self.answers)
        wait_for(lambda: len(self.answers) >= then + more, f"{more} answers to the traffic", 30)

    @property
    def failed(self) -> list[tuple[str, int | str, float]]:
        return [a for a in self.answers if not isinstance(a[1], int) or a[1] >= 500]


def test_a_portal_process_and_a_worker_stopped_lose_no_request(deployment: Deployment):
    stopped_portal, stopped_worker = deployment.portals[0], deployment.workers[0]
    traffic = Traffic(deployment)
    traffic.start()
    try:
        traffic.wait_for_answers(10)  # flowing before anything stops
        stopped_portal.stop()  # SIGTERM, as systemctl stop does
        stopped_worker.stop()
        assert not stopped_portal.running and not stopped_worker.running
        result = deployment.smoke()
        traffic.wait_for_answers(10)  # and flowing after the smoke
        traffic.stop()
        slowest = max(seconds for _, _, seconds in traffic.answers)
        print(f"{len(traffic.answers)} requests while stopping, the slowest {slowest:.2f} s")
        print(result.stdout)
        assert passed(deployment, result)
        assert "made earlier" not in result.stdout  # a job ran, on the worker left
        assert len(traffic.answers) > 20
        assert traffic.failed == [], f"{traffic.failed}{logs(deployment)}"
        assert {status for path, status, _ in traffic.answers if path != "POST /p/"} <= {200}
        assert {status for path, status, _ in traffic.answers if path == "POST /p/"} == {403}
    finally:
        traffic.stop()
        stopped_portal.start()  # back for the tests that follow
        stopped_worker.start()
        deployment.wait_for_portal(stopped_portal, deployment.portal_ports[0])


# --- slow bodies ----------------------------------------------------------------------------------


@dataclass
class SlowBodies:
    """Connections through nginx that each send a POST's head with a Content-Length, and then
    its body one byte a second."""

    port: int
    count: int
    tls: bool = True  # to nginx; else straight to a portal process, as nginx would send it
    sockets: list[socket.socket] = field(default_factory=list)
    drips: int = 0  # the times each connection has been sent a byte of its body
    _stop: threading.Event = field(default_factory=threading.Event)

    def start(self) -> None:
        context = tls_context()
        proxied = "" if self.tls else "X-Forwarded-Proto: https\r\n"
        head = (f"POST / HTTP/1.1\r\nHost: localhost:{self.port}\r\n{proxied}"
                "Content-Type: application/x-www-form-urlencoded\r\n"
                "Content-Length: 100000\r\n\r\n").encode()  # fmt: skip
        for _ in range(self.count):
            connection = socket.create_connection(("127.0.0.1", self.port), timeout=10)
            if self.tls:
                connection = context.wrap_socket(connection, server_hostname="localhost")
            connection.sendall(head)
            self.sockets.append(connection)
        threading.Thread(target=self._drip, daemon=True).start()

    def _drip(self) -> None:
        while not self._stop.wait(1):
            for connection in self.sockets:
                with contextlib.suppress(OSError):
                    connection.sendall(b"a")
            self.drips += 1

    def wait_for_drips(self, drips: int) -> None:
        """Returns once every connection has its head sent and `drips` bytes of its body."""
        wait_for(lambda: self.drips >= drips, f"{drips} bytes of each slow body", drips + 10)

    def still_open(self) -> int:
        """How many connections nginx still holds, neither answered nor closed."""
        held = 0
        for connection in self.sockets:
            connection.setblocking(False)
            try:
                connection.recv(1)  # an answer, or the end: nginx is done with it
            except (ssl.SSLWantReadError, BlockingIOError):
                held += 1
            except OSError:
                pass
        return held

    def stop(self) -> None:
        self._stop.set()
        for connection in self.sockets:
            with contextlib.suppress(OSError):
                connection.close()


def quick_gets(url: str, session: requests.Session) -> list[tuple]:
    """Ten GETs of pages, one after another: each path, its status and its seconds."""
    timings = []
    for path in ("/healthz", "/accounts/sign-in/", "/p/", f"/p/{PASSPORT}", "/standards/") * 2:
        started = time.monotonic()
        try:
            status = session.get(f"{url}{path}", timeout=QUICK_SECONDS * 2).status_code
        except requests.RequestException as error:
            status = type(error).__name__
        timings.append((path, status, round(time.monotonic() - started, 2)))
    return timings


def test_slow_bodies_through_nginx_hold_up_no_other_request(deployment: Deployment):
    attack = SlowBodies(deployment.https_port, SLOW_CONNECTIONS)
    attack.start()
    try:
        attack.wait_for_drips(2)
        timings = quick_gets(deployment.url, deployment.session())
        held = attack.still_open()
    finally:
        attack.stop()
    assert held == SLOW_CONNECTIONS, "nginx gave up on the slow connections: not an attack"
    assert [status for _, status, _ in timings] == [200] * 10, timings
    assert max(seconds for _, _, seconds in timings) < QUICK_SECONDS, timings


def test_the_same_slow_bodies_sent_to_a_portal_process_itself_hold_it_up(deployment: Deployment):
    """What nginx is there for: without it, the same attack takes every thread of a portal
    process, and a GET waits. A process of one worker (PORTAL_WORKERS=1, its 4 threads), so
    that the kernel cannot hand the GET to a worker the attack missed."""
    port = free_port()
    alone = deployment.portal(3, port)
    alone.env = {**alone.env, "PORTAL_WORKERS": "1"}
    alone.start()
    try:
        deployment.wait_for_portal(alone, port)
        attack = SlowBodies(port, SLOW_CONNECTIONS, tls=False)
        attack.start()
        try:
            attack.wait_for_drips(2)
            with pytest.raises(requests.Timeout):
                deployment.session().get(f"http://127.0.0.1:{port}/healthz", timeout=QUICK_SECONDS,
                                         headers={"X-Forwarded-Proto": "https"})  # fmt: skip
        finally:
            attack.stop()
    finally:
        alone.stop()


# --- /readyz --------------------------------------------------------------------------------------


def names_down(deployment: Deployment, expected: set[str], seconds: float = 30) -> set[str]:
    """What /readyz names as down, once it names at least `expected`."""
    found: set[str] = set()

    def named() -> bool:
        found.clear()
        found.update(deployment.down())
        return expected <= found

    try:
        wait_for(named, f"/readyz to name {sorted(expected)} as down", seconds)
    except AssertionError as error:
        raise AssertionError(f"{error}; it named {sorted(found)}{logs(deployment)}") from None
    print("/readyz:", *deployment.ready())  # shown with -s, and with a failure
    return found


def test_readyz_answers_200_with_every_check_named(deployment: Deployment):
    deployment.wait_until_ready()
    status, checks = deployment.ready()
    assert status == 200
    assert set(checks) == {"database", "redis", "workers", "upstream"}


def test_the_scheduler_s_sweep_has_run_since_the_deployment_started(deployment: Deployment):
    """Beat, as the unit runs it, sent the sweep at its first start and a worker ran it."""
    deployment.wait_until_ready()

    answers = []

    def swept() -> bool:
        answers.append(deployment.session().get(f"{deployment.url}/readyz", timeout=10).json())
        return answers[-1]["sweep"]["ok"]

    try:
        wait_for(swept, "/readyz to say the sweep has run", 60)
    except AssertionError as error:
        raise AssertionError(f"{error}: {answers[-1]}{logs(deployment)}") from None


def test_readyz_names_the_service_when_it_is_stopped(deployment: Deployment):
    deployment.wait_until_ready()
    sandbox = deployment.sandbox
    assert sandbox is not None
    sandbox.stop()
    try:
        assert names_down(deployment, {"upstream"}) == {"upstream"}
    finally:
        deployment.sandbox = servers.start_sandbox(
            deployment.folder / "sandbox", port=sandbox.port, env=deployment.sandbox_env
        )
    deployment.wait_until_ready()


def test_readyz_names_the_workers_when_they_are_stopped(deployment: Deployment):
    deployment.wait_until_ready()
    for worker in deployment.workers:
        worker.stop()
    try:
        assert names_down(deployment, {"workers"}, HEARTBEAT_SECONDS + 30) == {"workers"}
    finally:
        for worker in deployment.workers:
            worker.start()
    deployment.wait_until_ready()


def test_readyz_names_redis_when_it_is_stopped(deployment: Deployment):
    deployment.wait_until_ready()
    deployment.redis.stop()
    try:
        # The workers' heartbeats are in Redis too: they cannot be read either.
        assert names_down(deployment, {"redis"}) <= {"redis", "workers"}
    finally:
        deployment.redis.start()
    deployment.wait_until_ready()


def test_readyz_names_the_database_when_it_is_out_of_reach(deployment: Deployment):
    deployment.wait_until_ready()
    deployment.forwarder.stop()  # the portal's way to PostgreSQL, cut
    try:
        assert names_down(deployment, {"database"}) == {"database"}
    finally:
        deployment.forwarder.start()
    deployment.wait_until_ready()


def test_it_is_all_still_working_after_all_that(deployment: Deployment):
    assert passed(deployment, deployment.smoke(username="lapsed", password="lapsed-demo-pass"))

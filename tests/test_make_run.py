"""`make run` as a new user meets it: everything starts, stays up, answers, and stops."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time

import pytest
import requests

from sandbox.ids import display_short_code
from scripts.run import load_intake_demo
from scripts.servers import free_port
from tests.conftest import ROOT
from tests.demo import DEMO_PASSPORT
from tests.portal.accounts.helpers import PASSWORDS


@pytest.mark.skipif(shutil.which("redis-server") is None, reason="no redis-server to start")
def test_make_run_starts_the_sandbox_the_portal_and_a_worker_that_stay_up(tmp_path, redis_server):
    """On a Redis of the test's own, so that /readyz's workers are this run's own."""
    portal_port, sandbox_port = free_port(), free_port()
    # As on a new machine: no secret key, DEBUG off, not under make (which sets
    # PORTAL_DEVELOPMENT, as does the test run); scripts.run allows the development key itself.
    unset = ("SECRET_KEY", "SECRET_KEY_FILE", "DEBUG", "PORTAL_DEVELOPMENT", "EMAIL_HOST")
    env = {
        **{name: value for name, value in os.environ.items() if name not in unset},
        "PORTAL_PORT": str(portal_port),
        "SANDBOX_PORT": str(sandbox_port),
        "SANDBOX_DATABASE_URL": f"sqlite:///{tmp_path / 'sandbox.sqlite3'}",
        "DATABASE_URL": os.environ.get("DATABASE_URL")
        or f"sqlite:///{tmp_path / 'portal.sqlite3'}",
        "PORTAL_PASSPORT_KEYS_DIR": str(tmp_path / "make-run-keys"),
        "REDIS_URL": redis_server.url,
    }
    run = subprocess.Popen(
        [sys.executable, "-m", "scripts.run"], cwd=ROOT, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        output = _Output(run)
        started = output.wait_for("Press Ctrl-C to stop.", seconds=90)
        assert f"Assurance portal:           http://127.0.0.1:{portal_port}/" in started
        assert "grower     grower-demo-pass" in started
        mail = f"http://127.0.0.1:{portal_port}/development/mail/"
        assert f"Mail the portal sent:       {mail}" in started
        webhooks = f"http://127.0.0.1:{portal_port}/development/webhooks/"
        assert f"Webhooks the portal sent:   {webhooks}" in started
        _ready(f"http://127.0.0.1:{portal_port}/readyz", run, output)  # the worker beats too
        assert run.poll() is None, output.text()
        sign_in = requests.get(f"http://127.0.0.1:{portal_port}/accounts/sign-in/", timeout=10)
        assert sign_in.status_code == 200
        assert requests.get(f"http://127.0.0.1:{sandbox_port}/", timeout=10).status_code == 200
        mailbox = requests.get(mail, timeout=10, allow_redirects=False)  # staff only
        assert mailbox.status_code == 302
        assert mailbox.headers["Location"].startswith("/accounts/sign-in/")
        received = requests.get(webhooks, timeout=10, allow_redirects=False)  # staff only
        assert received.headers["Location"].startswith("/accounts/sign-in/")
        too_long = f"http://127.0.0.1:{portal_port}/{'x' * 5000}"
        assert "That address is too long" in requests.get(too_long, timeout=10).text
        assert "intake demo" in started  # loaded now, or already by an earlier run
        intake = f"http://127.0.0.1:{portal_port}/passports/{display_short_code(DEMO_PASSPORT)}/"
        assert f"A load recorded at intake:  {intake}" in started
        page = _signed_in(f"http://127.0.0.1:{portal_port}", "grower").get(intake, timeout=10)
        assert "At intake" in page.text and "Stour Valley Grain, Sudbury" in page.text
        # Its QR code holds its signed address, made with the key make run made.
        assert "Passports' codes: Made key" in started
        signed = re.search(rf'href="(HTTP://127\.0\.0\.1:{portal_port}/V/[A-Z2-7]+)"', page.text)
        assert signed, page.text
        assert "Genuine: signed by the portal on" in requests.get(signed[1], timeout=10).text
        keys = requests.get(f"http://127.0.0.1:{portal_port}/.well-known/passport-keys.json",
                            timeout=10).json()["keys"]  # fmt: skip
        private_keys = (tmp_path / "make-run-keys").glob("*.pem")
        assert [key["kid"] for key in keys] == [private.stem for private in private_keys]
        _receiver_stopped_leaves_the_rest_up(started, output, run, portal_port)
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(timeout=30)


def _receiver_stopped_leaves_the_rest_up(
    started: str, output: _Output, run: subprocess.Popen, portal_port: int
) -> None:
    """A person stops the webhook receiver to see deliveries tried again: the rest goes on."""
    port = re.search(r"a receiver at http://127\.0\.0\.1:(\d+)/", started)[1]
    subprocess.run(["pkill", "-f", f"scripts.webhook_receiver --port {port} "], check=True)
    said = output.wait_for("The webhook receiver stopped", seconds=10)
    assert f"scripts.webhook_receiver --port {port} --folder" in said
    assert run.poll() is None, output.text()
    sign_in = requests.get(f"http://127.0.0.1:{portal_port}/accounts/sign-in/", timeout=10)
    assert sign_in.status_code == 200


def test_an_intake_demo_that_cannot_be_loaded_is_said_and_the_rest_goes_on(capsys):
    env = {**os.environ, "ASSURANCE_BASE_URL": "https://assurance.example.org"}
    assert load_intake_demo(env) is False
    said = capsys.readouterr().err
    assert said.startswith("The intake demo was not loaded: CommandError: The portal's")
    assert "is not on this machine" in said


def _signed_in(portal: str, username: str) -> requests.Session:
    """A session signed in as the demo account `username` with the sign-in form."""
    session = requests.Session()
    url = f"{portal}/accounts/sign-in/"
    token = re.search(
        r'name="csrfmiddlewaretoken" value="([^"]+)"', session.get(url, timeout=10).text
    )
    signed_in = session.post(
        url, data={"csrfmiddlewaretoken": token[1], "username": username,
                   "password": PASSWORDS[username]},
        headers={"Referer": url}, allow_redirects=False, timeout=20,
    )  # fmt: skip
    assert signed_in.status_code == 302, signed_in.text[:500]
    return session


BEAT_ERRORS = ("ERROR", "CRITICAL", "Traceback", "locking protocol", "disk I/O error")


@pytest.mark.slow
def test_every_start_of_make_run_sweeps_and_logs_no_error(tmp_path):
    """Started and stopped again and again on one database and Redis, as a developer does:
    each start's beat sends the sweep, a worker runs it (/readyz says when it finished), and
    nothing logs an error, stopping included."""
    portal_port, sandbox_port = free_port(), free_port()
    env = {
        **os.environ,
        "PORTAL_PORT": str(portal_port),
        "SANDBOX_PORT": str(sandbox_port),
        "SANDBOX_DATABASE_URL": f"sqlite:///{tmp_path / 'sandbox.sqlite3'}",
        "DATABASE_URL": f"sqlite:///{tmp_path / 'portal.sqlite3'}",
        "PORTAL_SWEEP_SECONDS": "3",
        "EMAIL_HOST": "127.0.0.1",  # no mail server of its own: not what this test is about
    }
    last_ran = None
    for start in range(1, 3):
        run = subprocess.Popen(
            [sys.executable, "-m", "scripts.run"], cwd=ROOT, env=env, text=True,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
        )  # fmt: skip
        output = _Output(run)
        try:
            output.wait_for("Press Ctrl-C to stop.", seconds=90)
            swept = _sweep_after(f"http://127.0.0.1:{portal_port}/readyz", last_ran)
            assert swept, f"start {start}: the sweep did not run\n{output.text()}"
            last_ran = swept
        finally:
            os.killpg(run.pid, signal.SIGTERM)
            run.wait(timeout=30)
        errors = [line for line in output.lines if any(word in line for word in BEAT_ERRORS)]
        assert not errors, f"start {start}:\n{output.text()}"


def _ready(readyz: str, run: subprocess.Popen, output: _Output, seconds: float = 60) -> None:
    """Returns once /readyz says every part is up (the worker has written its heartbeat);
    AssertionError if make run stops, or /readyz is still down after `seconds`."""
    deadline = time.monotonic() + seconds
    while requests.get(readyz, timeout=10).status_code != 200:
        if run.poll() is not None or time.monotonic() > deadline:
            said = requests.get(readyz, timeout=10).text if run.poll() is None else ""
            raise AssertionError(f"make run is not ready: {said}\n{output.text()}")
        time.sleep(0.2)


def _sweep_after(readyz: str, before: str | None, seconds: float = 60) -> str | None:
    """When the sweep last ran, as /readyz says, once that is later than `before`."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        last_ran = requests.get(readyz, timeout=10).json()["sweep"].get("last_ran")
        if last_ran and (before is None or last_ran > before):
            return last_ran
        time.sleep(0.5)
    return None


class _Output:
    """A process's output, read to its end by a thread of its own: a silent process cannot
    hold the test past its time, nor a chatty one fill the pipe."""

    def __init__(self, process: subprocess.Popen) -> None:
        self.lines: list[str] = []
        self._reader = threading.Thread(target=self._read, args=(process,), daemon=True)
        self._reader.start()

    def _read(self, process: subprocess.Popen) -> None:
        for line in process.stdout:
            self.lines.append(line)

    def wait_for(self, marker: str, seconds: float) -> str:
        """The output up to the first line with `marker`."""
        deadline = time.monotonic() + seconds
        while not any(marker in line for line in self.lines):
            if time.monotonic() > deadline or not self._reader.is_alive():
                raise AssertionError("make run did not start:\n" + self.text())
            time.sleep(0.1)
        return self.text()

    def text(self) -> str:
        return "".join(self.lines)

"""`make run` as a new user meets it: everything starts, stays up, answers, and stops."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import requests

from tests.conftest import ROOT, free_port


def test_make_run_starts_the_sandbox_the_portal_and_a_worker_that_stay_up(tmp_path):
    portal_port, sandbox_port = free_port(), free_port()
    env = {
        **os.environ,
        "PORTAL_PORT": str(portal_port),
        "SANDBOX_PORT": str(sandbox_port),
        "SANDBOX_DATABASE_URL": f"sqlite:///{tmp_path / 'sandbox.sqlite3'}",
        "DATABASE_URL": os.environ.get("DATABASE_URL")
        or f"sqlite:///{tmp_path / 'portal.sqlite3'}",
    }
    run = subprocess.Popen(
        [sys.executable, "-m", "scripts.run"], cwd=ROOT, env=env, text=True,
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
    )  # fmt: skip
    try:
        output = _read_until(run, "Press Ctrl-C to stop.", seconds=90)
        assert f"Assurance portal:           http://127.0.0.1:{portal_port}/" in output
        assert "grower     grower-demo-pass" in output
        time.sleep(5)  # a process that fails on start (the worker, say) has stopped by now
        assert run.poll() is None, output + (run.stdout.read() if run.stdout else "")
        sign_in = requests.get(f"http://127.0.0.1:{portal_port}/accounts/sign-in/", timeout=10)
        assert sign_in.status_code == 200
        assert requests.get(f"http://127.0.0.1:{sandbox_port}/", timeout=10).status_code == 200
    finally:
        os.killpg(run.pid, signal.SIGTERM)
        run.wait(timeout=30)


def _read_until(process: subprocess.Popen, marker: str, seconds: float) -> str:
    lines, deadline = [], time.monotonic() + seconds
    while time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line and process.poll() is not None:
            break
        lines.append(line)
        if marker in line:
            return "".join(lines)
    raise AssertionError("make run did not start:\n" + "".join(lines))

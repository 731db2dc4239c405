"""scripts/servers.py, which starts the sandbox and the portal for make run, the tests and the
benchmarks: a server that cannot start says why, and none outlives what started it."""

from __future__ import annotations

import socket
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from scripts import servers


def refuses_connections(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except OSError:
        return True
    return False


def test_a_sandbox_starts_on_a_free_port_and_stops(tmp_path: Path):
    server = servers.start_sandbox(tmp_path)
    try:
        response = requests.get(server.endpoint("/"), timeout=10)
        assert response.status_code == 200
        assert (tmp_path / "sandbox.sqlite3").is_file()
    finally:
        server.stop()
    assert server.process.returncode is not None
    assert refuses_connections(server.port)


def test_a_server_that_stops_on_start_says_why(tmp_path: Path):
    with pytest.raises(RuntimeError) as stopped:
        servers.start_sandbox(tmp_path, SANDBOX_LOCKOUT_FAILURES="many")
    message = str(stopped.value)
    assert "The sandbox stopped on start" in message
    assert "SANDBOX_LOCKOUT_FAILURES must be a whole number, not 'many'" in message


def test_a_portal_whose_database_cannot_be_made_says_so(tmp_path: Path):
    nowhere = tmp_path / "no-such-folder" / "portal.sqlite3"
    with pytest.raises(RuntimeError) as failed:
        servers.start_portal(tmp_path, DATABASE_URL=f"sqlite:///{nowhere}")
    assert "The portal's database could not be migrated" in str(failed.value)
    assert "unable to open database file" in str(failed.value)


@pytest.mark.skipif(sys.platform != "linux", reason="the parent's death signal is Linux's")
def test_a_server_stops_when_the_thread_that_started_it_ends(tmp_path: Path):
    started: list[servers.Server] = []
    starter = threading.Thread(target=lambda: started.append(servers.start_sandbox(tmp_path)))
    starter.start()
    starter.join()
    [server] = started
    try:
        server.process.wait(timeout=servers.STOP_SECONDS)
    finally:
        server.stop()
    deadline = time.monotonic() + 10
    while not refuses_connections(server.port) and time.monotonic() < deadline:
        time.sleep(0.2)  # gunicorn's workers follow their master out
    assert refuses_connections(server.port)

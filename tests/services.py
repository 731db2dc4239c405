"""Services for the tests: whether one they may use (PostgreSQL, Redis) answers at its
address, and a Redis of a test's own."""

from __future__ import annotations

import os
import socket
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from scripts.servers import LOOPBACK, stop, stop_with_parent

REDIS_PORT = 6379


def shared_redis_url() -> str:
    """The Redis the run shares with others (REDIS_URL, or the usual local one), for tests that
    use it under names of their own."""
    return os.environ.get("REDIS_URL") or f"redis://127.0.0.1:{REDIS_PORT}/0"


def answers(url: str, default_port: int) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or default_port), 2
        ):
            return True
    except OSError:
        return False


def wait_for(condition: Callable[[], object], what: str, seconds: float = 90) -> None:
    """Returns once `condition()` is true; AssertionError after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"Waited {seconds:g} s for {what}")
        time.sleep(0.05)


@dataclass
class PrivateRedis:
    """A Redis of a test's own on `port` (loopback), keeping nothing on disk; stopped with the
    process that started it."""

    port: int
    folder: Path
    process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"redis://{LOOPBACK}:{self.port}/0"

    def start(self, seconds: float = 20) -> None:
        self.process = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", LOOPBACK, "--save", "",
             "--appendonly", "no", "--dir", str(self.folder)],
            stdout=subprocess.DEVNULL, preexec_fn=stop_with_parent,
        )  # fmt: skip
        wait_for(lambda: answers(self.url, REDIS_PORT), "Redis to answer", seconds)

    def stop(self) -> None:
        """SIGTERM, then SIGKILL if it has not stopped in time."""
        if self.process is not None:
            stop(self.process)

    def kill(self) -> None:
        """SIGKILL, as a crash would end it."""
        if self.process is not None:
            self.process.kill()
            self.process.wait(10)

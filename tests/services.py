"""Whether a service the tests may use (PostgreSQL, Redis) answers at its address."""

from __future__ import annotations

import socket
from urllib.parse import urlsplit


def answers(url: str, default_port: int) -> bool:
    parts = urlsplit(url)
    try:
        with socket.create_connection(
            (parts.hostname or "127.0.0.1", parts.port or default_port), 2
        ):
            return True
    except OSError:
        return False

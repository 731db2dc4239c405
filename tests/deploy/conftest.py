"""The deployment tests start the portal as deploy/ describes it: run them alone with
`pytest -m deploy` (or `pytest tests/deploy`)."""

from __future__ import annotations

import pytest


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "deploy: starts the portal as deploy/ describes it (nginx, gunicorn, Celery, "
        "PostgreSQL, Redis) on this machine's loopback ports",
    )

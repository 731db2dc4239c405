"""What the job tests share: jobs of the tests' kind (registered by importing it) made for a
signed-in user (result files go to a folder of each test's own: tests/conftest.py's job_files)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from portal.accounts import credentials
from portal.jobs.models import Job
from tests.portal.accounts.helpers import sign_in
from tests.portal.jobs.kinds import KIND
from tests.portal.standards.helpers import CROPS


def new_job(signed_in: Client, pause: float = 0.0, **fields: object) -> Job:
    """A queued job of the tests' kind for the client's user, with the token of its session."""
    token = credentials.bearer(signed_in.session)
    assert token is not None
    values = {
        "kind": KIND,
        "owner_id": int(signed_in.session["_auth_user_id"]),
        "title": "References of the crops scheme",
        "params": {"scheme": CROPS, "pause": pause},
        "credential": credentials.encrypt(token.token),
        **fields,
    }
    return Job.objects.create(**values)


def files_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


@pytest.fixture
def stranger(upstream_sandbox, db) -> Client:
    """Another signed-in user: the demo account `lapsed`."""
    client = Client()
    assert sign_in(client, "lapsed").status_code == 302
    return client

"""What the job tests share: jobs of the tests' kind (registered by importing it) made for a
signed-in user (result files go to a folder of each test's own: tests/conftest.py's job_files)."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client, RequestFactory

from portal.accounts import credentials
from portal.jobs.actions import start_job
from portal.jobs.models import Job
from tests.portal.accounts.helpers import sign_in
from tests.portal.jobs.kinds import KIND, scheme_references
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


def start(grower: Client, pause: float) -> Job:
    """A job of the tests' kind started as a view starts one, with the grower's session."""
    request = RequestFactory().get("/")
    request.session = grower.session
    request.user = Job._meta.get_field("owner").related_model.objects.get(username="grower")
    return start_job(request, scheme_references, "References of the crops scheme",
                     {"scheme": CROPS, "pause": pause})  # fmt: skip


def state_of(job: Job) -> Job:
    return Job.objects.get(pk=job.pk)


def files_in(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.is_file())


@pytest.fixture
def stranger(upstream_sandbox, db) -> Client:
    """Another signed-in user: the demo account `lapsed`."""
    client = Client()
    assert sign_in(client, "lapsed").status_code == 302
    return client

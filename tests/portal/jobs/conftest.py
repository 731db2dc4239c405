"""What the job tests share: the tests' job kind registered, result files in a folder of the
test's own, and jobs made for a signed-in user."""

from __future__ import annotations

from pathlib import Path

import pytest
from django.test import Client

from portal.accounts import credentials
from portal.jobs.models import Job, result_storage
from portal.jobs.work import KINDS
from tests.portal.accounts.helpers import sign_in
from tests.portal.jobs.kinds import KIND, scheme_references
from tests.portal.standards.helpers import CROPS


@pytest.fixture(autouse=True)
def test_kind(monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setitem(KINDS, KIND, scheme_references)
    return KIND


@pytest.fixture(autouse=True)
def job_files(settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Result files of the test's own: STORAGES["jobs"] in a temporary folder (the file field
    took its storage when the model was made, so it is given the new one)."""
    folder = tmp_path / "job-files"
    settings.PORTAL_JOB_FILES_DIR = str(folder)
    settings.STORAGES = {
        **settings.STORAGES,
        "jobs": {
            "BACKEND": "django.core.files.storage.FileSystemStorage",
            "OPTIONS": {"location": str(folder)},
        },
    }
    monkeypatch.setattr(Job._meta.get_field("result"), "storage", result_storage())
    return folder


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

"""What `make run`'s receiver kept, for staff at /development/webhooks/: each event with its
headers and body, and whether an endpoint's secret verifies its signature; for staff only,
and nowhere unless the setting names the receiver's folder (development only)."""

from __future__ import annotations

import json
import time
from pathlib import Path

import pytest

from portal.outbox import signing
from scripts.webhook_receiver import keep
from tests.portal.accounts.helpers import signed_in_staff
from tests.portal.outbox.builders import an_endpoint

pytestmark = pytest.mark.django_db

BODY = b'{"type":"intake.load.recorded","timestamp":"2026-11-29T01:00:00Z","data":{}}'


@pytest.fixture
def kept_folder(settings, tmp_path: Path) -> Path:
    settings.PORTAL_DEVELOPMENT_WEBHOOKS = str(tmp_path)
    return tmp_path


def test_staff_see_what_arrived_and_whether_it_is_signed_by_an_endpoint(kept_folder, grower):
    endpoint, secret = an_endpoint("http://127.0.0.1:9/")
    keep(kept_folder, "/", signing.headers([secret], "msg_1", int(time.time()), BODY), BODY, 10)
    keep(kept_folder, "/", {"webhook-id": "msg_2", "webhook-signature": "v1,Zm9v",
                            "webhook-timestamp": "1"}, BODY, 10)  # fmt: skip
    page = signed_in_staff().get("/development/webhooks/").content.decode()
    assert "intake.load.recorded" in page and "msg_1" in page and "msg_2" in page
    assert f'Signature verified with the secret of <a href="/webhooks/{endpoint.pk}/">' in page
    assert "No endpoint's secret verifies its signature" in page
    assert len(list(kept_folder.glob("*.json"))) == 2
    json.loads(next(kept_folder.glob("*.json")).read_text())


def test_it_is_for_staff_only(kept_folder, grower):
    assert grower.get("/development/webhooks/").status_code == 403


def test_it_is_not_there_without_the_receiver(settings, upstream_sandbox):
    settings.PORTAL_DEVELOPMENT_WEBHOOKS = ""
    assert signed_in_staff().get("/development/webhooks/").status_code == 404

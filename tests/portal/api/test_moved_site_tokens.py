"""The sites' tokens made before the API are moved into the API's tokens (migration api.0002)
with their hashes: the software of a site goes on sending loads with the token it has, to the
door's first address and to the API's; a revoked one stays revoked."""

from __future__ import annotations

import hashlib
import json

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client

from portal.api.models import Token
from tests.portal.intake.builders import a_site, upload_row
from tests.portal.passports.made import made_here

BEFORE = [("intake", "0009_loads_know_when_they_changed"), ("api", None)]
KEPT, REVOKED = "intake_" + "K" * 43, "intake_" + "R" * 43


@pytest.mark.django_db(transaction=True)  # migrations run as `migrate` runs them
def test_a_site_s_token_of_before_the_api_keeps_working(grower):
    site = a_site()
    code = made_here()
    _site_tokens_made_before_the_api(site.pk)
    kept, revoked = Token.objects.get(name="Weighbridge"), Token.objects.get(name="Laboratory")
    assert (kept.site_id, kept.user) == (site.pk, None)
    assert kept.scopes == ["intake:read", "intake:write"]
    assert revoked.is_revoked and not kept.is_revoked
    for address, ticket, token, status in [
        ("/intake/api/loads", "T-1", KEPT, 201), ("/api/v1/intake/loads", "T-2", KEPT, 201),
        ("/intake/api/loads", "T-3", REVOKED, 401),
    ]:  # fmt: skip
        answer = Client().post(address, json.dumps(upload_row(code, ticket)),
                               content_type="application/json",
                               headers={"Authorization": f"Bearer {token}"})  # fmt: skip
        assert answer.status_code == status, answer.content


def _site_tokens_made_before_the_api(site_id: int) -> None:
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        before = executor.loader.project_state(BEFORE[:1]).apps
        tokens = before.get_model("intake", "SiteToken").objects
        tokens.create(site_id=site_id, name="Weighbridge", digest=_digest(KEPT))
        tokens.create(site_id=site_id, name="Laboratory", digest=_digest(REVOKED),
                      revoked="2026-11-01T10:00:00Z")  # fmt: skip
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()

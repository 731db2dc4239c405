"""API tokens in the admin, as staff (made by `grant_staff`) use them: a site's token made is
shown once, in the page's message and nowhere else (no cookie, no session, only its hash in the
database); revoked with the action, it opens nothing more; each in the audit trail."""

from __future__ import annotations

import re

import pytest
from django.contrib.sessions.models import Session

from portal.api import tokens
from portal.api.models import Token
from portal.audit.models import Event
from tests.portal.api.builders import site_token
from tests.portal.intake.builders import a_site

pytestmark = pytest.mark.django_db
TOKEN = re.compile(r"cpp_[0-9A-Za-z]{36}")


def test_staff_make_a_site_s_token_shown_once_and_kept_as_its_hash(staff):
    site = a_site()
    assert staff.get("/admin/api/token/add/").status_code == 200
    made = staff.post(
        "/admin/api/token/add/",
        {"site": site.pk, "name": "Weighbridge", "scopes": ["intake:write"], "days": 365},
    )
    assert made.status_code == 200
    page = made.content.decode()
    [token] = set(TOKEN.findall(page))
    assert f"The token Weighbridge: {token}" in page
    assert "it is shown this once" in page
    kept = Token.objects.get()
    assert kept.digest == tokens.digest(token) and tokens.find(f"Bearer {token}") == kept
    assert kept.site == site and kept.scopes == ["intake:write"] and kept.made_by == "partner"
    assert token not in str(made.cookies)
    assert all(token not in str(s.get_decoded()) for s in Session.objects.all())
    listing = staff.get("/admin/api/token/").content.decode()
    assert "Weighbridge" in listing and token not in listing
    assert token not in staff.get(f"/admin/api/token/{kept.pk}/change/").content.decode()
    event = Event.objects.get(kind="api-token-made")
    assert event.username == "partner" and event.detail["site"] == site.code


def test_a_site_s_token_may_only_read_and_record_loads(staff):
    site = a_site()
    refused = staff.post(
        "/admin/api/token/add/",
        {"site": site.pk, "name": "Weighbridge", "scopes": ["passports:write"], "days": 90},
    )
    assert "A site&#x27;s token may only read and record loads." in refused.content.decode()
    assert not Token.objects.exists()


def test_staff_revoke_tokens_with_the_action(staff):
    token = site_token(a_site(), name="Laboratory")
    kept = Token.objects.get()
    response = staff.post("/admin/api/token/", {
        "action": "revoke", "_selected_action": [kept.pk],
    }, follow=True)  # fmt: skip
    assert "1 token(s) revoked" in response.content.decode()
    kept.refresh_from_db()
    assert kept.is_revoked
    with pytest.raises(tokens.Refused):
        tokens.find(f"Bearer {token}")
    assert Event.objects.get(kind="api-token-revoked").username == "partner"


def test_a_token_is_never_removed(staff):
    site_token(a_site(), name="Laboratory")
    assert staff.get(f"/admin/api/token/{Token.objects.get().pk}/delete/").status_code == 403

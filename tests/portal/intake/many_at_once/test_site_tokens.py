"""Sites' tokens in the admin, as staff (made by `grant_staff`) use them: a token made is shown
once, in the page's message and nowhere else (no cookie, no session, only its hash in the
database); revoked with the action, it opens the door no more; each in the audit trail."""

from __future__ import annotations

import re

import pytest
from django.contrib.sessions.models import Session

from portal.audit.models import Event
from portal.intake import door
from portal.intake.models import SiteToken
from tests.portal.intake.builders import a_site

pytestmark = pytest.mark.django_db
TOKEN = re.compile(r"intake_[A-Za-z0-9_-]{43}")


def test_staff_make_a_token_shown_once_and_kept_as_its_hash(staff):
    site = a_site()
    assert staff.get("/admin/intake/sitetoken/add/").status_code == 200
    made = staff.post("/admin/intake/sitetoken/add/", {"site": site.pk, "name": "Weighbridge"})
    assert made.status_code == 200
    page = made.content.decode()
    [token] = TOKEN.findall(page)
    assert f"The token of Stour Valley Grain, Sudbury: Weighbridge: {token}" in page
    assert "shown\n    this once" in page
    kept = SiteToken.objects.get()
    assert kept.digest == door.digest(token) and door.token_of(f"Bearer {token}") == kept
    assert token not in str(made.cookies)
    assert all(token not in str(s.get_decoded()) for s in Session.objects.all())
    listing = staff.get("/admin/intake/sitetoken/").content.decode()
    assert "Weighbridge" in listing and token not in listing
    assert token not in staff.get(f"/admin/intake/sitetoken/{kept.pk}/change/").content.decode()
    event = Event.objects.get(kind="intake-token-made")
    assert event.username == "partner" and event.detail["site"] == site.code


def test_staff_revoke_tokens_with_the_action(staff):
    kept, token = door.make_token(a_site(), "Laboratory")
    response = staff.post("/admin/intake/sitetoken/", {
        "action": "revoke", "_selected_action": [kept.pk],
    }, follow=True)  # fmt: skip
    assert "1 token(s) revoked" in response.content.decode()
    kept.refresh_from_db()
    assert kept.is_revoked and door.token_of(f"Bearer {token}") is None
    assert Event.objects.get(kind="intake-token-revoked").username == "partner"


def test_a_token_is_never_removed(staff):
    kept, _ = door.make_token(a_site(), "Laboratory")
    assert staff.get(f"/admin/intake/sitetoken/{kept.pk}/delete/").status_code == 403

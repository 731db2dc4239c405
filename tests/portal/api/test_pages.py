"""The pages of API tokens: Your account → API tokens, where a user makes, sees and revokes their
own; a site's page of tokens, its clerks'. A token shown once, on the page answering the form;
anyone else's tokens, and the page of a site one is not a clerk of, are not found."""

from __future__ import annotations

import pytest
from django.test import Client

from portal.api.models import Token
from tests.portal.accounts.helpers import signed_in
from tests.portal.api.builders import made_on_the_page
from tests.portal.intake.builders import a_clerk, a_site

pytestmark = pytest.mark.django_db


def test_your_account_links_to_your_tokens(grower):
    page = grower.get("/accounts/you/").content.decode()
    assert 'href="/accounts/you/tokens/"' in page


def test_a_user_makes_a_token_shown_once(grower):
    token = made_on_the_page(grower, name="Farm records", scopes=["passports:read"], days=30)
    listing = grower.get("/accounts/you/tokens/")
    page = listing.content.decode()
    assert listing.status_code == 200
    assert "Farm records" in page and "passports:read" in page and "Never" in page
    assert token not in page
    kept = Token.objects.get()
    assert (kept.user.username, kept.site, kept.scopes) == ("grower", None, ["passports:read"])
    assert kept.made_by == "grower"


@pytest.mark.parametrize(
    ("sent", "field", "message"),
    [
        ({"scopes": ["intake:read"], "days": 90}, "name", "Name the token: what it is for."),
        ({"name": "x", "days": 90}, "scopes", "Choose at least one thing it may do."),
        ({"name": "x", "scopes": ["everything"], "days": 90}, "scopes", "Select a valid choice"),
        ({"name": "x", "scopes": ["intake:read"], "days": 400}, "days", "Select a valid choice"),
        ({"name": "a\x1bb", "scopes": ["intake:read"], "days": 90}, "name", "printable"),
    ],
)
def test_a_bad_form_says_why_and_makes_nothing(grower, sent, field, message):
    response = grower.post("/accounts/you/tokens/", sent)
    assert response.status_code == 400
    assert message in " ".join(response.context["form"].errors[field])
    assert not Token.objects.exists()


def test_another_s_token_is_not_found(grower, partner):
    made_on_the_page(partner, name="Partner's planner")
    theirs = Token.objects.get()
    assert grower.post(f"/accounts/you/tokens/{theirs.pk}/revoke").status_code == 404
    theirs.refresh_from_db()
    assert not theirs.is_revoked
    assert "planner" not in grower.get("/accounts/you/tokens/").content.decode()


def test_a_clerk_makes_and_revokes_the_site_s_tokens(upstream_sandbox):
    site = a_clerk("intake", a_site())
    clerk = signed_in("intake")
    assert f'href="/intake/sites/{site.code}/tokens/"' in clerk.get(
        f"/intake/sites/{site.code}/").content.decode()  # fmt: skip
    made_on_the_page(clerk, f"/intake/sites/{site.code}/tokens/", name="Weighbridge",
                     scopes=["intake:write"])  # fmt: skip
    kept = Token.objects.get()
    assert (kept.site, kept.user, kept.made_by) == (site, None, "intake")
    revoked = clerk.post(f"/intake/sites/{site.code}/tokens/{kept.pk}/revoke")
    assert revoked.status_code == 303
    kept.refresh_from_db()
    assert kept.is_revoked


def test_a_site_s_token_may_only_read_and_record_loads(upstream_sandbox):
    site = a_clerk("intake", a_site())
    clerk = signed_in("intake")
    response = clerk.post(f"/intake/sites/{site.code}/tokens/",
                          {"name": "x", "scopes": ["passports:write"], "days": 90})  # fmt: skip
    assert response.status_code == 400 and not Token.objects.exists()


def test_only_the_site_s_clerks_reach_its_tokens(upstream_sandbox, grower):
    site = a_clerk("intake", a_site())
    other = a_clerk("haulier", a_site(name="Orwell Mills", code="orwell"))
    made_on_the_page(signed_in("intake"), f"/intake/sites/{site.code}/tokens/",
                     scopes=["intake:write"])  # fmt: skip
    kept = Token.objects.get()
    for stranger in (signed_in("haulier"), grower):
        assert stranger.get(f"/intake/sites/{site.code}/tokens/").status_code == 404
        revoke = f"/intake/sites/{site.code}/tokens/{kept.pk}/revoke"
        assert stranger.post(revoke).status_code == 404
        elsewhere = f"/intake/sites/{other.code}/tokens/{kept.pk}/revoke"
        assert stranger.post(elsewhere).status_code == 404
    kept.refresh_from_db()
    assert not kept.is_revoked


def test_the_pages_need_a_sign_in():
    response = Client().get("/accounts/you/tokens/")
    assert response.status_code == 302 and "/accounts/sign-in/" in response["Location"]

"""Who reaches what of the intake routes, cell by cell: a token of the load's site, of another
site; the token of a clerk of the site, of a clerk of another site; of the grower whose passport
the load came with; of staff; no token. Each action is tried with a token holding every scope
(what it reaches is its owner's), and again with every scope but the one the route needs (403);
a refusal changes nothing."""

from __future__ import annotations

import json

import pytest
from django.test import Client

from portal.intake.models import Load, LoadEntry
from tests.portal.accounts.helpers import signed_in, signed_in_staff
from tests.portal.api.builders import EVERY_SCOPE, SITE_SCOPES, bearer, made_on_the_page
from tests.portal.api.builders import site_token as a_site_token
from tests.portal.intake.builders import a_clerk, a_load, a_site, queried, upload_row

pytestmark = pytest.mark.django_db

ACTORS = ("site", "other_site", "clerk", "other_clerk", "grower", "staff", "nobody")
ACTIONS = ("list", "see", "record", "answer", "correct")  # a correction closes the query
NEEDS = {"list": "intake:read", "see": "intake:read", "record": "intake:write",
         "correct": "intake:write", "answer": "intake:write"}  # fmt: skip

# Y: done; n: refused (404 for what is another's, none of it listed; 401 without a token),
# nothing changed.
MAY = {
    #              list see record answer correct
    "site":        "Y    Y   Y      Y       Y",
    "other_site":  "n    n   n      n       n",
    "clerk":       "Y    Y   Y      Y       Y",
    "other_clerk": "n    n   n      n       n",
    "grower":      "n    n   n      n       n",
    "staff":       "n    n   n      n       n",
    "nobody":      "n    n   n      n       n",
}  # fmt: skip


@pytest.fixture
def world(upstream_sandbox, grower):
    site = a_clerk("intake", a_site())
    other = a_clerk("haulier", a_site(name="Orwell Mills", code="orwell"))
    load = a_load(site, "T-1")
    queried(load)
    return {"site": site, "other": other, "load": load}


def token_of(who: str, world: dict, scopes: tuple[str, ...], grower) -> str | None:
    site_scopes = [scope for scope in scopes if scope in SITE_SCOPES]
    makers = {
        "site": lambda: a_site_token(world["site"], scopes=site_scopes),
        "other_site": lambda: a_site_token(world["other"], scopes=site_scopes),
        "clerk": lambda: made_on_the_page(signed_in("intake"), scopes=scopes),
        "other_clerk": lambda: made_on_the_page(signed_in("haulier"), scopes=scopes),
        "grower": lambda: made_on_the_page(grower, scopes=scopes),
        "staff": lambda: made_on_the_page(signed_in_staff("partner"), scopes=scopes),
        "nobody": lambda: None,
    }
    return makers[who]()


def tried(action: str, token: str | None, load: Load) -> tuple[bool, int]:
    """Whether the action was done (it changed something, or showed the load), and its status."""
    client, headers = Client(), bearer(token) if token else {}
    code = load.passport.short_code
    before = (Load.objects.count(), LoadEntry.objects.count())
    address = "/api/v1/intake/loads"
    answers = {
        "list": lambda: client.get(address, headers=headers),
        "see": lambda: client.get(f"{address}/{load.pk}", headers=headers),
        "record": lambda: client.post(f"{address}?site={load.site.code}",
                                      json.dumps(upload_row(code, "T-2")),
                                      content_type="application/json", headers=headers),
        "correct": lambda: client.post(f"{address}/{load.pk}/corrections",
                                       json.dumps(upload_row(code, tare_kg="14020",
                                                             correction_reason="Wrong lorry")),
                                       content_type="application/json", headers=headers),
        "answer": lambda: client.post(f"{address}/{load.pk}/answers",
                                      json.dumps({"words": "It stands.", "stand_by": True}),
                                      content_type="application/json", headers=headers),
    }  # fmt: skip
    response = answers[action]()
    changed = (Load.objects.count(), LoadEntry.objects.count()) != before
    shown = response.status_code == 200 and "T-1" in response.content.decode()
    return changed or shown, response.status_code


@pytest.mark.parametrize("who", ACTORS)
def test_who_reaches_what(who, world, grower):
    token = token_of(who, world, EVERY_SCOPE, grower)
    may = dict(zip(ACTIONS, (cell == "Y" for cell in MAY[who].split()), strict=True))
    for action in ACTIONS:
        done, status = tried(action, token, world["load"])
        assert done == may[action], (action, status)
        if not done:  # a list shows none of another's loads; anything else of theirs is 404
            expected = 401 if token is None else 200 if action == "list" else 404
            assert status == expected, (action, status)


@pytest.mark.parametrize("action", ACTIONS)
def test_a_token_without_the_scope_a_route_needs_is_403(action, world, grower):
    for who in ("site", "clerk"):
        scopes = tuple(scope for scope in EVERY_SCOPE if scope != NEEDS[action])
        done, status = tried(action, token_of(who, world, scopes, grower), world["load"])
        assert (done, status) == (False, 403), (who, action)

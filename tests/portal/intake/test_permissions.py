"""Who may do what with a load's result at intake, cell by cell: the clerk of its site, a clerk
of another site, the grower of the passport's business, a grower of another business, staff,
and anyone not signed in; recording, seeing, correcting, querying, uploading, and the sites'
JSON door. Each is tried through the pages (and the door) as that person would try it, with
what the allowed person's pages hand out (the signed record form, a load's number); a refusal
must change nothing.

The passport is of wheat, of the grower's Wenham Grange membership, of which `partner` (a contact of
the grower's other business only) is not a contact."""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from io import StringIO

import msgspec
import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.test import Client

from portal.intake.models import IntakeSite, Load, LoadEntry
from portal.jobs.models import Job
from portal.passports.models import Passport
from tests.demo import WENHAM, WENHAM_SITE
from tests.portal.accounts.helpers import signed_in
from tests.portal.api.builders import site_token
from tests.portal.intake.builders import a_clerk, a_load, a_site, tickets_file, upload_row
from tests.portal.passports.made import SOME_OF_THE_LOAD, made_here

pytestmark = pytest.mark.django_db

ACTORS = ("clerk", "other_clerk", "grower", "other_grower", "staff", "anyone")
ACTIONS = ("record", "see", "correct", "query", "upload", "door")

# Y: done; n: refused, and nothing changed.
MAY = {
    #               record see correct query upload door
    "clerk":        "Y      Y   Y       n     Y      n",
    "other_clerk":  "n      n   n       n     n      n",
    "grower":       "n      Y   n       Y     n      n",
    "other_grower": "n      n   n       n     n      n",
    "staff":        "n      Y   n       n     n      n",  # in the admin, to read only
    "anyone":       "n      n   n       n     n      n",
}  # fmt: skip


@pytest.fixture
def site(upstream_sandbox) -> IntakeSite:
    return a_site()


@pytest.fixture
def world(site, grower) -> dict[str, Client]:
    """Each actor's browser, signed in as they would be."""
    a_clerk("intake", site)
    a_clerk("haulier", a_site(name="Orwell Mills, Ipswich", buyer_business="Orwell Mills",
                              code="orwell"))  # fmt: skip
    call_command("grant_staff", "lapsed", stdout=StringIO())
    return {"clerk": signed_in("intake"), "other_clerk": signed_in("haulier"), "grower": grower,
            "other_grower": signed_in("partner"), "staff": signed_in("lapsed"),
            "anyone": Client()}  # fmt: skip


def wenhams_wheat() -> Passport:
    """A wheat passport the grower made of their Wenham Grange membership."""
    request = msgspec.structs.replace(
        SOME_OF_THE_LOAD, membership_guid=WENHAM, site_guid=WENHAM_SITE, store_guid=None
    )
    return Passport.objects.get(short_code=made_here(request))


def typed(ticket: str, **changed: str) -> dict[str, str]:
    """A wheat load as the clerk types it in the record form."""
    row = upload_row("", ticket, **changed)
    return {key: value for key, value in row.items() if key != "short_code" and value != ""}


def signed_passport(clerk: Client, site: IntakeSite, code: str) -> str:
    """What the record form of the site's clerk sends back for the passport: its verdict, signed."""
    page = clerk.get(f"/intake/sites/{site.code}/record", {"code": code})
    assert page.status_code == 200
    return re.search(r'name="passport" value="([^"]+)"', page.content.decode())[1]


def tried(actor: Client, action: str, *, site: IntakeSite, load: Load, signed: str) -> bool:
    """Whether `actor` did `action`, by what changed or what their pages show."""
    code = load.passport.short_code
    before = (Load.objects.count(), LoadEntry.objects.count(), Job.objects.count())
    attempts: dict[str, Callable[[], object]] = {
        "record": lambda: actor.post(f"/intake/sites/{site.code}/record",
                                     typed("T-2") | {"passport": signed}),
        "see": lambda: None,
        "correct": lambda: actor.post(f"/intake/loads/{load.pk}/correct",
                                      typed("T-1001", tare_kg="14020") | {"reason": "Wrong lorry"}),
        "query": lambda: actor.post(f"/intake/loads/{load.pk}/query",
                                    {"words": "Our sample weighed 77 kg/hl."}),
        "upload": lambda: _upload(actor, site, code),
        "door": lambda: actor.post("/intake/api/loads",
                                   json.dumps(upload_row(code, "T-3")),
                                   content_type="application/json"),
    }  # fmt: skip
    if action == "see":
        return _sees(actor, load)
    answer = attempts[action]()
    after = (Load.objects.count(), LoadEntry.objects.count(), Job.objects.count())
    if after == before:
        assert getattr(answer, "status_code", 0) in (302, 400, 401, 403, 404), answer
    return after != before


def _upload(actor: Client, site: IntakeSite, code: str):
    form = actor.get(f"/intake/sites/{site.code}/upload")
    key = form.context["form"]["key"].value() if form.status_code == 200 else "a-guess"
    upload = SimpleUploadedFile("tickets.csv", tickets_file([upload_row(code, "T-4")]))
    return actor.post(f"/intake/sites/{site.code}/upload", {"key": key, "file": upload})


def _sees(actor: Client, load: Load) -> bool:
    """Whether any page the actor may open shows the load's ticket: the clerk's load page, the
    passport's page ("At intake"), the admin's loads."""
    pages = (f"/intake/loads/{load.pk}/", f"/passports/{load.passport.short_code}/",
             "/admin/intake/load/")  # fmt: skip
    shown = [actor.get(page) for page in pages]
    return any(page.status_code == 200 and "T-1001" in page.content.decode() for page in shown)


@pytest.mark.parametrize("who", ACTORS)
def test_who_may_do_what(who, world, site):
    passport = wenhams_wheat()
    load = a_load(site, passport=passport)
    signed = signed_passport(world["clerk"], site, passport.short_code)
    may = dict(zip(ACTIONS, (cell == "Y" for cell in MAY[who].split()), strict=True))
    did = {action: tried(world[who], action, site=site, load=load, signed=signed)
           for action in ACTIONS}  # fmt: skip
    assert did == may


def test_the_door_opens_to_a_token_of_the_site_only(world, site):
    passport = wenhams_wheat()
    other = IntakeSite.objects.get(code="orwell")
    record = json.dumps(upload_row(passport.short_code, "T-9"))

    def sent(token: str):
        return Client().post("/intake/api/loads", record, content_type="application/json",
                             headers={"Authorization": f"Bearer {token}"})  # fmt: skip

    assert sent(site_token(site)).status_code == 201
    assert Load.objects.get(ticket="T-9").site == site
    assert sent(site_token(other)).status_code == 201
    assert Load.objects.get(ticket="T-9", site=other)  # its own ticket, at its own site

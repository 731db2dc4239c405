"""`manage.py load_intake_demo`, as `make run` calls it once the sandbox answers: the demo intake
site with its specification and its clerk, the sandbox's demo passport added to the portal's
records and one load of it recorded with a claim, which the grower sees at once on its page;
loaded again, nothing twice; never against a service that is not on this machine."""

from __future__ import annotations

from io import StringIO

import pytest
from django.contrib.auth import get_user_model
from django.core.management import CommandError, call_command

from portal.intake.management.commands.load_intake_demo import on_this_machine
from portal.intake.models import IntakeSite, Load, LoadEntry, Specification
from portal.passports import codes
from portal.passports.models import Passport
from tests.demo import DEMO_PASSPORT, HOLLOWFIELD
from tests.portal.accounts.helpers import signed_in, upstream_calls
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db
SHOWN = codes.normalise(DEMO_PASSPORT)  # as the portal keeps and shows it: 7KXM4-QHT2W


def loaded(*options: str, code: str = DEMO_PASSPORT) -> str:
    out = StringIO()
    call_command("load_intake_demo", code, "--added-by", "grower", "--clerk", "intake", *options,
                 stdout=out)  # fmt: skip
    return out.getvalue().strip()


def made() -> tuple[int, ...]:
    return (IntakeSite.objects.count(), Specification.objects.count(), Load.objects.count(),
            LoadEntry.objects.count(), Passport.objects.count(),
            get_user_model().objects.count())  # fmt: skip


def test_the_site_its_clerk_and_a_load_of_the_demo_passport_are_loaded(upstream_sandbox):
    said = loaded()
    assert said.startswith("Loaded the intake demo: intake site Stour Valley Grain, Sudbury")
    site = IntakeSite.objects.get()
    assert (site.name, site.buyer_business) == (
        "Stour Valley Grain, Sudbury",
        "Stour Valley Grain Ltd",
    )
    assert [user.get_username() for user in site.clerks.all()] == ["intake"]
    wheat = {s.parameter: (s.lowest, s.highest) for s in site.specifications.filter(crop="wheat")}
    assert set(wheat) == {"specific_weight", "moisture", "protein", "hagberg", "admixture"}
    assert site.specifications.filter(crop="barley").exists()
    passport = Passport.objects.get(short_code=SHOWN)
    assert (passport.origin, passport.made_by.get_username()) == ("added", "grower")
    assert passport.membership_guid == HOLLOWFIELD
    load = Load.objects.get()
    assert (load.site, load.passport, load.decision, load.net_kg) == (
        site,
        passport,
        "claim",
        29_100,
    )
    entry = load.entries.get()
    assert (entry.kind, entry.by) == ("recorded", "intake")
    assert (entry.verdict["valid"], entry.verdict["status"]) == (True, "Valid")


def test_the_grower_sees_the_load_and_its_claim_at_once_on_the_passports_page(upstream_sandbox):
    loaded()
    page = text(signed_in("grower").get(f"/passports/{SHOWN}/"))
    assert "Added by grower" in page
    assert "At intake Stour Valley Grain, Sudbury, ticket SV-0417" in page
    assert "Accepted with a claim : Specific weight below specification" in page
    assert "Specific weight 74.5 kg/hl 76 kg/hl or more ✗ Out of specification" in page
    assert "Moisture 14.2 % at most 15 % ✓ In" in page
    assert "Specific weight £2.50 a tonne 29.100 t £72.75" in page
    assert "Recorded by intake on" in page


def test_the_clerk_made_before_signing_in_signs_in_as_the_same_user(upstream_sandbox):
    loaded()
    clerk = get_user_model().objects.get(username="intake")
    signed_in("intake")
    assert get_user_model().objects.get(username="intake") == clerk
    assert list(clerk.intake_sites.values_list("code", flat=True)) == ["stour-valley-sudbury"]


def test_loaded_again_it_makes_nothing_twice(upstream_sandbox):
    loaded()
    before = made()
    assert loaded() == "The intake demo is already loaded."
    assert made() == before


def test_what_staff_changed_is_left_as_they_left_it(upstream_sandbox):
    loaded()
    site = IntakeSite.objects.get()
    site.clerks.clear()
    site.specifications.filter(crop="peas").delete()
    assert loaded() == "The intake demo is already loaded."
    assert not site.clerks.exists()
    assert not site.specifications.filter(crop="peas").exists()


def test_a_passport_the_grower_added_already_is_the_one_the_load_is_of(upstream_sandbox):
    grower = signed_in("grower")
    assert grower.post("/passports/add", {"code": DEMO_PASSPORT}).status_code == 302
    added = Passport.objects.get(short_code=SHOWN)
    loaded()
    assert Load.objects.get().passport == added
    assert Passport.objects.filter(short_code=SHOWN).count() == 1


@pytest.mark.parametrize(
    "address", ["https://assurance.example.org", "http://10.0.0.5:8001", "http://sandbox:8001"]
)
def test_it_refuses_a_service_that_is_not_on_this_machine_and_asks_it_nothing(
    upstream_sandbox, settings, address
):
    settings.ASSURANCE_BASE_URL = address
    with upstream_calls() as calls, pytest.raises(CommandError, match="not on this machine"):
        loaded()
    assert calls == []
    assert made() == (0, 0, 0, 0, 0, 0)


@pytest.mark.parametrize(
    ("address", "local"),
    [("http://127.0.0.1:8001", True), ("http://localhost:8101/", True),
     ("http://[::1]:8001", True), ("http://127.0.0.2:8001", True),
     ("https://assurance.example.org", False), ("http://192.168.1.20:8001", False),
     ("http://127.0.0.1.example.org", False), ("", False)],
)  # fmt: skip
def test_on_this_machine_is_a_loopback_address_or_localhost(address, local):
    assert on_this_machine(address) is local


def test_a_code_no_passport_has_is_said_and_nothing_is_made(upstream_sandbox):
    with pytest.raises(CommandError, match="The service has no passport 23456-78923"):
        loaded(code="23456-78923")
    assert made() == (0, 0, 0, 0, 0, 0)


def test_what_cannot_be_a_code_is_said(upstream_sandbox):
    with pytest.raises(CommandError, match="cannot be a passport's short code"):
        loaded(code="not a code")

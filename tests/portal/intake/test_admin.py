"""Intake sites in the admin, as staff (made by `grant_staff`, not superusers) use it: a site
made with its clerk and a specification; the loads recorded listed, to read only."""

from __future__ import annotations

import re
from html import unescape

import pytest

from portal.audit.models import Event
from portal.intake.models import IntakeSite
from tests.portal.intake.builders import a_load, a_site
from tests.portal.passports.helpers import text

pytestmark = pytest.mark.django_db


def test_staff_make_a_site_with_its_clerk_and_a_specification_its_loads_are_judged_against(
    staff, grower
):
    clerk = grower.session["_auth_user_id"]
    form = {
        "name": "Stour Valley Grain, Sudbury", "buyer_business": "Stour Valley Grain Ltd",
        "code": "stour-valley-sudbury", "clerks": [clerk],
        "specifications-TOTAL_FORMS": "1", "specifications-INITIAL_FORMS": "0",
        "specifications-0-crop": "wheat", "specifications-0-parameter": "specific_weight",
        "specifications-0-lowest": "76", "specifications-0-highest": "",
    }  # fmt: skip
    adding = staff.get("/admin/intake/intakesite/add/")
    assert "loads recorded or corrected from now on are judged against them" in text(adding)
    assert staff.post("/admin/intake/intakesite/add/", form).status_code == 302
    site = IntakeSite.objects.get()
    assert [u.username for u in site.clerks.all()] == ["grower"]
    load = a_load(site)  # 72.5 kg/hl
    page = text(grower.get(f"/passports/{load.passport.short_code}/"))
    assert "Specific weight 72.5 kg/hl 76 kg/hl or more ✗ Out of specification" in page
    [granted] = Event.objects.filter(kind=Event.Kind.INTAKE_CLERKS)
    assert (granted.username, granted.detail) == (
        "partner",
        {"of": "grower", "site": "stour-valley-sudbury", "change": "added"},
    )


@pytest.mark.parametrize(
    ("parameter", "words"),
    [("Screenings %", "Select a valid choice. Screenings % is not one of the available choices."),
     ("oil", "This parameter is not measured for wheat: choose one of Moisture, Specific weight, "
             "Protein, Hagberg falling number, Admixture, Screenings.")],
)  # fmt: skip
def test_a_specification_is_of_one_of_its_crops_parameters_or_refused(staff, parameter, words):
    adding = staff.get("/admin/intake/intakesite/add/").content.decode()
    offered = re.search(r'<select name="specifications-0-parameter".*?</select>', adding, re.S)
    assert '<optgroup label="Wheat">' in offered[0]
    assert '<option value="screenings">Screenings</option>' in offered[0]
    form = {
        "name": "Stour Valley Grain, Sudbury", "buyer_business": "Stour Valley Grain Ltd",
        "code": "stour-valley-sudbury",
        "specifications-TOTAL_FORMS": "1", "specifications-INITIAL_FORMS": "0",
        "specifications-0-crop": "wheat", "specifications-0-parameter": parameter,
        "specifications-0-lowest": "", "specifications-0-highest": "2",
    }  # fmt: skip
    refused = staff.post("/admin/intake/intakesite/add/", form)
    assert refused.status_code == 200
    assert words in unescape(refused.content.decode())
    assert not IntakeSite.objects.exists()


def test_staff_read_the_loads_and_change_none(staff, grower):
    load = a_load(a_site())
    assert "T-1001" in text(staff.get("/admin/intake/load/"))
    page = staff.get(f"/admin/intake/load/{load.pk}/change/")
    words = text(page)
    assert "Recorded" in words and "intake" in words
    assert 'name="_save"' not in page.content.decode()
    assert staff.post(f"/admin/intake/load/{load.pk}/delete/", {"post": "yes"}).status_code == 403

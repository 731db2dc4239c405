"""Every date field of the portal, given the first and the last day a date field takes
(0001-01-01, 9999-12-31) and a date that is none: each is answered without a server error, and
a form that refuses one says why beside the field. The passports list's filters and its export
of all that match, the create form's dates (a batch's too: the same form), and the admin's
lists by date; no other page takes a date."""

from __future__ import annotations

import re
from html import unescape

import pytest

from portal.jobs.models import Job
from portal.passports.models import Passport
from portal.passports.tasks import passport_export
from tests.portal.passports.made import filled, made_with_the_form

pytestmark = pytest.mark.django_db

FIRST_DAY, LAST_DAY, NO_DAY = "0001-01-01", "9999-12-31", "2026-02-30"
EVERY_DAY = [FIRST_DAY, LAST_DAY, NO_DAY]
LIST_FILTERS = ["loaded_from", "loaded_to"]
PASSPORT_DATES = ["loading_date", "post_harvest_treatment_date", "don_test_date", "zon_test_date"]


def error_beside(response, field: str) -> str:
    """The words of the error the page shows beside `field` ("" for none)."""
    found = re.search(
        rf'<ul class="errorlist" id="id_{field}_error">(.*?)</ul>', response.content.decode(), re.S
    )
    return " ".join(unescape(re.sub(r"<[^>]+>", " ", found[1])).split()) if found else ""


@pytest.mark.parametrize("day", EVERY_DAY)
@pytest.mark.parametrize("field", LIST_FILTERS)
def test_the_list_filtered_by_any_date_answers(grower, field, day):
    made_with_the_form(grower)
    response = grower.get(f"/passports/?{field}={day}")
    assert response.status_code == 200
    if day == NO_DAY:
        assert error_beside(response, field).endswith("loading date as a real date.")
    else:
        assert error_beside(response, field) == ""


def test_the_list_filtered_to_the_first_and_last_days_lists_every_passport(grower):
    code = made_with_the_form(grower)
    response = grower.get(f"/passports/?loaded_from={FIRST_DAY}&loaded_to={LAST_DAY}")
    assert response.status_code == 200
    assert f'href="/passports/{code}/"' in response.content.decode()


@pytest.mark.parametrize("day", EVERY_DAY)
@pytest.mark.parametrize("field", LIST_FILTERS)
def test_an_export_of_all_that_match_any_date_answers(grower, field, day):
    made_with_the_form(grower)
    response = grower.post("/passports/export", {"format": "zip", "scope": "all", field: day})
    assert response.status_code == 303
    exports = Job.objects.filter(kind=passport_export.name)
    if (field, day) in {("loaded_from", FIRST_DAY), ("loaded_to", LAST_DAY)}:  # every passport
        assert response["Location"] == f"/jobs/{exports.get().pk}/"
    else:  # none, or a filter not valid: refused, said on the list
        assert response["Location"].startswith("/passports/")
        assert not exports.exists()


@pytest.mark.parametrize("day", EVERY_DAY)
@pytest.mark.parametrize("field", PASSPORT_DATES)
def test_a_passport_date_no_load_can_have_is_refused_beside_its_field(grower, field, day):
    response = grower.post("/passports/new", filled(grower, **{field: day}))
    assert response.status_code == 400
    said = error_beside(response, field)
    if day == NO_DAY:
        assert said.endswith("as a real date.")
    else:
        assert "between 1 January 2000 and" in said
    assert not Passport.objects.exists()


ADMIN_LISTS = {"audit/event": "at", "jobs/job": "created", "passports/passport": "created",
               "passports/mailing": "created"}  # fmt: skip


@pytest.mark.parametrize(
    "query",
    ["{f}__year=9999&{f}__month=12&{f}__day=31", "{f}__year=9999&{f}__month=12",
     "{f}__year=9999", "{f}__year=1&{f}__month=1&{f}__day=1", "{f}__year=0",
     "{f}__year=2026&{f}__month=2&{f}__day=30", "{f}__gte=0001-01-01&{f}__lt=9999-12-31",
     "{f}__gte=2026-02-30"],
)  # fmt: skip
@pytest.mark.parametrize("model", ADMIN_LISTS)
def test_the_admins_lists_by_any_date_answer(grower, staff, model, query):
    made_with_the_form(grower)
    response = staff.get(f"/admin/{model}/?{query.format(f=ADMIN_LISTS[model])}")
    assert response.status_code == 200 or response["Location"].endswith("?e=1")  # not valid

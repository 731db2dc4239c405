"""The hostile values' table (tests/hostile_values.py) through the passports' forms (the create
form's every text, number and date field, the mail's message) and the business's list's filters
(its query string): each refused beside its field, in the one rule's words, with nothing made or
sent; a filter refused is said so and left out, the list shown unfiltered by it."""

from __future__ import annotations

import pytest

from portal.jobs.models import Job
from portal.lib.printable import NOT_PRINTABLE
from portal.passports.forms import TEXT_FIELDS
from portal.passports.models import Mailing, Passport
from tests.hostile_values import (
    lines_refused,
    lines_taken,
    not_numbers,
    one_line_refused,
    other_scripts,
)
from tests.portal.accounts.helpers import upstream_calls
from tests.portal.passports.helpers import text
from tests.portal.passports.made import filled, made_with_the_form
from tests.portal.passports.test_mail import mail_form
from tests.portal.test_dates import error_beside

pytestmark = pytest.mark.django_db

WORDS = [name for name in TEXT_FIELDS if name != "harvest_year"]  # four digits: its own rule
NUMBERS = {"loads": "Give the number of loads as", "don_risk_assessment_result":
           "Enter the DON risk score as"}  # fmt: skip
DATES = ["loading_date", "don_test_date"]


def refused(grower, **fields: str):
    """The create form sent with `fields`: refused (400), nothing made."""
    response = grower.post("/passports/new", filled(grower, **fields))
    assert response.status_code == 400
    assert not Passport.objects.exists() and not Job.objects.exists()
    return response


@pytest.mark.parametrize("hostile", one_line_refused("Extase"), ids=str)
def test_a_character_no_passport_has_is_refused_in_every_text_field(grower, hostile):
    response = refused(grower, **dict.fromkeys(WORDS, hostile.value))
    for name in WORDS:
        assert error_beside(response, name) == NOT_PRINTABLE, name


@pytest.mark.parametrize("hostile", not_numbers("12"), ids=str)
def test_a_number_not_written_in_plain_digits_is_refused_in_every_number_field(grower, hostile):
    response = refused(grower, **dict.fromkeys(NUMBERS, hostile.value))
    for name, said in NUMBERS.items():
        assert error_beside(response, name).startswith(said), name


@pytest.mark.parametrize("hostile", other_scripts("2026-08-21"), ids=str)
def test_a_date_in_another_scripts_digits_is_refused_in_every_date_field(grower, hostile):
    response = refused(grower, **dict.fromkeys(DATES, hostile.value))
    for name in DATES:
        assert error_beside(response, name).endswith("as a real date."), name


@pytest.mark.parametrize("hostile", lines_refused("Ring me on arrival."), ids=str)
def test_the_mail_s_message_refuses_a_character_no_text_has(grower, hostile):
    code = made_with_the_form(grower)
    response = grower.post("/passports/send", mail_form(grower, [code], note=hostile.value))
    assert response.status_code == 400
    assert error_beside(response, "note") == NOT_PRINTABLE
    assert not Mailing.objects.exists()


def test_the_mail_s_message_keeps_its_lines(grower):
    code = made_with_the_form(grower)
    note = lines_taken("Load for Friday. Ring me on arrival.")
    assert grower.post("/passports/send", mail_form(grower, [code], note=note)).status_code == 303
    assert Mailing.objects.get().note == note


# --- the business's list's filters ----------------------------------------------------------


def listed(grower, **query: str):
    """The list's page for the query string `query`."""
    response = grower.get("/passports/", query)
    assert response.status_code == 200
    return response


# Each would leave out a passport loaded on 21 August 2026, were it applied.
LOADING_DATES = {
    "loaded_from": ("2026-08-22", "Enter the first loading date as a real date."),
    "loaded_to": ("2026-08-20", "Enter the last loading date as a real date."),
}
DATE_FILTERS = [(field, hostile) for field, (day, _) in LOADING_DATES.items()
                for hostile in other_scripts(day)]  # fmt: skip


@pytest.mark.parametrize(("field", "hostile"), DATE_FILTERS, ids=str)
def test_a_loading_date_filter_in_another_scripts_digits_is_said_and_left_out(
    grower, field, hostile
):
    code = made_with_the_form(grower)
    page = listed(grower, **{field: hostile.value})
    assert error_beside(page, field) == LOADING_DATES[field][1]
    assert f'href="/passports/{code}/"' in page.content.decode()


@pytest.mark.parametrize("hostile", one_line_refused("QHT2W"), ids=str)
def test_a_short_code_or_crop_filter_with_a_character_no_text_has_is_said_and_left_out(
    grower, hostile
):
    code = made_with_the_form(grower)
    page = listed(grower, code=hostile.value, crop=f"W{hostile.value}")
    assert error_beside(page, "code") == NOT_PRINTABLE
    assert error_beside(page, "crop") == NOT_PRINTABLE
    assert f'href="/passports/{code}/"' in page.content.decode()


PAGE_TWO = [hostile for hostile in other_scripts("2") if hostile.what.endswith(" digits")]


@pytest.mark.parametrize("hostile", PAGE_TWO, ids=str)
def test_a_page_in_another_scripts_digits_is_left_out(grower, hostile, monkeypatch):
    monkeypatch.setattr("portal.passports.views.passports.PER_PAGE", 1)
    made_with_the_form(grower)
    made_with_the_form(grower)
    assert "2–2 of 2 passports" in text(listed(grower, page="2"))
    assert "1–1 of 2 passports" in text(listed(grower, page=hostile.value))


# --- a short code typed: the look-up, and a passport added by its code -------------------------


@pytest.mark.parametrize("hostile", one_line_refused("7KXM4QHT2W"), ids=str)
def test_a_short_code_with_a_character_no_text_has_is_refused_unasked(grower, hostile):
    with upstream_calls() as calls:
        looked_up = grower.get("/p/", {"code": hostile.value})
        added = grower.post("/passports/add", {"code": hostile.value})
    assert looked_up.status_code == 400 and NOT_PRINTABLE in text(looked_up)
    assert added.status_code == 400 and NOT_PRINTABLE in text(added)
    assert [c.operation for c in calls if c.operation != "authorisation"] == []  # no look-up
    assert not Passport.objects.exists()


CHOSEN_FILTERS = {"membership": "Choose one of your memberships.", "site": "Choose one of your "
                  "sites.", "year": "No passport of yours has that harvest year: choose one "
                  "listed.", "decision": "Choose one of the decisions listed."}  # fmt: skip


@pytest.mark.parametrize("hostile", [*one_line_refused("2026"), *other_scripts("2026")], ids=str)
def test_a_chosen_filter_with_a_value_none_offered_is_said_and_left_out(grower, hostile):
    code = made_with_the_form(grower)
    page = listed(grower, **dict.fromkeys(CHOSEN_FILTERS, hostile.value))
    for name, said in CHOSEN_FILTERS.items():
        assert error_beside(page, name) == said, name
    assert f'href="/passports/{code}/"' in page.content.decode()

"""Values no passport can have, refused at the create form beside their fields with nothing made:
a harvest year in another script's digits or out of the years a load can be of; text in any
script taken. The dates: tests/portal/test_dates.py; text and numbers no passport has, and the
mail's message: test_hostile_values.py, from the one table of hostile values."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine

from portal.jobs.models import Job
from portal.passports.forms import FOUR_DIGITS
from portal.passports.models import Passport
from tests.hostile_values import Hostile, other_scripts
from tests.portal.passports.made import filled, made_with_the_form
from tests.portal.test_dates import error_beside

pytestmark = pytest.mark.django_db

TODAY = date(2026, 11, 25)


@pytest.fixture
def today():
    """The portal's clock on TODAY, running (the service's is its own)."""
    with time_machine.travel(TODAY, tick=True):
        yield TODAY


def refused(grower, field: str, value: str) -> str:
    """The error said beside `field` when the form is sent with `value` in it; none made."""
    response = grower.post("/passports/new", filled(grower, **{field: value}))
    assert response.status_code == 400
    assert not Passport.objects.exists() and not Job.objects.exists()
    return error_beside(response, field)


@pytest.mark.parametrize("year", [*other_scripts("2026"), Hostile("a point", "20.6")], ids=str)
def test_a_harvest_year_in_other_than_four_ascii_digits_is_refused(grower, today, year):
    assert refused(grower, "harvest_year", year.value) == FOUR_DIGITS


@pytest.mark.parametrize("year", ["0000", "1999", "2028", "9999"])
def test_a_harvest_year_no_load_can_be_of_is_refused(grower, today, year):
    said = refused(grower, "harvest_year", year)
    assert said == "Enter a harvest year from 2000 to 2027: no load can be of another."


@pytest.mark.parametrize("year", ["2000", "2027"])
def test_the_first_and_last_harvest_years_are_taken(grower, today, year):
    made_with_the_form(grower, harvest_year=year)


def test_the_first_and_last_dates_are_taken_and_offered_by_the_date_pickers(grower, today):
    last = (TODAY + timedelta(days=365)).isoformat()
    page = grower.get("/passports/new").content.decode()
    assert page.count(f'min="2000-01-01" max="{last}"') == 4
    made_with_the_form(grower, loading_date="2000-01-01", don_test_date=last)


def test_a_date_out_of_range_says_the_range(grower, today):
    said = refused(grower, "loading_date", "2027-11-26")
    assert said == ("Enter a loading date between 1 January 2000 and 25 November 2027: no load "
                    "can have another.")  # fmt: skip


def test_text_in_any_script_is_taken(grower):
    made_with_the_form(grower, variety="Skyfall – blé d'hiver, ячмень, 小麦")

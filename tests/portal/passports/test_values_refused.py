"""Values no passport can have, refused at the create form beside their fields with nothing made:
a harvest year in another script's digits or out of the years a load can be of, numbers in
another script's digits, control characters in text; and the mail's message, which may run over
lines but holds no other control character. The dates: tests/portal/test_dates.py."""

from __future__ import annotations

from datetime import date, timedelta

import pytest
import time_machine

from portal.jobs.models import Job
from portal.passports.forms import FOUR_DIGITS, TEXT_FIELDS
from portal.passports.models import Mailing, Passport
from tests.portal.passports.made import filled, made_with_the_form
from tests.portal.passports.test_mail import mail_form
from tests.portal.test_dates import error_beside

pytestmark = pytest.mark.django_db

ESC, BEL, DEL, CSI, TAB = "\x1b", "\x07", "\x7f", "\x9b", "\t"
NOT_PRINTABLE = "Type only printable characters here"
TODAY = date(2026, 11, 25)
ARABIC_INDIC, PERSIAN, FULL_WIDTH = (
    "\u0662\u0660\u0662\u0666",
    "\u06f2\u06f0\u06f2\u06f6",
    "\uff12\uff10\uff12\uff16",
)
WORDS = [name for name in TEXT_FIELDS if name != "harvest_year"]  # four digits, tested apart


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


@pytest.mark.parametrize("year", [ARABIC_INDIC, PERSIAN, FULL_WIDTH, "20.6"])
def test_a_harvest_year_in_other_than_four_ascii_digits_is_refused(grower, today, year):
    assert refused(grower, "harvest_year", year) == FOUR_DIGITS


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


@pytest.mark.parametrize("field", ["loads", "don_risk_assessment_result"])
def test_a_number_in_another_scripts_digits_is_refused(grower, field):
    said = refused(grower, field, ARABIC_INDIC[-2:])  # 26
    assert said.startswith(("Give the number of loads as", "Enter the DON risk score as"))


@pytest.mark.parametrize("field", WORDS)
def test_a_control_character_in_any_text_field_is_refused(grower, field):
    assert refused(grower, field, f"Wheat{ESC}[2J").startswith(NOT_PRINTABLE)


@pytest.mark.parametrize("character", [BEL, DEL, CSI, TAB, "\n"])
def test_every_kind_of_control_character_is_refused(grower, character):
    assert refused(grower, "variety", f"Ext{character}ase").startswith(NOT_PRINTABLE)


def test_text_in_any_script_is_taken(grower):
    made_with_the_form(grower, variety="Skyfall – blé d'hiver, ячмень, 小麦")


def test_the_mails_message_keeps_its_lines_and_refuses_other_control_characters(grower):
    code = made_with_the_form(grower)
    response = grower.post("/passports/send", mail_form(grower, [code], note=f"Ring{BEL} me"))
    assert response.status_code == 400
    assert error_beside(response, "note").startswith(NOT_PRINTABLE)
    assert not Mailing.objects.exists()
    lines = "Load for Friday.\r\nRing me on arrival."
    assert grower.post("/passports/send", mail_form(grower, [code], note=lines)).status_code == 303
    assert Mailing.objects.get().note == lines

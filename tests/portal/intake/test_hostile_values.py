"""The hostile values' table (tests/hostile_values.py) through the intake clerk's forms, the
grower's query and the clerk's answer: each refused beside its field, in the one rule's words,
with nothing recorded; what the rule takes (a weight as shown, -0, line breaks in a query) is
kept as the portal writes it."""

from __future__ import annotations

from datetime import timedelta

import pytest
import time_machine
from django.test import Client
from django.utils import timezone

from portal.accounts.session import portal_user
from portal.intake import quality
from portal.intake.forms import CLAIM_FIELDS, TICKET
from portal.intake.models import IntakeSite, Load, LoadEntry
from portal.lib.printable import NOT_PRINTABLE
from tests.hostile_values import (
    WEIGHTS_TAKEN,
    ZEROS,
    lines_refused,
    lines_taken,
    not_numbers,
    not_weights,
    one_line_refused,
    other_scripts,
)
from tests.portal.intake.builders import a_load, a_signed_in_clerk, a_site, queried
from tests.portal.intake.test_clerks import (
    EARLIER,
    RECORD,
    SITE,
    field_error,
    good,
    now_typed,
    recorded,
    tickets,
)
from tests.portal.passports.made import made_here

pytestmark = pytest.mark.django_db


@pytest.fixture
def site(db) -> IntakeSite:
    portal_user("grower")  # who makes the passports of the loads (made_here)
    return a_site()


@pytest.fixture
def clerk(site, upstream_sandbox) -> Client:
    """The demo account `haulier`, made a clerk of the site, signed in."""
    return a_signed_in_clerk(site)


TEXTS = ("vehicle", "sample_reference")
# Every number field of a wheat load's form: its results, and each claim's rate and tonnes.
NUMBERS = ("sample_kept_days", *(p.key for p in quality.parameters_of("wheat")),
           *(name for names in CLAIM_FIELDS for name in names[1:]))  # fmt: skip
WEIGHTS = ("gross_kg", "tare_kg")
NOT_A_NUMBER = "Enter a number in the digits 0 to 9"
NOT_A_WHOLE_NUMBER = "Enter a whole number in the digits 0 to 9"
NOT_A_WEIGHT = "Enter the weight in kilograms in the digits 0 to 9, for example 41200 or 41,200."
NOT_A_TIME = "Enter the date and time in the digits 0 to 9, as 2026-09-03 10:15."
# The start of what a choice that is none says, by field (the codes to send follow).
NOT_A_CHOICE = {"decision": "Not a decision:", "reasons": "Not one of the reasons:",
                **dict.fromkeys([name for name, _rate, _tonnes in CLAIM_FIELDS],
                                "Not a parameter of this crop:")}  # fmt: skip


def refused(clerk, **changed: object):
    """The record form sent with `changed`: refused (400), nothing recorded."""
    response = recorded(clerk, made_here(), **changed)
    assert response.status_code == 400
    assert not Load.objects.exists() and not LoadEntry.objects.exists()
    return response


@pytest.mark.parametrize("hostile", one_line_refused("AE24KTV"), ids=str)
def test_a_character_no_load_has_is_refused_in_every_text_field(clerk, hostile):
    response = refused(clerk, **dict.fromkeys(("ticket", *TEXTS), hostile.value))
    for name in TEXTS:
        assert field_error(response, name) == NOT_PRINTABLE
    assert field_error(response, "ticket") == TICKET.message


@pytest.mark.parametrize("hostile", one_line_refused("claim"), ids=str)
def test_a_choice_with_a_character_no_text_has_is_none_offered(clerk, hostile):
    chosen = {"decision": hostile.value, "reasons": [hostile.value],
              "claim_1_parameter": hostile.value}  # fmt: skip
    response = refused(clerk, **chosen)
    for name in chosen:
        said = field_error(response, name)
        assert said.startswith(NOT_A_CHOICE[name]) and hostile.value not in said, name


@pytest.mark.parametrize("hostile", not_numbers(), ids=str)
def test_a_number_not_written_in_plain_digits_is_refused_in_every_number_field(clerk, hostile):
    response = refused(clerk, **dict.fromkeys(NUMBERS, hostile.value))
    for name in NUMBERS:
        expected = NOT_A_WHOLE_NUMBER if name == "sample_kept_days" else NOT_A_NUMBER
        assert field_error(response, name).startswith(expected), name


@pytest.mark.parametrize("hostile", not_weights(), ids=str)
def test_a_weight_not_written_as_the_portal_shows_it_is_refused(clerk, hostile):
    response = refused(clerk, **dict.fromkeys(WEIGHTS, hostile.value))
    for name in WEIGHTS:
        assert field_error(response, name) == NOT_A_WEIGHT


@pytest.mark.parametrize("hostile", other_scripts(now_typed(minutes=-30)), ids=str)
def test_an_arrival_in_another_scripts_digits_is_refused(clerk, hostile):
    assert field_error(refused(clerk, arrival=hostile.value), "arrival") == NOT_A_TIME


@pytest.mark.parametrize(("typed", "kept"), WEIGHTS_TAKEN.items())
def test_a_weight_is_taken_as_the_portal_shows_it(clerk, typed, kept):
    assert recorded(clerk, made_here(), gross_kg=typed).status_code == 303
    assert Load.objects.get().net_kg == kept - 15020


@pytest.mark.parametrize(("typed", "kept"), ZEROS.items())
def test_a_zero_with_a_sign_is_kept_as_zero(clerk, typed, kept):
    assert recorded(clerk, made_here(), moisture=typed).status_code == 303
    assert LoadEntry.objects.get().figures["results"]["moisture"] == kept


def test_a_second_claim_on_a_result_is_refused(clerk):
    second = {"claim_2_parameter": "specific_weight", "claim_2_rate": "1.00"}
    response = refused(clerk, **second)
    said = "Another claim is on this result already: make one claim on each result."
    assert field_error(response, "claim_2_parameter") == said
    third = {"claim_3_parameter": "specific_weight", "claim_3_rate": "1.00"}
    assert field_error(refused(clerk, **third), "claim_3_parameter") == said


# --- a correction's reason, a query and its answer: text of several lines ---------------------


def corrected(clerk, load, reason: str):
    return clerk.post(
        f"/intake/loads/{load.pk}/correct", good(tare_kg="15000") | {"reason": reason}
    )


@pytest.mark.parametrize("hostile", lines_refused("Tare of the wrong lorry"), ids=str)
def test_a_correction_s_reason_with_a_character_no_text_has_changes_nothing(clerk, site, hostile):
    load = a_load(site)
    response = corrected(clerk, load, hostile.value)
    assert response.status_code == 400
    assert field_error(response, "reason") == NOT_PRINTABLE
    assert LoadEntry.objects.count() == 1


def test_a_correction_s_reason_has_lines_and_at_most_500_characters(clerk, site):
    load = a_load(site)
    response = corrected(clerk, load, "x" * 501)
    assert field_error(response, "reason") == "Say why in at most 500 characters."
    reason = lines_taken("Tare of the wrong lorry")
    assert corrected(clerk, load, reason).status_code == 303
    assert LoadEntry.objects.get(kind="corrected").words == reason


@pytest.mark.parametrize("hostile", lines_refused("Our own test gave 77.1 kg/hl."), ids=str)
def test_a_query_or_an_answer_with_a_character_no_text_has_is_refused(grower, clerk, site, hostile):
    load = a_load(site)
    response = grower.post(f"/intake/loads/{load.pk}/query", {"words": hostile.value})
    assert response.status_code == 400 and NOT_PRINTABLE in response.content.decode()
    queried(load)
    sent = {"words": hostile.value, "action": "answer"}
    response = clerk.post(f"/intake/loads/{load.pk}/answer", sent)
    assert response.status_code == 400 and NOT_PRINTABLE in response.content.decode()
    assert list(load.entries.values_list("kind", flat=True)) == ["recorded", "queried"]


def test_a_query_and_an_answer_keep_their_lines(grower, clerk, site):
    load = a_load(site)
    words = lines_taken("Our own test gave 77.1 kg/hl.")
    assert grower.post(f"/intake/loads/{load.pk}/query", {"words": words}).status_code == 303
    sent = {"words": words, "action": "answer"}
    assert clerk.post(f"/intake/loads/{load.pk}/answer", sent).status_code == 303
    assert [entry.words for entry in load.entries.order_by("pk")][1:] == [words, words]


# --- the site's list of loads ---------------------------------------------------------------

PAGE_TWO = [hostile for hostile in other_scripts("2") if hostile.what.endswith(" digits")]


@pytest.mark.parametrize("hostile", PAGE_TWO, ids=str)
def test_a_page_in_another_scripts_digits_is_left_out(clerk, site, hostile, monkeypatch):
    monkeypatch.setattr("portal.intake.clerking.PER_PAGE", 1)
    with time_machine.travel(timezone.now() - timedelta(days=2)):
        a_load(site, "T-1")
        a_load(site, "T-2", Load.objects.get().passport)
    assert tickets(clerk.get(SITE, {"page": "2"}), EARLIER) == ["T-1"]
    assert tickets(clerk.get(SITE, {"page": hostile.value}), EARLIER) == ["T-2"]


@pytest.mark.parametrize("hostile", one_line_refused("7KXM4QHT2W"), ids=str)
def test_a_short_code_with_a_character_no_text_has_is_refused_at_record_a_load(clerk, hostile):
    response = clerk.get(RECORD, {"code": hostile.value})
    assert response.status_code == 400 and field_error(response, "code") == NOT_PRINTABLE

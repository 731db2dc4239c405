"""A load's figures as the clerk's form, an upload's row and a site's software give them
(portal/intake/forms.py): each bad value refused beside its field, with words that say why,
and a good record read whole."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

import pytest
import time_machine

from portal.intake.forms import LoadForm
from portal.intake.models import Decision
from tests.portal.intake.builders import a_load, a_site

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def midday_of_the_load():
    with time_machine.travel(datetime(2026, 9, 3, 12, tzinfo=UTC), tick=False):
        yield


GOOD = {
    "ticket": "T-2001", "arrival": "2026-09-03 10:15", "vehicle": "ae24  ktv",
    "gross_kg": "44120", "tare_kg": "15020", "decision": "claim", "reasons": ["specific-weight"],
    "specific_weight": "72.5", "moisture": "14.2", "sample_reference": "S-1",
    "claim_1_parameter": "specific_weight", "claim_1_rate": "2.50",
}  # fmt: skip


def form(site=None, crop: str = "Wheat", **changed: object) -> LoadForm:
    data = {key: value for key, value in (GOOD | changed).items() if value is not None}
    return LoadForm(data, site=site or a_site(), crop=crop,
                    loaded=datetime(2026, 9, 2, tzinfo=UTC))  # fmt: skip


def test_a_good_record_is_read_whole_with_its_claim_on_the_net_tonnes():
    good = form()
    assert good.is_valid(), good.errors
    figures = good.figures()
    assert figures.net_kg == 29_100 and figures.vehicle == "AE24 KTV"
    assert figures.decision == Decision.CLAIM and figures.reasons == ("specific-weight",)
    assert figures.results == {"moisture": Decimal("14.2"), "specific_weight": Decimal("72.5")}
    [claim] = figures.claims
    assert claim.tonnes is None  # blank: the load's net tonnes, whatever they become
    assert (figures.net_tonnes, figures.claimed) == (Decimal("29.1"), Decimal("72.75"))


@pytest.mark.parametrize(
    ("changed", "field", "words"),
    [
        ({"gross_kg": "-5"}, "gross_kg", "greater than or equal to 1"),
        ({"gross_kg": "900000"}, "gross_kg", "less than or equal to 60000"),
        ({"tare_kg": "50000"}, "tare_kg", "below the gross weight"),
        ({"moisture": "300"}, "moisture", "cannot be measured"),
        ({"oil": "40"}, "oil", "not measured for wheat"),
        ({"arrival": "2027-01-03 10:00"}, "arrival", "later than now"),
        ({"arrival": "2026-09-01 10:00"}, "arrival", "before it was loaded"),
        ({"ticket": "T 1"}, "ticket", "letters, digits"),
        ({"decision": "rejected", "reasons": None, "claim_1_parameter": None,
          "claim_1_rate": None}, "reasons", "Say why"),
        ({"decision": "accepted"}, "decision", "accepted with a claim only"),
        ({"claim_1_parameter": None, "claim_1_rate": None}, "claim_1_parameter", "at least one"),
        ({"claim_1_rate": None}, "claim_1_rate", "rate in pounds"),
        ({"claim_1_tonnes": "40"}, "claim_1_tonnes", "at most the load's 29.100 tonnes"),
        ({"claim_1_parameter": "oil"}, "claim_1_parameter", "Not a parameter of this crop: send "
         "one of moisture, specific_weight, protein, hagberg, admixture, screenings."),
        ({"decision": "maybe"}, "decision",
         "Not a decision: send one of accepted, claim, redirected, rejected."),
        ({"reasons": ["specific-weight", "dust"]}, "reasons", "Not one of the reasons: send any "
         "of moisture, specific-weight, protein,"),
    ],
)  # fmt: skip
def test_a_bad_value_is_refused_beside_its_field(changed, field, words):
    refused = form(**changed)
    assert not refused.is_valid()
    assert words in " ".join(refused.errors[field]), refused.errors


def test_a_ticket_recorded_at_the_site_is_refused_unless_it_is_the_load_corrected(grower):
    site = a_site()
    load = a_load(site, "T-2001")
    assert "recorded at Stour Valley Grain, Sudbury already" in form(site).errors["ticket"][0]
    correcting = LoadForm(GOOD, site=site, crop="wheat", load=load)
    assert correcting.is_valid(), correcting.errors
    assert form(a_site(name="Another", code="another")).is_valid()

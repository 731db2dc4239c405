"""The one builder of intake sites and recorded loads for the tests: a site as staff make it,
and a load as a clerk records it (portal.intake.loads), of a passport the grower made."""

from __future__ import annotations

from datetime import UTC, datetime
from decimal import Decimal

from portal.intake import loads
from portal.intake.models import Decision, IntakeSite, Load
from portal.passports.models import Passport
from tests.portal.passports.made import made_here

STOUR_VALLEY = {"name": "Stour Valley Grain, Sudbury", "buyer_business": "Stour Valley Grain Ltd",
                "code": "stour-valley-sudbury"}  # fmt: skip


def a_site(**fields: str) -> IntakeSite:
    """A site as staff make it, whose wheat must weigh 76 kg/hl or more."""
    site = IntakeSite.objects.create(**(STOUR_VALLEY | fields))
    site.specifications.create(crop="wheat", parameter="specific_weight", lowest=Decimal("76"))
    return site


def figures(**changed: object) -> loads.Figures:
    """A wheat load's figures at intake: 29.1 t net, accepted with a claim on specific weight."""
    return loads.Figures(**({
        "arrival": datetime(2026, 9, 3, 10, 15, tzinfo=UTC), "vehicle": "AE24 KTV",
        "gross_kg": 44_120, "tare_kg": 15_020, "decision": Decision.CLAIM,
        "sample_reference": "S-0931", "sample_kept_days": 90,
        "results": {"moisture": Decimal("14.2"), "specific_weight": Decimal("72.5"),
                    "protein": Decimal("11.8")},
        "reasons": ("Specific weight under specification",),
        "claims": (loads.Claim("specific_weight", Decimal("2.50"), Decimal("29.10")),),
    } | changed))  # fmt: skip


def a_load(
    site: IntakeSite, ticket: str = "T-1001", passport: Passport | None = None, **changed: object
) -> Load:
    """A load recorded at `site` with `figures(**changed)`, of `passport` (by default a new
    passport the grower made)."""
    passport = passport or Passport.objects.get(short_code=made_here())
    verdict = {"valid": True, "checked_at": "2026-09-03T10:14:00+00:00"}
    return loads.record(site, ticket, passport, figures(**changed), by="intake", verdict=verdict)

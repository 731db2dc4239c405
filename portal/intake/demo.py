"""The demo of intake results that `make run` loads (`manage.py load_intake_demo`): a buyer's
intake site with its specification of each crop, the sandbox's clerk account made a clerk of
it, and one load recorded of the sandbox's demo passport, so that its grower sees a result on
the passport's page at once.

Loaded as the sandbox's demo data is: whatever part is missing, and what exists is left as
staff or a clerk left it, so that loading it again records nothing twice. The passport is the
portal's record of it as a contact adds one by its code (portal.passports.adding); the load
keeps the verdict the look-up gave when it was recorded, as a clerk's record does."""

from __future__ import annotations

from decimal import Decimal

from django.db import transaction
from django.utils import timezone

from portal.accounts.session import portal_user
from portal.intake.loads import Claim, Figures, kept_verdict, record
from portal.intake.models import Decision, IntakeSite, Load
from portal.outbox import endpoints
from portal.outbox.endpoints import Owner
from portal.outbox.models import Endpoint, EventType
from portal.passports.adding import record_added
from portal.passports.lookup import Verdict
from portal.passports.models import Passport

STOUR_VALLEY = {"name": "Stour Valley Grain, Sudbury", "buyer_business": "Stour Valley Grain Ltd",
                "code": "stour-valley-sudbury"}  # fmt: skip

# The site's specification: by crop and parameter, the lowest and highest value within it
# (None: no bound). Milling wheat's, feed barley's, crushing rape's, and pulses' for feed.
SPECIFICATION: dict[str, dict[str, tuple[str | None, str | None]]] = {
    "wheat": {"specific_weight": ("76", None), "moisture": (None, "15"), "protein": ("11", None),
              "hagberg": ("250", None), "admixture": (None, "2")},
    "barley": {"specific_weight": ("63", None), "moisture": (None, "15"),
               "admixture": (None, "2")},
    "oilseed rape": {"moisture": (None, "9"), "free_fatty_acids": (None, "2"),
                     "admixture": (None, "2")},
    "beans": {"moisture": (None, "14"), "admixture": (None, "2")},
    "peas": {"moisture": (None, "14"), "admixture": (None, "2")},
}  # fmt: skip

TICKET = "SV-0417"
DEMO_ENDPOINT = "make run's webhook receiver"
GROSS_KG, TARE_KG = 44_120, 15_020
CLAIM_RATE = Decimal("2.50")  # pounds a tonne, on specific weight under 76 kg/hl
RESULTS = {"moisture": Decimal("14.2"), "specific_weight": Decimal("74.5"),
           "protein": Decimal("11.8"), "hagberg": Decimal("285"),
           "admixture": Decimal("1.1")}  # fmt: skip


def load(verdict: Verdict, *, added_by: str, clerk: str, webhook_url: str = "") -> list[str]:
    """Loads whatever part of the demo is missing, for the passport of `verdict` (the look-up's,
    with the passport: its claim valid or not), added by the account `added_by` (a contact of
    its membership), recorded by `clerk`; with `webhook_url` (`make run`'s receiver), the
    business's demo endpoint there, made before the load so that its event arrives. Returns
    what it loaded."""
    if verdict.passport is None:
        raise ValueError("The look-up gave no passport: its claim is not valid now.")
    loaded = []
    with transaction.atomic():
        site = IntakeSite.objects.filter(code=STOUR_VALLEY["code"]).first()
        if site is None:
            site = _site(clerk)
            loaded.append(f"intake site {site} with its clerk {clerk}")
        passport = Passport.objects.filter(short_code=verdict.short_code).first()
        if passport is None:
            passport = record_added(verdict.passport, portal_user(added_by))
            loaded.append(f"passport {passport.short_code}, added by {added_by}")
        if webhook_url and demo_endpoint(passport, webhook_url, added_by):
            loaded.append(f"a webhook endpoint of {passport.business_name} at {webhook_url}")
        if not Load.objects.filter(site=site, ticket=TICKET).exists():
            record(site, TICKET, passport, figures(verdict), by=clerk,
                   verdict=kept_verdict(verdict))  # fmt: skip
            loaded.append(f"load {TICKET} of passport {passport.short_code} at {site}")
    return loaded


def demo_endpoint(passport: Passport, url: str, made_by: str) -> bool:
    """The business's demo endpoint at `url` (the receiver's port changes from run to run: the
    one made before is moved there); whether it was made or moved."""
    kept = Endpoint.objects.filter(membership_guid=passport.membership_guid,
                                   description=DEMO_ENDPOINT).first()  # fmt: skip
    if kept is not None:
        return bool(Endpoint.objects.filter(pk=kept.pk).exclude(url=url).update(url=url))
    owner = Owner(membership_guid=passport.membership_guid, business_name=passport.business_name)
    every_type = [t.value for t in EventType if t != EventType.PING]
    endpoints.register(owner, url, every_type, DEMO_ENDPOINT, portal_user(made_by))
    return True


def _site(clerk: str) -> IntakeSite:
    site = IntakeSite.objects.create(**STOUR_VALLEY)
    for crop, parameters in SPECIFICATION.items():
        for parameter, (lowest, highest) in parameters.items():
            site.specifications.create(
                crop=crop, parameter=parameter, lowest=_number(lowest), highest=_number(highest)
            )
    site.clerks.add(portal_user(clerk))  # as grant_intake makes one, before they first sign in
    return site


def _number(text: str | None) -> Decimal | None:
    return None if text is None else Decimal(text)


def figures(verdict: Verdict) -> Figures:
    """The demo load: wheat come in just now a little light, accepted with a claim on its
    specific weight (74.5 kg/hl against 76) at £2.50 a tonne of its net weight."""
    net_tonnes = (Decimal(GROSS_KG - TARE_KG) / 1000).quantize(Decimal("0.01"))
    vehicle = verdict.passport.vehicle_registration if verdict.passport else None
    return Figures(
        arrival=timezone.now().replace(microsecond=0), vehicle=vehicle or "AE24 KTV",
        gross_kg=GROSS_KG, tare_kg=TARE_KG,
        decision=Decision.CLAIM, sample_reference=f"{TICKET}-S", sample_kept_days=90,
        results=RESULTS, reasons=("specific-weight",),
        claims=(Claim("specific_weight", CLAIM_RATE, net_tonnes),),
    )  # fmt: skip

"""Recording a load and each step of its history, as the clerk's pages and the uploads will:
a load recorded with its figures, the site's specification of its crop and the passport's
verdict at that moment (or many at once, an upload's); a correction with its reason, judged
against the specification then, which keeps what was there before. Each in one transaction: a
load is never left without its first entry, nor its copy of the latest figures behind them."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from decimal import Decimal

from django.db import transaction
from django.dispatch import Signal
from django.utils.translation import gettext

from portal.intake.models import Decision, IntakeSite, Load, LoadEntry, Specification
from portal.passports.lookup import Verdict


@dataclass(frozen=True)
class Claim:
    """A deduction on one parameter: its rate in pounds a tonne, on so many tonnes, or (`tonnes`
    None) on the load's net tonnes, whatever a correction makes them."""

    parameter: str
    rate: Decimal
    tonnes: Decimal | None = None

    def tonnes_of(self, net_tonnes: Decimal) -> Decimal:
        """The tonnes claimed on, of a load of `net_tonnes`."""
        return net_tonnes if self.tonnes is None else self.tonnes

    def total(self, net_tonnes: Decimal) -> Decimal:
        """The claim in pounds, on a load of `net_tonnes`."""
        return (self.rate * self.tonnes_of(net_tonnes)).quantize(Decimal("0.01"))


@dataclass(frozen=True)
class Figures:
    """What a load's record says of it, whole, as one entry keeps it."""

    arrival: datetime
    vehicle: str
    gross_kg: int
    tare_kg: int
    decision: Decision
    sample_reference: str = ""
    sample_kept_days: int | None = None
    results: dict[str, Decimal] = field(default_factory=dict)
    reasons: tuple[str, ...] = ()
    claims: tuple[Claim, ...] = ()

    @property
    def net_kg(self) -> int:
        return self.gross_kg - self.tare_kg

    @property
    def net_tonnes(self) -> Decimal:
        return Decimal(self.net_kg) / 1000

    @property
    def claimed(self) -> Decimal:
        """The claims' total in pounds."""
        return sum((claim.total(self.net_tonnes) for claim in self.claims), Decimal("0.00"))

    def as_json(self) -> dict[str, object]:
        kept = asdict(self)
        kept["arrival"] = self.arrival.isoformat()
        kept["decision"] = str(self.decision)
        kept["results"] = {key: str(value) for key, value in self.results.items()}
        kept["reasons"] = list(self.reasons)
        kept["claims"] = [
            {"parameter": c.parameter, "rate": str(c.rate),
             "tonnes": None if c.tonnes is None else str(c.tonnes)}
            for c in self.claims
        ]  # fmt: skip
        return kept

    @classmethod
    def from_json(cls, kept: dict) -> Figures:
        return cls(
            arrival=datetime.fromisoformat(kept["arrival"]),
            vehicle=kept["vehicle"],
            gross_kg=kept["gross_kg"],
            tare_kg=kept["tare_kg"],
            decision=Decision(kept["decision"]),
            sample_reference=kept.get("sample_reference", ""),
            sample_kept_days=kept.get("sample_kept_days"),
            results={key: Decimal(value) for key, value in kept.get("results", {}).items()},
            reasons=tuple(kept.get("reasons", ())),
            claims=tuple(
                Claim(
                    c["parameter"],
                    Decimal(c["rate"]),
                    None if c.get("tonnes") is None else Decimal(c["tonnes"]),
                )
                for c in kept.get("claims", ())
            ),
        )


@dataclass(frozen=True)
class Bounds:
    """A site's specification of one parameter as an entry keeps it: the lowest and the highest
    value within it (None: no bound on that side)."""

    lowest: Decimal | None = None
    highest: Decimal | None = None

    def holds(self, value: Decimal) -> bool:
        """Whether `value` is within the specification."""
        return (self.lowest is None or value >= self.lowest) and (
            self.highest is None or value <= self.highest
        )

    def in_words(self, unit: str) -> str:
        """The specification as a person says it: "76 kg/hl or more", "" without bounds."""
        said = {"lowest": _plain(self.lowest), "highest": _plain(self.highest), "unit": unit}
        if said["lowest"] and said["highest"]:
            return gettext("%(lowest)s to %(highest)s %(unit)s") % said
        if said["lowest"]:
            return gettext("%(lowest)s %(unit)s or more") % said
        return gettext("at most %(highest)s %(unit)s") % said if said["highest"] else ""

    def as_json(self) -> dict[str, str | None]:
        sides = (("lowest", self.lowest), ("highest", self.highest))
        return {side: None if bound is None else str(bound) for side, bound in sides}

    @classmethod
    def from_json(cls, kept: dict) -> Bounds:
        return cls(*(None if kept.get(side) is None else Decimal(kept[side])
                     for side in ("lowest", "highest")))  # fmt: skip


def _plain(value: Decimal | None) -> str:
    """A number as a person writes it: 76, 2.5 (not 76.00, nor 7.6E+1)."""
    return "" if value is None else format(value.normalize(), "f")


def specification_now(site: IntakeSite, crop: str) -> dict[str, Bounds]:
    """The site's specification of `crop` now, by parameter, as a load recorded now is judged."""
    kept = _kept_specifications(site.pk).get(crop.strip().lower(), {})
    return {parameter: Bounds.from_json(bounds) for parameter, bounds in kept.items()}


def _kept_specifications(site_id: int) -> dict[str, dict[str, dict[str, str | None]]]:
    """The site's specifications now, as an entry keeps one, by crop (lower case) and parameter."""
    kept: dict[str, dict[str, dict[str, str | None]]] = {}
    for specification in Specification.objects.filter(site_id=site_id):
        bounds = Bounds(specification.lowest, specification.highest)
        kept.setdefault(specification.crop, {})[specification.parameter] = bounds.as_json()
    return kept


def _judged_against(site_id: int, passport: object) -> dict[str, dict[str, str | None]]:
    """The site's specification of the passport's crop now, as its load's entry keeps it."""
    return _kept_specifications(site_id).get(passport.crop_type.lower(), {})


def record(
    site: IntakeSite, ticket: str, passport: object, figures: Figures, *, by: str, verdict: dict
) -> Load:
    """The load of `ticket` at `site`, come with `passport`, recorded with its figures and the
    passport's verdict as the look-up gave it now, judged against the site's specification of
    its crop now. Raises IntegrityError if the site has recorded the ticket already."""
    specification = _judged_against(site.pk, passport)
    with transaction.atomic():
        load = Load.objects.create(site=site, ticket=ticket, passport=passport,
                                   net_kg=figures.net_kg, decision=figures.decision)  # fmt: skip
        LoadEntry.objects.create(load=load, kind=LoadEntry.Kind.RECORDED, by=by,
                                 figures=figures.as_json(), specification=specification,
                                 verdict=verdict)  # fmt: skip
    return load


def kept_verdict(verdict: Verdict) -> dict[str, object]:
    """The passport's verdict as a load's record keeps it: whether the claim was valid, the
    status the service gave, and when the look-up asked it."""
    passport = verdict.passport
    return {
        "valid": verdict.is_valid,
        "status": passport.status if passport is not None else None,
        "checked_at": datetime.fromtimestamp(verdict.asked_at, UTC).isoformat(),
    }


# Sent with the first entries of loads recorded many at once, in their transaction: bulk_create
# sends no post_save, and what follows a load recorded (its maker told) must follow these too.
many_recorded = Signal()


@dataclass(frozen=True)
class Recording:
    """A load to record: its ticket, the passport it came with, its figures, and the verdict."""

    ticket: str
    passport: object
    figures: Figures
    verdict: dict


def record_many(site: IntakeSite, recordings: list[Recording], *, by: str) -> list[Load]:
    """Loads recorded as `record` records each, all in one transaction and a few statements (an
    upload's rows): each load with its first entry, or none of them. Raises IntegrityError if
    the site has recorded any of the tickets already (then none is recorded)."""
    specifications = _kept_specifications(site.pk)
    with transaction.atomic():
        made = Load.objects.bulk_create([
            Load(site=site, ticket=r.ticket, passport=r.passport, net_kg=r.figures.net_kg,
                 decision=r.figures.decision)
            for r in recordings
        ])  # fmt: skip
        entries = LoadEntry.objects.bulk_create([
            LoadEntry(load=load, kind=LoadEntry.Kind.RECORDED, by=by,
                      figures=r.figures.as_json(), verdict=r.verdict,
                      specification=specifications.get(r.passport.crop_type.lower(), {}))
            for load, r in zip(made, recordings, strict=True)
        ])  # fmt: skip
        many_recorded.send(sender=LoadEntry, entries=entries)
    return made


def correct(load: Load, figures: Figures, *, by: str, reason: str) -> LoadEntry:
    """The load's figures corrected, with the reason, judged against the site's specification
    of its crop now: a new entry; the one before stays."""
    specification = _judged_against(load.site_id, load.passport)
    with transaction.atomic():
        entry = LoadEntry.objects.create(load=load, kind=LoadEntry.Kind.CORRECTED, by=by,
                                         words=reason, figures=figures.as_json(),
                                         specification=specification)  # fmt: skip
        Load.objects.filter(pk=load.pk).update(net_kg=figures.net_kg, decision=figures.decision)
    return entry


def latest_figures(load: Load) -> Figures:
    """The load's figures as its latest record or correction gives them."""
    entry = load.entries.filter(figures__isnull=False).order_by("-at", "-pk").first()
    if entry is None:
        raise LookupError(f"{load} has no figures: a load is recorded with its first.")
    return Figures.from_json(entry.figures)


def figures_of(history: list[LoadEntry]) -> Figures:
    """The figures the latest record or correction in `history` (a load's entries in order)
    gives, as `latest_figures` reads them from the database."""
    return Figures.from_json(_latest_with_figures(history).figures)


def specification_of(history: list[LoadEntry]) -> dict[str, Bounds]:
    """The specification, by parameter, that the figures of the latest record or correction in
    `history` were judged against."""
    kept = _latest_with_figures(history).specification or {}
    return {parameter: Bounds.from_json(bounds) for parameter, bounds in kept.items()}


def _latest_with_figures(history: list[LoadEntry]) -> LoadEntry:
    entry = next((entry for entry in reversed(history) if entry.figures is not None), None)
    if entry is None:
        raise LookupError("A load's history has no figures: a load is recorded with its first.")
    return entry

"""What the intake clerks' pages do (portal/intake/views/clerks.py), where a test reaches it
without HTTP: a clerk's sites and each site's loads; a passport's short code checked as the
look-up checks it (the same kept verdicts, the same allowance of the client address) and
found among the passports the portal knows; a load recorded with the claim's verdict at that
moment; a load corrected with a reason; a load as its clerk sees it, with its whole history.

A clerk reaches only the sites they are a clerk of, and the loads of those: any other site or
load is not found (404), as one that does not exist is.

Between the page that shows the record form and the form sent back, the verdict travels in
the form, signed with the portal's secret key (bound to the site and the code), so that sending
the form asks nothing of the service again; a verdict older than VERDICT_HOLDS is asked again
when the form comes back, so that no load is recorded with a stale one."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core import signing
from django.core.paginator import Page, Paginator
from django.db import IntegrityError, transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.http import HttpRequest, QueryDict
from django.shortcuts import get_object_or_404
from django.utils import formats, timezone
from django.utils.translation import gettext, ngettext
from django.utils.translation import gettext_lazy as _

from portal.accounts.lookup import LookupAccountMissing
from portal.assurance.errors import AssuranceError, Unavailable
from portal.audit import events as audit
from portal.intake import changes, loads
from portal.intake.access import sites_of
from portal.intake.forms import ClerkLoadForm, CorrectionForm, initial_of
from portal.intake.loads import Figures
from portal.intake.models import IntakeSite, Load, LoadEntry
from portal.intake.showing import ShownLoad, shown
from portal.lib import numbers
from portal.passports import gate_check, lookup
from portal.passports.models import Passport

PER_PAGE = 25
QUERIED_SHOWN = 50  # the most loads waiting for an answer a site's page lists
VERDICT_HOLDS = timedelta(hours=4)  # a verdict older than this is asked again when recording
SIGNED = "portal.intake.clerking.verdict"


# --- a clerk's sites and loads --------------------------------------------------------------------


def sites_of_clerk(user: AbstractBaseUser) -> list[IntakeSite]:
    return list(sites_of(user))


def site_of_clerk(user: AbstractBaseUser, code: str) -> IntakeSite:
    """The site of `code` if `user` is a clerk of it; not found otherwise."""
    return get_object_or_404(sites_of(user), code=code)


def load_of_clerk(user: AbstractBaseUser, pk: int) -> Load:
    """The load if `user` is a clerk of its site; not found otherwise."""
    found = Load.objects.filter(site__in=sites_of(user)).select_related("site", "passport")
    return get_object_or_404(found, pk=pk)


@dataclass(frozen=True)
class Row:
    """A load as its site's list shows it: its latest figures, and its latest entry's kind."""

    load: Load
    figures: Figures
    latest_kind: str

    @property
    def latest(self) -> str:
        if self.queried:
            return gettext("Queried by the grower")
        return str(LoadEntry.Kind(self.latest_kind).label)

    @property
    def queried(self) -> bool:
        """A query of the grower's waits for the clerk's answer."""
        return self.latest_kind == LoadEntry.Kind.QUERIED


@dataclass(frozen=True)
class Desk:
    """A site's page: today's loads; earlier ones, a page of them; those queried."""

    site: IntakeSite
    today: list[Row]
    earlier: Page
    queried: list[Row]
    queried_count: int


@dataclass(frozen=True)
class SiteSummary:
    site: IntakeSite
    today: int
    queried: int


def desk(site: IntakeSite, page_number: str | None) -> Desk:
    """The site's loads recorded today, newest first; the page `page_number` of those recorded
    before; and those whose grower's query waits for an answer."""
    start = _start_of_today()
    rows = _listed(site)
    earlier = Paginator(rows.filter(created__lt=start), PER_PAGE).get_page(
        numbers.page_number(page_number)
    )
    earlier.object_list = [_row(load) for load in earlier.object_list]
    queried = rows.filter(latest_kind=LoadEntry.Kind.QUERIED)
    return Desk(
        site=site,
        today=[_row(load) for load in rows.filter(created__gte=start)],
        earlier=earlier,
        queried=[_row(load) for load in queried[:QUERIED_SHOWN]],
        queried_count=queried.count(),
    )


def summaries(sites: list[IntakeSite]) -> list[SiteSummary]:
    """For a clerk of several sites: each with its loads today and its queries waiting."""
    start = _start_of_today()
    return [
        SiteSummary(
            site,
            Load.objects.filter(site=site, created__gte=start).count(),
            _listed(site).filter(latest_kind=LoadEntry.Kind.QUERIED).count(),
        )
        for site in sites
    ]


def _listed(site: IntakeSite) -> QuerySet[Load]:
    """The site's loads, newest first, each with its latest entry's kind and latest figures
    (one query, whatever the page's length)."""
    entries = LoadEntry.objects.filter(load=OuterRef("pk")).order_by("-at", "-pk")
    with_figures = entries.filter(figures__isnull=False)
    return (
        Load.objects.filter(site=site)
        .select_related("passport")
        .annotate(
            latest_kind=Subquery(entries.values("kind")[:1]),
            figures_now=Subquery(with_figures.values("figures")[:1]),
        )
    )


def _row(load: Any) -> Row:
    return Row(load, Figures.from_json(load.figures_now), load.latest_kind)


def _start_of_today() -> datetime:
    return timezone.localtime().replace(hour=0, minute=0, second=0, microsecond=0)


# --- a passport's code checked ----------------------------------------------------------------


@dataclass(frozen=True)
class KeptVerdict:
    """The passport's claim as the look-up gave it, as a load's record keeps it."""

    valid: bool
    status: str | None
    expiry: datetime | None
    checked_at: datetime

    @classmethod
    def of(cls, verdict: lookup.Verdict) -> KeptVerdict:
        passport = verdict.passport
        return cls(
            valid=verdict.is_valid,
            status=passport.status if passport else None,
            expiry=passport.expiry_date if passport else None,
            checked_at=datetime.fromtimestamp(verdict.asked_at, UTC),
        )

    @classmethod
    def from_json(cls, kept: dict) -> KeptVerdict:
        expiry = kept.get("expiry")
        return cls(
            valid=bool(kept.get("valid")),
            status=kept.get("status"),
            expiry=datetime.fromisoformat(expiry) if expiry else None,
            checked_at=datetime.fromisoformat(kept["checked_at"]),
        )

    def as_json(self) -> dict[str, object]:
        return {
            "valid": self.valid,
            "status": self.status,
            "expiry": self.expiry.isoformat() if self.expiry else None,
            "checked_at": self.checked_at.isoformat(),
        }

    @property
    def why_not(self) -> str:
        """Why the claim was not valid (as the gate check says it); "" if it was."""
        if self.valid:
            return ""
        if self.expiry and self.expiry <= self.checked_at:
            expired = formats.date_format(self.expiry, "DATE_FORMAT")
            return gettext("The certificate expired on %(date)s.") % {"date": expired}
        if self.status:
            return gettext("Its status is %(status)s.") % {"status": self.status}
        return gettext("The service shows nothing of a passport whose claim is not valid now.")

    @property
    def is_stale(self) -> bool:
        return timezone.now() - self.checked_at > VERDICT_HOLDS


@dataclass(frozen=True)
class Checked:
    """A code checked: the portal's record of its passport, and the claim's verdict."""

    passport: Passport
    verdict: KeptVerdict

    @property
    def essentials(self) -> list[tuple[str, str]]:
        """The passport's fields the gate check's table shows, by their labels."""
        record = self.passport.crop_passport
        shown = [(f.label, f.shown(getattr(record, f.name))) for f in gate_check.COLUMNS]
        return [(label, value) for label, value in shown if value]


@dataclass(frozen=True)
class Refused:
    """Why a code leads to no record form, as the page says it, with the page's status."""

    message: str
    status: int
    retry_after: int | None = None


NOT_SET_UP = _("Passports cannot be checked on this portal: it has no account for look-ups. "
               "Tell whoever runs the portal.")  # fmt: skip
UNAVAILABLE = _("The passport could not be checked: the Assurance service could not be "
                "reached. Try again in a minute.")  # fmt: skip


def check_code(request: HttpRequest, short_code: str) -> Checked | Refused:
    """The verdict on `short_code` (as codes.normalise gives it), counted against the client
    address's look-ups as `/p/<code>` counts it, and the portal's record of its passport."""
    allowance = lookup.take_a_look_up(request)
    if not allowance.granted:
        seconds = allowance.seconds
        return Refused(ngettext(
            "This connection has checked as many passports as it may for now. Try again in "
            "%(seconds)s second.",
            "This connection has checked as many passports as it may for now. Try again in "
            "%(seconds)s seconds.", seconds) % {"seconds": seconds}, 429, seconds)  # fmt: skip
    audit.record(audit.Kind.LOOK_UP, request, code=audit.code_hash(short_code))
    try:
        found = lookup.verdict(short_code, with_details=False)
    except LookupAccountMissing:
        return Refused(NOT_SET_UP, 503)
    except AssuranceError as error:
        wait = error.retry_after if isinstance(error, Unavailable) else None
        return Refused(UNAVAILABLE, 503, int(wait) if wait else None)
    if found is None:
        return Refused(
            gettext("No passport has the short code %(code)s.") % {"code": short_code}, 404
        )
    passport = Passport.objects.filter(short_code=short_code).first()
    if passport is None:
        return Refused(gettext(
            "The portal has no record of passport %(code)s: a load can be recorded here only of "
            "a passport made on this portal, or added to it by its code."
        ) % {"code": short_code}, 404)  # fmt: skip
    return Checked(passport, KeptVerdict.of(found))


# --- a load recorded --------------------------------------------------------------------------


@dataclass(frozen=True)
class Recording:
    """The record form of a code checked at a site; once sent, the load it recorded (or had
    recorded already: the same form sent twice), or why it recorded nothing."""

    site: IntakeSite
    checked: Checked
    form: ClerkLoadForm
    load: Load | None = None
    sent_twice: bool = False
    not_checked_again: Refused | None = None  # a stale verdict that could not be asked again

    @property
    def problem(self) -> str:
        """Why nothing was recorded, beyond the form's own refusals."""
        if self.not_checked_again is None:
            return ""
        return gettext(
            "Nothing was recorded: the passport's claim could not be checked again. %(why)s"
        ) % {"why": self.not_checked_again.message}

    @property
    def signed(self) -> str:
        """The code and its verdict, signed, for the form to carry back."""
        kept = {"site": self.site.pk, "code": self.checked.passport.short_code,
                "verdict": self.checked.verdict.as_json()}  # fmt: skip
        return signing.dumps(kept, salt=SIGNED)

    @property
    def said(self) -> str:
        """What the load's page says of it once recorded."""
        said = {"ticket": self.load.ticket, "site": self.site}
        if self.sent_twice:
            return gettext("Ticket %(ticket)s was recorded already: the form was sent twice, "
                           "and the load is recorded once.") % said  # fmt: skip
        return gettext("Recorded: ticket %(ticket)s at %(site)s.") % said


def record_form(site: IntakeSite, checked: Checked) -> Recording:
    """The empty form for a load of the passport checked, arrived now, in the vehicle the
    passport names (when it names one)."""
    now = timezone.localtime().strftime("%Y-%m-%d %H:%M")
    vehicle = checked.passport.crop_passport.vehicle_registration or ""
    form = ClerkLoadForm(initial={"arrival": now, "vehicle": vehicle},
                         **_made_for(site, checked.passport))  # fmt: skip
    return Recording(site, checked, form)


def record(request: HttpRequest, site: IntakeSite, data: QueryDict) -> Recording | Refused:
    """The load of the form sent, recorded at `site` with the verdict the form carries (asked
    again if it is stale); nothing recorded on any refused value."""
    kept = _unsigned(data.get("passport", ""), site)
    passport = Passport.objects.filter(short_code=kept["code"]).first() if kept else None
    if passport is None:
        return Refused(gettext("Look the passport up by its short code first."), 400)
    checked = Checked(passport, KeptVerdict.from_json(kept["verdict"]))
    form = ClerkLoadForm(data, **_made_for(site, passport))
    if not form.is_valid():
        return _refused(site, checked, form)
    if checked.verdict.is_stale:
        again = check_code(request, passport.short_code)
        if isinstance(again, Refused):
            return Recording(site, checked, form, not_checked_again=again)
        checked = again
    return _recorded(request, site, checked, form)


def _recorded(
    request: HttpRequest, site: IntakeSite, checked: Checked, form: ClerkLoadForm
) -> Recording:
    ticket, by = form.cleaned_data["ticket"], request.user.get_username()
    try:
        with transaction.atomic():
            load = loads.record(site, ticket, checked.passport, form.figures(), by=by,
                                verdict=checked.verdict.as_json())  # fmt: skip
    except IntegrityError:  # the ticket recorded a moment ago, by another request
        form.add_error("ticket", gettext(
            "Ticket %(ticket)s was recorded at %(site)s a moment ago: correct that load instead."
        ) % {"ticket": ticket, "site": site})  # fmt: skip
        return _refused(site, checked, form)
    return Recording(site, checked, form, load)


def _refused(site: IntakeSite, checked: Checked, form: ClerkLoadForm) -> Recording:
    """The form refused; or, if it was refused for its ticket alone and this very form
    recorded the load already (sent twice), that load."""
    recorded = _sent_twice(site, checked.passport, form)
    return Recording(site, checked, form, recorded, sent_twice=recorded is not None)


def _made_for(site: IntakeSite, passport: Passport) -> dict[str, Any]:
    return {"site": site, "crop": passport.crop_type, "loaded": passport.loading_date}


def _unsigned(signed: str, site: IntakeSite) -> dict | None:
    try:
        kept = signing.loads(signed, salt=SIGNED)
    except signing.BadSignature:
        return None
    return kept if isinstance(kept, dict) and kept.get("site") == site.pk else None


def _sent_twice(site: IntakeSite, passport: Passport, form: ClerkLoadForm) -> Load | None:
    """The load this very form recorded already (its ticket, its passport, its figures), if
    the form was refused for its ticket alone."""
    if set(form.errors) != {"ticket"}:
        return None
    ticket = str(form["ticket"].value() or "").strip()
    load = Load.objects.filter(site=site, ticket=ticket, passport=passport).first()
    if load is not None and loads.latest_figures(load) == form.figures():
        return load
    return None


# --- a load corrected -------------------------------------------------------------------------


@dataclass(frozen=True)
class Correcting:
    load: Load
    form: CorrectionForm
    entry: LoadEntry | None = None

    @property
    def said(self) -> str:
        return gettext("Corrected: ticket %(ticket)s. The history keeps the record before it.") % {
            "ticket": self.load.ticket
        }


def correction_form(load: Load) -> Correcting:
    """The load's form filled in with its latest figures, to correct."""
    initial = initial_of(loads.latest_figures(load))
    return Correcting(load, CorrectionForm(initial=initial, **_correcting(load)))


def correct(request: HttpRequest, load: Load, data: QueryDict) -> Correcting:
    """The load corrected as the form says, with its reason: a new entry; nothing on any
    refused value, nor when nothing changed."""
    form = CorrectionForm(data, initial={"ticket": load.ticket}, **_correcting(load))
    if not form.is_valid():
        return Correcting(load, form)
    entry = loads.correct(load, form.figures(), by=request.user.get_username(),
                          reason=form.cleaned_data["reason"].strip())  # fmt: skip
    return Correcting(load, form, entry)


def _correcting(load: Load) -> dict[str, Any]:
    return _made_for(load.site, load.passport) | {"load": load}


# --- a load's page ------------------------------------------------------------------------------


@dataclass(frozen=True)
class LoadPage:
    shown: ShownLoad
    checked: Checked | None  # None: no verdict was kept with its record
    history: list[changes.Step]

    @property
    def queried(self) -> bool:
        return bool(self.history) and self.history[-1].entry.kind == LoadEntry.Kind.QUERIED


def load_page(load: Load) -> LoadPage:
    """The load as its clerk sees it: its latest figures, each result beside the site's
    specification, its claims, the verdict kept with its record, and its whole history."""
    seen = shown(load)
    first = seen.history[0] if seen.history else None
    checked = None
    if first is not None and first.verdict:
        checked = Checked(load.passport, KeptVerdict.from_json(first.verdict))
    return LoadPage(seen, checked, seen.steps)

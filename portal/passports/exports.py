"""Exports of many passports, made by a job (the `passport-export` kind, portal.passports.tasks):
one ZIP of their PDFs, each named by its short code, with their records as `passports.csv` and
`passports.xlsx`; or one PDF of them all in order, for printing (a batch's).

The passports are chosen when the export is asked for (those ticked, or every one that matches
the list's filters), within PORTAL_EXPORT_LIMIT; those the user may no longer see when the job
runs are left out, and the job says so.
"""

from __future__ import annotations

import hashlib

from django.conf import settings
from django.db.models import QuerySet
from django.http import HttpRequest
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from portal.audit import events as audit
from portal.jobs import actions
from portal.jobs.models import Job
from portal.passports import listing
from portal.passports.models import Passport
from portal.passports.tasks import PDF, ZIP, passport_export

FORMATS = (ZIP, PDF)


def limit(fmt: str) -> int:
    """The most passports one export of `fmt` takes: one PDF to print is a batch's."""
    return settings.PORTAL_BATCH_LIMIT if fmt == PDF else settings.PORTAL_EXPORT_LIMIT


def ticked(passports: QuerySet[Passport], typed: list[str]) -> tuple[list[int], str]:
    """The ids of the passports ticked, of `passports` (those the user may see), as made; and
    why they cannot be exported ("" if they can): none ticked, or some that are not the
    business's (or no passport's)."""
    found = listing.ticked(passports, typed)
    chosen = listing.ids_as_made(found.passports)
    if not typed:
        return chosen, _("Nothing was exported: tick the passports to export, or export every "
                         "one that matches the filters.")  # fmt: skip
    if len(chosen) != found.codes:
        return chosen, _("Nothing was exported: some of the passports ticked are not among your "
                         "business's passports. Tick them again from the list.")  # fmt: skip
    return chosen, ""


def refusal(fmt: str, count: int) -> str:
    """Why an export of `count` passports as `fmt` cannot be made, or ""."""
    if fmt not in FORMATS:
        return _("Nothing was exported: choose a ZIP of the passports, or one PDF to print.")
    if count == 0:
        return _("Nothing was exported: no passport matches the filters.")
    if count > limit(fmt):
        numbers = {"limit": f"{limit(fmt):,}", "count": f"{count:,}"}
        if fmt == PDF:
            return _("Nothing was exported: One PDF to print takes at most %(limit)s passports, "
                     "and these are %(count)s. Narrow the filters (a harvest year, or loading "
                     "dates) and export them in parts.") % numbers  # fmt: skip
        return _("Nothing was exported: An export takes at most %(limit)s passports, and these "
                 "are %(count)s. Narrow the filters (a harvest year, or loading dates) and export "
                 "them in parts.") % numbers  # fmt: skip
    return ""


def start(request: HttpRequest, fmt: str, passport_ids: list[int]) -> Job:
    """The signed-in user's export of these passports (their ids, in the order they are
    exported): a new job, or theirs of the same passports and format under way or done; the
    asking recorded in the audit trail."""
    count = len(passport_ids)

    def title() -> str:
        if fmt == PDF:
            said = ngettext("%(count)s passport as one PDF to print",
                            "%(count)s passports as one PDF to print", count)  # fmt: skip
        else:
            said = ngettext("%(count)s passport as a ZIP", "%(count)s passports as a ZIP", count)
        return said % {"count": f"{count:,}"}

    chosen = hashlib.sha256(",".join(map(str, passport_ids)).encode()).hexdigest()[:32]
    params = {"format": fmt, "passports": passport_ids}
    job = actions.start_job(request, passport_export, title, params,
                            dedupe_key=f"{passport_export.name}:{fmt}:{chosen}")  # fmt: skip
    audit.record(audit.Kind.EXPORT_REQUESTED, request, job=job.pk, format=fmt, passports=count)
    return job

"""A passport's page and its PDF, for the contacts of its membership: anyone else finds neither
(the portal's 404 page, as for a code that does not exist).

A passport the portal has recorded is read from its own record; one made elsewhere is asked of
the service with the user's credentials. Its PDF is a job of the user's (portal.passports.pdfs),
started when the passport was made here or when the user asks for it (a POST), and shown on the
page by the jobs' progress fragment, which htmx polls until the job has ended.
"""

from __future__ import annotations

import time

from django.contrib.auth.decorators import login_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext
from django.views.decorators.http import require_http_methods, require_safe
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from portal.accounts.session import user_credentials
from portal.assurance import records
from portal.assurance.errors import StatusNotValid
from portal.assurance.service import client
from portal.audit import events as audit
from portal.jobs.models import Job
from portal.jobs.views import progress_fragment, result_response
from portal.lib.htmx import wants_fragment
from portal.passports import codes, contacts, mailing, pdfs
from portal.passports.lookup import Verdict
from portal.passports.models import Passport
from portal.passports.qr import qr_svg
from portal.passports.sheet import sheet
from portal.passports.signing import signed_qr

TEMPLATE = "passports/passport.html"
PDF_FRAGMENT = f"{TEMPLATE}#passport-pdf"


@require_safe
@login_required
def passport(request: HttpRequest, code: str) -> HttpResponse:
    short_code = _short_code(code)
    if short_code != code:
        return redirect("passports:passport", short_code)
    try:
        found = _passport_for_contact(request, short_code)
    except StatusNotValid:
        # As the public look-up says it: not valid now, the code, and nothing else.
        context = {"verdict": Verdict(short_code, None, time.time())}
        return render(request, "passports/verdict.html", context)
    context = _page(request, short_code, found) | {"job": pdfs.latest(request, short_code)}
    return render(request, TEMPLATE, context | _mail(request, short_code))


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@vary_on_headers("HX-Request")
def pdf(request: HttpRequest, code: str) -> HttpResponse:
    """GET: the PDF, once its job has it (the page until then). POST: ask for it (the first
    time, or again after a failed fetch), answered with the fragment for htmx or the page
    without."""
    short_code = _short_code(code)
    try:
        _passport_for_contact(request, short_code)
    except StatusNotValid:
        return _to_page(request, short_code)
    if request.method == "POST":
        job = pdfs.start(request, short_code)
        if wants_fragment(request):
            return _pdf_fragment(request, short_code, job)
        return _to_page(request, short_code)
    job = pdfs.latest(request, short_code)
    if job is None or job.state != Job.State.DONE:
        return _to_page(request, short_code)
    audit.record(audit.Kind.PDF_DOWNLOADED, request, code=audit.code_hash(short_code))
    return result_response(job)


@require_safe
@login_required
def pdf_state(request: HttpRequest, code: str) -> HttpResponse:
    """The PDF's fragment, polled by the page while its job is under way. A user has a job for
    the passport only once its creation or their request on its page found them a contact; its
    file is served by `pdf` alone, which checks again."""
    short_code = _short_code(code)
    job = pdfs.latest(request, short_code)
    if job is None:
        raise Http404("No PDF of this passport has been asked for.")
    return _pdf_fragment(request, short_code, job)


def _short_code(code: str) -> str:
    short_code = codes.normalise(code)
    if short_code is None:
        raise Http404("No passport has this short code.")
    return short_code


def _passport_for_contact(request: HttpRequest, short_code: str) -> records.CropPassport:
    """The passport, if the user is a contact of its membership; Http404 (or the client's
    NotFound) otherwise. Raises StatusNotValid for a passport made elsewhere whose claim is not
    valid now (the service shows it to no one then)."""
    recorded = Passport.objects.filter(short_code=short_code).first()
    if recorded is not None:
        found = recorded.crop_passport
        membership_guid = recorded.membership_guid
    else:
        found = client().passport(user_credentials(request), short_code)
        membership_guid = found.membership_guid
    if not contacts.is_contact(request, membership_guid):
        raise Http404("No passport has this short code.")
    return found


def _page(request: HttpRequest, short_code: str, found: records.CropPassport) -> dict:
    first, _, second = short_code.partition("-")
    look_up = request.build_absolute_uri(reverse("checks:verdict", args=[short_code]))
    # The QR code holds the passport's signed code; where codes are not signed, its look-up.
    signed = signed_qr(request, found)
    label = gettext("QR code of the passport's look-up address, %(address)s") % {"address": look_up}
    return {
        "passport": found,
        "short_code": short_code,
        "groups": [first, second],
        "spelt": ", ".join(" ".join(group) for group in (first, second)),
        "sheet": sheet(found),
        "look_up": look_up,
        "qr": signed.svg if signed else qr_svg(look_up, label),
        "signed_address": signed.address if signed else "",
    }


def _mail(request: HttpRequest, short_code: str) -> dict:
    """Whether the passport can be sent by e-mail, and its mailings so far; only a passport the
    portal has recorded (`recorded`: who made it, when) is sent (one made elsewhere is added to
    the list first)."""
    recorded = Passport.objects.filter(short_code=short_code).first()
    if recorded is None:
        return {"mailable": False}
    return {"mailable": True, "mailings": mailing.sent_of(recorded), "recorded": recorded}


def _pdf_fragment(request: HttpRequest, short_code: str, job: Job) -> HttpResponse:
    return progress_fragment(request, job, PDF_FRAGMENT, {"short_code": short_code})


def _to_page(request: HttpRequest, short_code: str) -> HttpResponse:
    address = reverse("passports:passport", args=[short_code])
    if wants_fragment(request):
        return HttpResponseClientRedirect(address)
    return redirect(address)

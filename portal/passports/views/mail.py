"""Passports sent by e-mail (`/passports/send`): the form for the passports named by `code`
(opened from a passport's page, a finished batch, the passports ticked in the list), clean until
it is sent; the form sent back (with its one-time `key`), sent by a job
(portal.passports.mailing), then the job's page. With htmx, the form alone: opened in the
passport's page, and sent back in place with what is wrong."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers
from django_htmx.http import HttpResponseClientRedirect

from portal.lib.htmx import wants_fragment
from portal.passports import mailing
from portal.passports.mailing import MailForm
from portal.passports.models import Passport

TEMPLATE = "passports/send.html"
FRAGMENT = "passports/mail_form.html"


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@vary_on_headers("HX-Request")
def send(request: HttpRequest) -> HttpResponse:
    sending = request.method == "POST" and "key" in request.POST
    data = request.POST if request.method == "POST" else request.GET
    passports, problem = mailing.chosen(request, data.getlist("code"))
    if not sending:  # the passports chosen (a passport's, ticked in the list, a batch's)
        return _page(request, passports, MailForm.blank(request), problem)
    form = MailForm(request.POST)
    if problem:
        form.add_error(None, problem)
    if not form.is_valid():
        return _page(request, passports, form, problem)
    sent = mailing.send(request, passports, form)
    if isinstance(sent, str):
        form.add_error(None, sent)
        return _page(request, passports, form, problem, status=429)
    if sent.job_id is None:  # sent long ago, its job since removed
        return _redirect(request, reverse("passports:passport", args=[passports[0].short_code]))
    return _redirect(request, reverse("jobs:job", args=[sent.job_id]))


def _page(
    request: HttpRequest, passports: list[Passport], form: MailForm, problem: str,
    status: int | None = None,
) -> HttpResponse:  # fmt: skip
    context = {"mailed": passports, "mail_form": form, "problem": problem}
    bad = problem or (form.is_bound and form.errors)
    template = TEMPLATE
    if wants_fragment(request):
        template = FRAGMENT
        if not form.is_bound:  # opened in place of the link that asked for it
            form.fields["recipient"].widget.attrs["autofocus"] = True
    return render(request, template, context, status=status or (400 if bad else 200))


def _redirect(request: HttpRequest, to: str) -> HttpResponse:
    if wants_fragment(request):
        return HttpResponseClientRedirect(to)
    return HttpResponseRedirect(to, status=303)

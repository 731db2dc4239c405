"""The public look-up of a passport by its short code (`/p/`, `/p/<short code>`), for anyone,
signed in or not, through the portal's look-up account. (Django's request log names the path of
every 4xx and 5xx answer: portal.passports.logs masks the code in it.)"""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from portal.accounts.lookup import LookupAccountMissing
from portal.assurance.errors import AssuranceError, Unavailable
from portal.audit import events as audit
from portal.passports import codes
from portal.passports.forms import LookUpForm
from portal.passports.lookup import Allowance, take_a_look_up, verdict


@require_safe
def look_up(request: HttpRequest) -> HttpResponse:
    """The form; a code sent with it goes to its verdict's address."""
    if "code" not in request.GET:
        return render(request, "passports/look_up.html", {"form": LookUpForm()})
    form = LookUpForm(request.GET)
    if not form.is_valid():
        return render(request, "passports/look_up.html", {"form": form}, status=400)
    typed = form.cleaned_data["code"]
    # A malformed code goes to an address too (of its letters and digits: no `..` or `/`
    # that a browser would resolve elsewhere), to be answered there as an unknown one is.
    address = codes.normalise(typed) or re.sub(r"[^\w-]", "", typed.upper()) or "-"
    return redirect(reverse("passports:verdict", args=[address]))


@require_safe
def passport_verdict(request: HttpRequest, code: str) -> HttpResponse:
    """The verdict on the passport with this short code, at its canonical address."""
    short_code = codes.normalise(code.removesuffix("/"))  # a slash a reader added, too
    if short_code and short_code != code:
        return redirect("passports:verdict", short_code)
    allowance = take_a_look_up(request)
    if not allowance.granted:
        return _too_many(request, allowance)
    audit.record(audit.Kind.LOOK_UP, request, code=audit.code_hash(short_code or code))
    try:
        found = verdict(short_code) if short_code else None
    except LookupAccountMissing:
        return _unavailable(request, {"not_set_up": True})
    except AssuranceError as error:
        retry_after = error.retry_after if isinstance(error, Unavailable) else None
        response = _unavailable(request, {"retry_after": retry_after})
        if retry_after:
            response["Retry-After"] = str(int(retry_after))
        return response
    if found is None:
        context = {"form": LookUpForm()}
        return render(request, "passports/not_found.html", context, status=404)
    context = {"verdict": found, "passport": found.passport}
    return render(request, "passports/verdict.html", context)


def _too_many(request: HttpRequest, allowance: Allowance) -> HttpResponse:
    """The 429 page: the address has looked up as many passports as it may for now."""
    context = {"seconds": allowance.seconds}
    response = render(request, "passports/too_many.html", context, status=429)
    response["Retry-After"] = str(allowance.seconds)
    return response


def _unavailable(request: HttpRequest, context: dict) -> HttpResponse:
    return render(request, "passports/unavailable.html", context, status=503)

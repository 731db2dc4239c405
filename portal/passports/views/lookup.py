"""The public look-up of a passport by its short code (`/p/`, `/p/<short code>`), for anyone,
signed in or not, through the portal's look-up account. (Django's request log names the path of
every 4xx and 5xx answer: portal.passports.logs masks the code in it.)"""

from __future__ import annotations

import re

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_safe

from portal.passports import codes
from portal.passports.forms import LookUpForm
from portal.passports.lookup import Allowance, look_up_now


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
    return redirect(reverse("checks:verdict", args=[address]))


@require_safe
def passport_verdict(request: HttpRequest, code: str) -> HttpResponse:
    """The verdict on the passport with this short code, at its canonical address."""
    short_code = codes.normalise(code.removesuffix("/"))  # a slash a reader added, too
    if short_code and short_code != code:
        return redirect("checks:verdict", short_code)
    looked_up = look_up_now(request, short_code, code)
    if looked_up.refused:
        return _too_many(request, looked_up.refused)
    if looked_up.not_set_up:
        return _unavailable(request, {"not_set_up": True})
    if looked_up.unavailable:
        response = _unavailable(request, {"retry_after": looked_up.retry_seconds})
        if looked_up.retry_after:
            response["Retry-After"] = str(int(looked_up.retry_after))
        return response
    found = looked_up.verdict
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

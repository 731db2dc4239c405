from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_POST

from portal.accounts import throttle
from portal.accounts.forms import SignInForm
from portal.accounts.session import safe_next, sign_in, sign_out
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationFailed,
    LockoutActive,
    LockoutWarning,
)

FAILED = "The username or password is not right. Check them and try again."
WARNING = (
    "The username or password is not right. One more failure locks sign-in for a while, "
    "so check them carefully."
)
LOCKED = "Sign-in is locked for a while after repeated failures. Please try again later."
THROTTLED = "Too many sign-in attempts. Please wait a few minutes before trying again."
UNAVAILABLE = (
    "The Assurance service cannot be reached just now, so nobody can sign in. "
    "Please try again in a minute."
)


@sensitive_post_parameters("password")
@csrf_protect
@never_cache
def sign_in_page(request: HttpRequest) -> HttpResponse:
    next_path = safe_next(request, request.POST.get("next") or request.GET.get("next"))
    if request.user.is_authenticated and request.method != "POST":
        return redirect(next_path or "home")
    form = SignInForm(request.POST or None)
    status = 200
    if request.method == "POST" and form.is_valid():
        username, password = form.cleaned_data["username"], form.cleaned_data["password"]
        error, status = _attempt(request, username, password)
        if error is None:
            return HttpResponseRedirect(next_path or reverse("home"))
        form.add_error(None, error)
    elif request.method == "POST":
        status = 400
    context = {"form": form, "next": next_path or ""}
    return render(request, "accounts/sign_in.html", context, status=status)


def _attempt(request: HttpRequest, username: str, password: str) -> tuple[str | None, int]:
    """Signs in; returns the message to show and the status, or (None, 200) on success."""
    if not throttle.allows(request, username):
        return THROTTLED, 429
    try:
        sign_in(request, username, password)
    except LockoutWarning:
        return WARNING, 400
    except AuthenticationFailed:
        return FAILED, 400
    except LockoutActive:
        return LOCKED, 429
    except AssuranceError:
        return UNAVAILABLE, 503
    throttle.forget_username(username)
    return None, 200


@require_POST
@csrf_protect
def sign_out_page(request: HttpRequest) -> HttpResponse:
    sign_out(request)
    messages.success(request, "You have signed out.")
    return redirect("accounts:sign-in")

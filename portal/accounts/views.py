from __future__ import annotations

import math
from dataclasses import replace

from django.conf import settings
from django.contrib import admin, messages
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import translation
from django.utils.translation import gettext as _
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from portal.accounts import language, lockout, preferences, refusals, service_lockout
from portal.accounts.forms import SignInForm
from portal.accounts.service_lockout import SignInRefused, Standing
from portal.accounts.session import safe_next, sign_in, sign_in_url, sign_out
from portal.assurance.errors import (
    AssuranceError,
    AuthenticationFailed,
    LockoutActive,
    LockoutWarning,
)
from portal.audit import events as audit
from portal.lib.client_address import client_address

# Of limits as tight as each other, the one a message names: the service's lockout, then the
# portal's lockout of the account, then the service's count, then the pace of attempts.
NAMED_FIRST = [service_lockout.LOCKOUT, lockout.ACCOUNT, service_lockout.SHARED,
               service_lockout.ADDRESS, lockout.PACE]  # fmt: skip


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
            return _signed_in(request, next_path or reverse("home"))
        form.add_error(None, error)
    elif request.method == "POST":
        status = 400
    context = {"form": form, "next": next_path or ""}
    return render(request, "accounts/sign_in.html", context, status=status)


def _signed_in(request: HttpRequest, page: str) -> HttpResponse:
    """On to the page the person was going to, in the language they chose (if they have)."""
    chosen = preferences.language(request.user)
    if not chosen:
        return HttpResponseRedirect(page)
    return language.remember(HttpResponseRedirect(language.page_in(chosen, page, request)), chosen)


def _attempt(request: HttpRequest, username: str, password: str) -> tuple[str | None, int]:
    """Signs in; returns the message to show and the status, or (None, 200) on success."""
    try:
        sign_in(request, username, password)
    except (SignInRefused, LockoutActive) as refusal:
        by = "portal" if isinstance(refusal, SignInRefused) else "service"
        audit.record(audit.Kind.LOCKOUT_MET, request, username=username[:150], by=by)
        refused_by = refusal.limit if isinstance(refusal, SignInRefused) else None
        return refusals.locked(_tightest(request, username, refused_by)), 429
    except AuthenticationFailed as failure:
        audit.record(audit.Kind.SIGN_IN_FAILED, request, username=username[:150])
        warned = isinstance(failure, LockoutWarning)
        return refusals.failed(_tightest(request, username), warned), 400
    except AssuranceError:
        return _(refusals.UNAVAILABLE), 503
    return None, 200


def _tightest(request: HttpRequest, username: str, refused_by: str | None = None) -> Standing:
    """The limit a sign-in by `username` from the request's address meets first: the fewest
    tries left, and of those the longest wait (`refused_by`, the limit that has just refused
    it, with none left)."""
    standings = [
        *service_lockout.standing(client_address(request)),
        *lockout.standing(request, username),
    ]
    standings = [replace(s, tries=0) if s.limit == refused_by else s for s in standings]
    return min(standings, key=lambda s: (s.tries, -_minutes(s.seconds), NAMED_FIRST.index(s.limit)))


def _minutes(seconds: float | None) -> float:
    return math.inf if seconds is None else math.ceil(seconds / 60)


def admin_sign_in(request: HttpRequest) -> HttpResponse:
    """Where Django's admin sends whoever it does not let in. Staff sign in like everyone else,
    through the service; a signed-in user who is not staff gets the 403 page."""
    next_path = safe_next(request, request.GET.get("next"))
    if not request.user.is_authenticated:
        return redirect(sign_in_url(next_path))
    if admin.site.has_permission(request):
        return redirect(next_path or "admin:index")
    raise PermissionDenied


@require_POST
@csrf_protect
def sign_out_page(request: HttpRequest) -> HttpResponse:
    sign_out(request)
    messages.success(request, _("You have signed out."))
    return redirect("accounts:sign-in")


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
def your_account(request: HttpRequest) -> HttpResponse:
    """The user's own settings (portal.accounts.preferences): saved, then shown again with a
    word that they are; or shown with what is wrong beside its field, nothing saved."""
    data = request.POST if request.method == "POST" else None
    form = preferences.PreferencesForm(data, instance=preferences.of(request.user))
    if request.method == "POST" and form.is_valid():
        chosen = form.save().language or translation.get_language()
        with translation.override(chosen):
            messages.success(request, _("Your settings are saved."))
            page = reverse("accounts:you")
        return language.remember(redirect(page), chosen)
    status = 400 if form.errors else 200
    return render(request, "accounts/you.html", {"form": form}, status=status)


@require_http_methods(["GET", "HEAD"])
@never_cache
def choose_language(request: HttpRequest, code: str) -> HttpResponse:
    """The language switch's link: the choice kept, and the page the person was on (`next`) in
    the language chosen."""
    if code not in dict(settings.LANGUAGES):
        raise Http404("No such language.")
    page = language.page_in(code, request.GET.get("next", ""), request)
    return language.remember(redirect(page), code)

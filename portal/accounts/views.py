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
from django.utils.translation import gettext_noop, ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_protect
from django.views.decorators.debug import sensitive_post_parameters
from django.views.decorators.http import require_http_methods, require_POST

from portal.accounts import language, lockout, preferences, service_lockout
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

# The sign-in page's messages, in English as the catalogue has them (each a whole sentence or
# two, translated where it is shown), for the tests to read as well.
WRONG = gettext_noop("The username or password is not right.")
FAILED = gettext_noop("The username or password is not right. Check them and try again.")
LOCKED_TO_NEW = gettext_noop(
    "After repeated failed sign-ins on this portal, only passwords that have worked here before "
    "are accepted for now, until someone signs in with one. If you have signed in here before, "
    "your usual password still works."
)
LOCKED_TO_NEW_FROM_ADDRESS = gettext_noop(
    "After repeated failed sign-ins from your address, only passwords that have worked here "
    "before are accepted from it for %(duration)s. If you have signed in here before, your usual "
    "password still works."
)
LOCKED_FROM_ADDRESS = gettext_noop(
    "Sign-in from your address is locked for %(duration)s after repeated failures. If you have "
    "signed in here before, your usual password still works."
)
LOCKED_ACCOUNT = gettext_noop(
    "Sign-in to this account from your address is locked for %(duration)s after repeated "
    "failures. If you have signed in here before, your usual password still works."
)
LOCKED_BY_SERVICE_FROM_ADDRESS = gettext_noop(
    "The Assurance service has locked sign-in from your address for %(duration)s after "
    "repeated failures."
)
LOCKED_BY_SERVICE_FOR_EVERYONE = gettext_noop(
    "The Assurance service has locked sign-in for everyone on this portal for %(duration)s "
    "after repeated failures."
)
UNAVAILABLE = gettext_noop(
    "The Assurance service cannot be reached just now, so nobody can sign in. "
    "Please try again in a minute."
)
LOCKED = {
    lockout.PACE: LOCKED_FROM_ADDRESS,
    lockout.ACCOUNT: LOCKED_ACCOUNT,
    service_lockout.ADDRESS: LOCKED_TO_NEW_FROM_ADDRESS,
    service_lockout.SHARED: LOCKED_TO_NEW,
}
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
        return _locked(_tightest(request, username, refused_by)), 429
    except AuthenticationFailed as failure:
        audit.record(audit.Kind.SIGN_IN_FAILED, request, username=username[:150])
        warned = isinstance(failure, LockoutWarning)
        return _failed(_tightest(request, username), warned), 400
    except AssuranceError:
        return _(UNAVAILABLE), 503
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


def _failed(standing: Standing, warned: bool) -> str:
    """A wrong password's message; with the tries left once they are few or the service warns.
    Each part is a whole sentence (or two), so that they may follow one another."""
    if standing.tries == 0:
        return f"{_(WRONG)} {_locked(standing)}"
    if not (warned or standing.tries == 1):
        return _(FAILED)
    return f"{_(WRONG)} {_tries_left(standing)}"


def _tries_left(standing: Standing) -> str:
    """How many tries are left before the limit `standing` is met, and what then."""
    tries = standing.tries
    if standing.limit == service_lockout.SHARED:
        said = ngettext(
            "You have one more try before only passwords that have worked here before are "
            "accepted.",
            "You have %(tries)s more tries before only passwords that have worked here before "
            "are accepted.",
            tries,
        )
    elif standing.limit == service_lockout.ADDRESS:
        said = ngettext(
            "You have one more try before only passwords that have worked here before are "
            "accepted from your address.",
            "You have %(tries)s more tries before only passwords that have worked here before "
            "are accepted from your address.",
            tries,
        )
    elif standing.limit == lockout.ACCOUNT:
        said = ngettext(
            "You have one more try before sign-in to this account from your address is locked "
            "for %(duration)s.",
            "You have %(tries)s more tries before sign-in to this account from your address is "
            "locked for %(duration)s.",
            tries,
        )
    else:
        said = ngettext(
            "You have one more try before sign-in from your address is locked for %(duration)s.",
            "You have %(tries)s more tries before sign-in from your address is locked for "
            "%(duration)s.",
            tries,
        )
    return said % {"tries": tries, "duration": _in_words(standing.seconds)}


def _locked(standing: Standing) -> str:
    """Why sign-in is refused now, and for how long."""
    if standing.limit == service_lockout.LOCKOUT:
        forwarded = settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS
        said = LOCKED_BY_SERVICE_FROM_ADDRESS if forwarded else LOCKED_BY_SERVICE_FOR_EVERYONE
    else:
        said = LOCKED[standing.limit]
    if standing.limit == service_lockout.SHARED:
        return _(said)
    return _(said) % {"duration": _in_words(standing.seconds)}


def _in_words(seconds: float | None) -> str:
    """A duration as a person would say it: "about 15 minutes"."""
    minutes = max(1, math.ceil((seconds or 0) / 60))
    if minutes < 60:
        return ngettext("about a minute", "about %(minutes)s minutes", minutes) % {
            "minutes": minutes
        }
    hours = round(minutes / 60)
    return ngettext("about an hour", "about %(hours)s hours", hours) % {"hours": hours}


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

"""The home page, the memberships panel and the error pages."""

from __future__ import annotations

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.vary import vary_on_headers

from portal.accounts.session import user_credentials
from portal.assurance.errors import AssuranceError, Unavailable
from portal.upstream import client


def health(request: HttpRequest) -> HttpResponse:
    """For load balancers and monitors: the portal's process answers."""
    return HttpResponse("ok\n", content_type="text/plain; charset=utf-8")


@login_required
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "home.html")


@login_required
@vary_on_headers("HX-Request")
def memberships(request: HttpRequest) -> HttpResponse:
    """The user's memberships and the state of their assurance claims."""
    authorisation = client().authorisation(user_credentials(request))
    context = {"memberships": authorisation.memberships}
    template = "home.html#memberships" if request.htmx else "memberships.html"
    return render(request, template, context)


def service_unavailable(request: HttpRequest, error: AssuranceError) -> HttpResponse:
    """The page for an upstream that cannot be reached (or answers what cannot be read)."""
    retry_after = error.retry_after if isinstance(error, Unavailable) else None
    context = {"retry_url": _page_path(request), "retry_after": retry_after}
    response = _error_page(request, "errors/503.html", context, 503)
    if retry_after:
        response["Retry-After"] = str(int(retry_after))
    return response


def bad_request(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "errors/400.html", status=400)


def permission_denied(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return render(request, "errors/403.html", status=403)


def csrf_failure(request: HttpRequest, reason: str = "") -> HttpResponse:
    return render(request, "errors/403_csrf.html", status=403)


def page_not_found(request: HttpRequest, exception: Exception | None = None) -> HttpResponse:
    return _error_page(request, "errors/404.html", {}, 404)


def _page_path(request: HttpRequest) -> str:
    """The page the user is on: for an htmx request, the one that made it."""
    current = request.htmx.current_url_abs_path if request.htmx else None
    return current or request.get_full_path()


def _error_page(request: HttpRequest, template: str, context: dict, status: int) -> HttpResponse:
    """The error page; for an htmx request, its message alone, put inside the element that
    asked (htmx is configured to swap error answers)."""
    if request.htmx and not request.htmx.boosted:
        response = render(request, f"{template}#message", context, status=status)
        response["HX-Reswap"] = "innerHTML"
        return response
    return render(request, template, context, status=status)


def server_error(request: HttpRequest) -> HttpResponse:
    return render(request, "errors/500.html", status=500)

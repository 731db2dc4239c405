"""The webhooks pages (`/webhooks/`): a user's endpoints, of each business they are a contact of
and each intake site they are a clerk of; registering one (its secret shown once); an
endpoint's page with its delivery log, "Send a test event", "Roll the secret", disabling, and
"Send again all that failed since"; a delivery's page with its attempts and "Resend". What each
does is portal.outbox's; who may, portal.webhooks.access's."""

from __future__ import annotations

from datetime import datetime, time

from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from portal.accounts import credentials
from portal.lib.htmx import wants_fragment
from portal.outbox import endpoints, events, reasons
from portal.outbox.models import Delivery
from portal.webhooks import access
from portal.webhooks.forms import EndpointForm, FailedSinceForm

LOG_PAGE = 25
SECRET_SHOWN = "webhooks-secret-{pk}"  # noqa: S105 (the session's key of a secret shown once)


@require_safe
@login_required
def index(request: HttpRequest) -> HttpResponse:
    owners = access.owners_of(request)
    kept = access.endpoints_of(owners).select_related("site")
    listed = [(choice, [e for e in kept if _owned_by(e, choice)]) for choice in owners]
    return render(request, "webhooks/index.html", {"owners": listed})


@require_http_methods(["GET", "HEAD", "POST"])
@login_required
@never_cache
def new(request: HttpRequest) -> HttpResponse:
    owners = access.owners_of(request)
    if request.method != "POST":
        form = EndpointForm(owners=owners, initial={"owner": request.GET.get("owner", "")})
        return render(request, "webhooks/new.html", {"form": form, "owners": owners})
    form = EndpointForm(request.POST, owners=owners)
    if not form.is_valid():
        return render(request, "webhooks/new.html", {"form": form, "owners": owners}, status=400)
    data = form.cleaned_data
    made, secret = endpoints.register(
        form.chosen_owner.owner, data["url"], data["event_types"], data["description"],
        request.user, request=request,
    )  # fmt: skip
    _to_show_once(request, made.pk, secret)
    return redirect("webhooks:endpoint", made.pk)


@require_safe
@login_required
@never_cache
@vary_on_headers("HX-Request")
def endpoint(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.endpoint_of(request, pk)
    log = Paginator(
        found.deliveries.select_related("event").prefetch_related("attempts"), LOG_PAGE
    ).get_page(request.GET.get("page"))
    context = {
        "endpoint": found, "owner_name": access.owner_name(found), "log": log,
        "disabled_reason": reasons.reason_in_words(found.disabled_reason),
        "waiting": any(d.state == Delivery.State.PENDING for d in log),
        "secret": _shown_once(request, pk),
        "failed_since_form": FailedSinceForm(initial={"since": timezone.localdate()}),
    }  # fmt: skip
    template = "webhooks/endpoint.html"
    return render(request, f"{template}#log" if wants_fragment(request) else template, context)


@require_POST
@login_required
def send_test(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.endpoint_of(request, pk)
    if not found.enabled:
        messages.error(request, _("This endpoint is disabled: enable it to send a test event."))
    elif not events.may_send_test(found):
        messages.error(request, _("Nothing was sent: at most %(most)s test events a minute go to "
                                  "one endpoint. Try again in a minute.")
                       % {"most": events.TESTS_A_MINUTE})  # fmt: skip
    else:
        events.send_test(found)
        messages.success(request, _("A test event (ping) is on its way: its attempt shows below."))
    return redirect("webhooks:endpoint", pk)


@require_POST
@login_required
def roll(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.endpoint_of(request, pk)
    _to_show_once(request, pk, endpoints.roll_secret(found, request=request))
    return redirect("webhooks:endpoint", pk)


@require_POST
@login_required
def disable(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.endpoint_of(request, pk)
    if endpoints.disable(found, request=request):
        messages.success(request, _("The endpoint is disabled: no event is sent to it."))
    return redirect("webhooks:endpoint", pk)


@require_POST
@login_required
def enable(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.endpoint_of(request, pk)
    if endpoints.enable(found, request=request):
        messages.success(request, _("The endpoint is enabled: new events are sent to it."))
    elif not found.enabled:
        messages.error(request, _("Not enabled: %(owner)s has %(most)s endpoints enabled, the "
                                  "most it may. Disable one first.")
                       % {"owner": access.owner_name(found),
                          "most": settings.PORTAL_WEBHOOK_ENDPOINTS_PER_OWNER})  # fmt: skip
    return redirect("webhooks:endpoint", pk)


@require_POST
@login_required
def resend_failed(request: HttpRequest, pk: int) -> HttpResponse:
    found = access.endpoint_of(request, pk)
    form = FailedSinceForm(request.POST)
    if not form.is_valid():
        for error in form.errors.get("since", []):
            messages.error(request, _("Nothing was sent again: %(error)s") % {"error": error})
        return redirect("webhooks:endpoint", pk)
    since = timezone.make_aware(datetime.combine(form.cleaned_data["since"], time.min))
    sent = events.resend_failed_since(found, since) if found.enabled else 0
    messages.success(request, ngettext("%(count)s failed delivery is sent again.",
                                       "%(count)s failed deliveries are sent again.", sent)
                     % {"count": sent})  # fmt: skip
    return redirect("webhooks:endpoint", pk)


@require_safe
@login_required
def delivery(request: HttpRequest, pk: int, delivery_id: int) -> HttpResponse:
    found = access.endpoint_of(request, pk)
    shown = get_object_or_404(found.deliveries.select_related("event"), pk=delivery_id)
    context = {"endpoint": found, "delivery": shown, "attempts": shown.attempts.all()}
    return render(request, "webhooks/delivery.html", context)


@require_POST
@login_required
def resend(request: HttpRequest, pk: int, delivery_id: int) -> HttpResponse:
    found = access.endpoint_of(request, pk)
    shown = get_object_or_404(found.deliveries, pk=delivery_id)
    if events.resend(shown):
        messages.success(request, _("The event is sent again, with the same webhook-id."))
    else:
        messages.error(request, _("Not sent again: it is still being tried, or the endpoint is "
                                  "disabled."))  # fmt: skip
    return redirect("webhooks:delivery", pk, delivery_id)


def _owned_by(endpoint: object, choice: access.Choice) -> bool:
    owner = choice.owner
    if owner.site_id:
        return endpoint.site_id == owner.site_id
    return endpoint.site_id is None and endpoint.membership_guid == owner.membership_guid


def _to_show_once(request: HttpRequest, pk: int, secret: str) -> None:
    """Keeps a new secret for the endpoint's page to show, once: sealed, as the session's row
    is readable to anyone who reads the database."""
    request.session[SECRET_SHOWN.format(pk=pk)] = credentials.encrypt(secret)


def _shown_once(request: HttpRequest, pk: int) -> str:
    return credentials.decrypt(request.session.pop(SECRET_SHOWN.format(pk=pk), "")) or ""

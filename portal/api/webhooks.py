"""The webhook endpoints' routes: `/api/v1/webhooks/...`, with the scope `webhooks:manage`. A
user's token reaches the endpoints of the businesses its user is a contact of and of the sites
they are a clerk of; a site's token, its site's; anything else is not found (404), as on the
Webhooks pages, whose rules (portal.webhooks, portal.outbox) these call.

- GET  /webhooks/endpoints: the endpoints;
- POST /webhooks/endpoints: one registered (`owner`, `url`, `event_types`, `description`), its
  secret in the answer, this once;
- GET  /webhooks/endpoints/{id}: one endpoint;
- POST /webhooks/endpoints/{id}/roll: a new secret, this once (the old one signs for a day);
- POST /webhooks/endpoints/{id}/disable, /enable;
- POST /webhooks/endpoints/{id}/test: a `ping` to it;
- GET  /webhooks/endpoints/{id}/deliveries: its delivery log, by cursor, each with its attempts;
- POST /webhooks/endpoints/{id}/deliveries/{delivery_id}/resend: the same event sent again.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from django.db.models import QuerySet
from django.http import HttpRequest
from django.shortcuts import get_object_or_404
from django.utils.translation import gettext as _
from ninja import Field, Query, Router, Schema, Status

from portal.api.auth import scoped
from portal.api.errors import ApiError
from portal.api.idempotency import idempotent
from portal.api.models import Scope, Token
from portal.api.paging import ListQuery, page_of
from portal.api.schemas import Input, answers, page_out
from portal.outbox import endpoints as kept_endpoints
from portal.outbox import events
from portal.outbox.endpoints import Owner
from portal.outbox.models import URL_LONGEST, Delivery, Endpoint
from portal.webhooks import access
from portal.webhooks.access import Choice
from portal.webhooks.forms import EndpointForm

router = Router()
MANAGE = scoped(Scope.WEBHOOKS_MANAGE)


# --- whose endpoints ------------------------------------------------------------------------------


def owners_of(request: HttpRequest) -> list[Choice]:
    token: Token = request.auth
    if token.site_id:
        site = token.site
        return [Choice(f"site-{site.code}", f"{site.name} (intake site)", Owner(site_id=site.pk))]
    return access.owners_of(request)


def endpoints_of(request: HttpRequest) -> QuerySet[Endpoint]:
    return access.endpoints_of(owners_of(request)).select_related("site")


def endpoint_of(request: HttpRequest, endpoint_id: int) -> Endpoint:
    return get_object_or_404(endpoints_of(request), pk=endpoint_id)


# --- what is shown --------------------------------------------------------------------------------


class EndpointOut(Schema):
    id: int
    owner: str = Field(description="business-<membership GUID> or site-<site code>.")
    url: str
    event_types: list[str]
    description: str
    enabled: bool
    disabled_reason: str
    created: datetime


class EndpointMade(EndpointOut):
    secret: str = Field(description="The signing secret (whsec_...), shown this once.")


class EndpointsOut(Schema):
    items: list[EndpointOut]


class SecretOut(Schema):
    secret: str = Field(description="The new signing secret, shown this once.")
    previous_signs_until: datetime = Field(description="The secret it replaces signs till then.")


class AttemptOut(Schema):
    at: datetime
    status: int | None
    milliseconds: int
    answer: str = Field(description="The first 4 KB of the answer.")
    trouble: str


class DeliveryOut(Schema):
    id: int
    event_id: str = Field(description="Its webhook-id.")
    type: str
    state: str
    created: datetime
    attempts: list[AttemptOut]


class DeliveriesPage(Schema):
    items: list[DeliveryOut]
    next_cursor: str | None
    has_more: bool


class EventOut(Schema):
    event_id: str


def _owner_key(endpoint: Endpoint) -> str:
    if endpoint.site is not None:
        return f"site-{endpoint.site.code}"
    return f"business-{endpoint.membership_guid}"


def _shown(endpoint: Endpoint) -> dict[str, Any]:
    return {"id": endpoint.pk, "owner": _owner_key(endpoint), "url": endpoint.url,
            "event_types": endpoint.event_types, "description": endpoint.description,
            "enabled": endpoint.enabled, "disabled_reason": endpoint.disabled_reason,
            "created": endpoint.created}  # fmt: skip


def _delivery(delivery: Delivery) -> dict[str, Any]:
    return {"id": delivery.pk, "event_id": delivery.event.uid, "type": delivery.event.type,
            "state": delivery.state, "created": delivery.created,
            "attempts": [{"at": a.at, "status": a.status, "milliseconds": a.milliseconds,
                          "answer": a.answer, "trouble": a.trouble}
                         for a in delivery.attempts.all()]}  # fmt: skip


# --- the routes -----------------------------------------------------------------------------------


@router.get("/endpoints", auth=MANAGE, response=answers(ok=EndpointsOut),
            url_name="webhook-endpoints")  # fmt: skip
def endpoint_list(request: HttpRequest) -> dict[str, Any]:
    return {"items": [_shown(endpoint) for endpoint in endpoints_of(request)]}


class EndpointIn(Input):
    owner: str = Field(max_length=120, description="business-<membership GUID> or site-<code>.")
    url: str = Field(max_length=URL_LONGEST, description="An https:// address.")
    event_types: list[str] = Field(min_length=1, max_length=20)
    description: str = Field("", max_length=200)


@router.post("/endpoints", auth=MANAGE, response=answers(created=EndpointMade),
             url_name="webhook-endpoint-register")  # fmt: skip
@idempotent
def register(request: HttpRequest, sent: EndpointIn) -> Status:
    """An endpoint registered with the same rules as the Webhooks page's: its address resolved
    and checked, its owner one of the token's."""
    form = EndpointForm(sent.model_dump(), owners=owners_of(request))
    if not form.is_valid():
        raise ApiError(
            422, "invalid", None, {name: list(said) for name, said in form.errors.items()}
        )
    data = form.cleaned_data
    made_by = request.user if request.user.is_authenticated else None
    owner = form.chosen_owner.owner
    made, secret = kept_endpoints.register(
        owner, data["url"], data["event_types"], data["description"], made_by, request=request
    )
    made = Endpoint.objects.select_related("site").get(pk=made.pk)
    return Status(201, _shown(made) | {"secret": secret})


@router.get("/endpoints/{int:endpoint_id}", auth=MANAGE, response=answers(ok=EndpointOut),
            url_name="webhook-endpoint")  # fmt: skip
def endpoint_detail(request: HttpRequest, endpoint_id: int) -> dict[str, Any]:
    return _shown(endpoint_of(request, endpoint_id))


@router.post("/endpoints/{int:endpoint_id}/roll", auth=MANAGE, response=answers(ok=SecretOut),
             url_name="webhook-endpoint-roll")  # fmt: skip
@idempotent
def roll(request: HttpRequest, endpoint_id: int) -> dict[str, Any]:
    found = endpoint_of(request, endpoint_id)
    secret = kept_endpoints.roll_secret(found, request=request)
    found.refresh_from_db()
    return {"secret": secret, "previous_signs_until": found.previous_until}


@router.post("/endpoints/{int:endpoint_id}/disable", auth=MANAGE,
             response=answers(ok=EndpointOut), url_name="webhook-endpoint-disable")  # fmt: skip
@idempotent
def disable(request: HttpRequest, endpoint_id: int) -> dict[str, Any]:
    found = endpoint_of(request, endpoint_id)
    kept_endpoints.disable(found, request=request)
    return _shown(endpoint_of(request, endpoint_id))


@router.post("/endpoints/{int:endpoint_id}/enable", auth=MANAGE,
             response=answers(ok=EndpointOut), url_name="webhook-endpoint-enable")  # fmt: skip
@idempotent
def enable(request: HttpRequest, endpoint_id: int) -> dict[str, Any]:
    found = endpoint_of(request, endpoint_id)
    if not found.enabled and not kept_endpoints.enable(found, request=request):
        raise ApiError(409, "too_many_endpoints", _("Its owner has as many endpoints enabled as "
                       "it may: disable one first."))  # fmt: skip
    return _shown(endpoint_of(request, endpoint_id))


@router.post("/endpoints/{int:endpoint_id}/test", auth=MANAGE,
             response=answers(created=EventOut), url_name="webhook-endpoint-test")  # fmt: skip
@idempotent
def send_test(request: HttpRequest, endpoint_id: int) -> Status:
    found = endpoint_of(request, endpoint_id)
    if not found.enabled:
        raise ApiError(409, "endpoint_disabled", _("This endpoint is disabled: enable it first."))
    if not events.may_send_test(found):
        raise ApiError(429, "rate_limited", _("At most %(most)s test events a minute go to one "
                       "endpoint.") % {"most": events.TESTS_A_MINUTE}, retry_after=60)  # fmt: skip
    return Status(201, {"event_id": events.send_test(found).uid})


@router.get("/endpoints/{int:endpoint_id}/deliveries", auth=MANAGE,
            response=answers(ok=DeliveriesPage), url_name="webhook-deliveries")  # fmt: skip
def delivery_list(request: HttpRequest, endpoint_id: int,
                  query: Query[ListQuery]) -> dict[str, Any]:  # fmt: skip
    found = endpoint_of(request, endpoint_id)
    listed = found.deliveries.select_related("event").prefetch_related("attempts")
    return page_out(page_of(listed, query, name="webhook-deliveries", changed="created"),
                    _delivery)  # fmt: skip


@router.post("/endpoints/{int:endpoint_id}/deliveries/{int:delivery_id}/resend", auth=MANAGE,
             response=answers(ok=DeliveryOut), url_name="webhook-delivery-resend")  # fmt: skip
@idempotent
def resend(request: HttpRequest, endpoint_id: int, delivery_id: int) -> dict[str, Any]:
    found = endpoint_of(request, endpoint_id)
    delivery = get_object_or_404(found.deliveries.select_related("event"), pk=delivery_id)
    if not events.resend(delivery):
        raise ApiError(409, "not_sent_again", _("Not sent again: it is still being tried, or the "
                       "endpoint is disabled."))  # fmt: skip
    delivery.refresh_from_db()
    return _delivery(delivery)

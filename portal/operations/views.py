"""`/metrics`, for operators' tools (Prometheus): not public. It answers a client address in
PORTAL_METRICS_ALLOWED, or a request with the bearer token PORTAL_METRICS_TOKEN; anyone else
gets the portal's 404 page, as for an address that does not exist."""

from __future__ import annotations

import hmac
import ipaddress

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_safe
from prometheus_client.exposition import choose_encoder

from portal.lib.client_address import client_address
from portal.operations.collectors import registry

BEARER = "bearer "


@require_safe
@never_cache
def metrics(request: HttpRequest) -> HttpResponse:
    """Every metric in Prometheus' text format (or OpenMetrics, if the scraper asks for it)."""
    _check_access(request)
    encode, content_type = choose_encoder(request.headers.get("Accept", ""))
    return HttpResponse(encode(registry()), content_type=content_type)


def _check_access(request: HttpRequest) -> None:
    """Raises Http404 unless the request may read the metrics. A request that sends a token is
    judged by its token alone: a scraper with a stale one fails wherever it scrapes from."""
    sent = request.headers.get("Authorization", "")
    if sent:
        if not _is_the_token(sent):
            raise Http404
        return
    if not _is_allowed_address(client_address(request)):
        raise Http404


def _is_the_token(sent: str) -> bool:
    token = settings.PORTAL_METRICS_TOKEN
    if not token or sent[: len(BEARER)].lower() != BEARER:
        return False
    return hmac.compare_digest(sent[len(BEARER) :].strip().encode(), token.encode())


def _is_allowed_address(address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return any(ip in network for network in settings.PORTAL_METRICS_ALLOWED)

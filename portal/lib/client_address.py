"""The address a request comes from, as the portal can tell it."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The peer; behind trusted proxies, the nearest X-Forwarded-For address they did not add."""
    peer = request.META.get("REMOTE_ADDR", "")
    if peer not in settings.PORTAL_TRUSTED_PROXIES:
        return peer
    hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",") if h.strip()]
    for hop in reversed(hops):
        try:
            address = str(ipaddress.ip_address(hop))
        except ValueError:
            break
        if address not in settings.PORTAL_TRUSTED_PROXIES:
            return address
    return peer

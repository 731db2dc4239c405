"""Sign-in attempts the portal lets through, per client address and per username.

The upstream locks out by address, and every portal user shares the portal's address, so the
portal turns away a burst of attempts itself before it reaches the service.
"""

from __future__ import annotations

import hashlib
import ipaddress

from django.conf import settings
from django.core.cache import cache
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


def _key(kind: str, value: str) -> str:
    return f"sign-in:{kind}:{hashlib.sha256(value.encode()).hexdigest()[:32]}"


def _keys(request: HttpRequest, username: str) -> dict[str, int]:
    return {
        _key("address", client_address(request)): settings.PORTAL_SIGN_IN_PER_ADDRESS,
        _key("username", username.strip().lower()): settings.PORTAL_SIGN_IN_PER_USERNAME,
    }


def allows(request: HttpRequest, username: str) -> bool:
    """Counts an attempt; False once the address or the username has had its share."""
    allowed = True
    window = settings.PORTAL_SIGN_IN_WINDOW_SECONDS
    for key, limit in _keys(request, username).items():
        cache.add(key, 0, window)
        try:
            attempts = cache.incr(key)
        except ValueError:  # expired between add and incr
            cache.set(key, 1, window)
            attempts = 1
        allowed = allowed and attempts <= limit
    return allowed


def forget_username(username: str) -> None:
    """After a success the username's count starts afresh (the address's does not)."""
    cache.delete(_key("username", username.strip().lower()))

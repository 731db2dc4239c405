"""The address a request comes from, as the portal can tell it: one spelling for each address
(an IPv4 address reached over IPv6, `::ffff:198.51.100.7`, as `198.51.100.7`; an IPv6 address
compressed, lower case), so that whatever counts or records it counts one client once."""

from __future__ import annotations

import ipaddress

from django.conf import settings
from django.http import HttpRequest


def client_address(request: HttpRequest) -> str:
    """The peer; behind trusted proxies, the nearest X-Forwarded-For address they did not add."""
    peer, trusted = _peer(request), _trusted_proxies()
    if peer not in trusted:
        return peer
    hops = [h.strip() for h in request.headers.get("X-Forwarded-For", "").split(",") if h.strip()]
    for hop in reversed(hops):
        try:
            address = _spelled(hop)
        except ValueError:
            break
        if address not in trusted:
            return address
    return peer


def from_trusted_proxy(request: HttpRequest) -> bool:
    """Whether the request's peer is one of the proxies the portal trusts, however spelled."""
    return _peer(request) in _trusted_proxies()


def _peer(request: HttpRequest) -> str:
    return normalised(request.META.get("REMOTE_ADDR", ""))


def _trusted_proxies() -> set[str]:
    return {normalised(proxy) for proxy in settings.PORTAL_TRUSTED_PROXIES}


def normalised(address: str) -> str:
    """`address` in its one spelling; as it is if it is no IP address."""
    try:
        return _spelled(address)
    except ValueError:
        return address


def _spelled(address: str) -> str:
    """The one spelling of an IP address; ValueError if it is none."""
    ip = ipaddress.ip_address(address.strip())
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return str(ip.ipv4_mapped)
    return str(ip)

"""Where a webhook may be sent: the checks of an endpoint's address, as it is registered and
at every attempt. The host is resolved once per attempt, every address it resolves to is
checked, and the connection is made to the address checked (portal.outbox.sending), so that a
name that resolves elsewhere between the check and the connection cannot lead the portal to
its own network.

Refused: loopback, private, link-local, multicast, reserved, unspecified and shared addresses,
and IPv6 addresses that carry an IPv4 one (IPv4-mapped, 6to4, Teredo, NAT64), whatever they
carry; everything that is not a public address. PORTAL_WEBHOOK_ALLOWED_NETWORKS (empty in
production) lets tests and `make run` send to loopback: an address in one of its networks is
allowed, and only there may an endpoint's address be `http://` rather than `https://`.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Callable
from dataclasses import dataclass
from urllib.parse import SplitResult, urlsplit

from django.conf import settings

from portal.lib.printable import is_printable
from portal.outbox.models import URL_LONGEST

type Address = ipaddress.IPv4Address | ipaddress.IPv6Address

NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


class Refused(Exception):
    """The address is not one a webhook may go to; its message says why, for the owner."""


@dataclass(frozen=True)
class Target:
    """An endpoint's address, resolved and checked: where to connect, and what to say."""

    scheme: str
    host: str  # as the address names it: the TLS server name and the Host header
    port: int
    path: str  # with its query
    address: str  # the checked IP address to connect to

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        default = 443 if self.scheme == "https" else 80
        return host if self.port == default else f"{host}:{self.port}"


def allowed_networks() -> list[ipaddress.IPv4Network | ipaddress.IPv6Network]:
    return [ipaddress.ip_network(n, strict=False) for n in settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS]


def refusal(address: Address) -> str | None:
    """Why a webhook may not go to `address`, or None if it may."""
    if any(address in network for network in allowed_networks()):
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return "an IPv4-mapped address"
        if address.sixtofour is not None:
            return "a 6to4 address"
        if address.teredo is not None:
            return "a Teredo address"
        if any(address in network for network in NAT64):
            return "a NAT64 address"
    for refused, words in (
        (address.is_unspecified, "an unspecified address"),
        (address.is_loopback, "a loopback address"),
        (address.is_link_local, "a link-local address"),
        (address.is_multicast, "a multicast address"),
        (address.is_reserved, "a reserved address"),
        (address.is_private, "a private address"),
    ):
        if refused:
            return words
    if not address.is_global:
        return "not a public address"
    return None


def check_addresses(host: str, addresses: list[Address]) -> Address:
    """The first of the addresses `host` resolved to, if every one may be sent to; Refused
    otherwise (one refused address refuses the host: the next resolution may give it)."""
    if not addresses:
        raise Refused(f"{host} has no address.")
    for address in addresses:
        why = refusal(address)
        if why:
            raise Refused(f"{host} resolves to {address}, {why}: webhooks are not sent there.")
    return addresses[0]


def resolve(host: str, port: int) -> list[Address]:
    """The addresses `host` resolves to now (an IP address, itself)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as trouble:
        raise Refused(f"{host} could not be resolved ({trouble}).") from trouble
    unique = dict.fromkeys(ipaddress.ip_address(info[4][0].split("%")[0]) for info in found)
    return list(unique)


def parse(url: str) -> SplitResult:
    """The address split in its parts, if it is one a webhook may be registered at, whatever
    it resolves to; Refused with the reason otherwise."""
    if len(url) > URL_LONGEST:
        raise Refused(f"An address may be at most {URL_LONGEST:,} characters long.")
    if not is_printable(url) or any(c.isspace() for c in url):
        raise Refused("An address holds no spaces, control or invisible characters.")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as trouble:
        raise Refused(f"This is not a web address ({trouble}).") from trouble
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise Refused("Give an https:// address.")
    if parts.username is not None or parts.password is not None:
        raise Refused("An address with a user name or password in it is not taken.")
    if parts.fragment:
        raise Refused("An address with a fragment (#...) is not taken.")
    if port == 0:
        raise Refused("Port 0 is not a port.")
    return parts


def target(url: str, resolver: Callable[[str, int], list[Address]] | None = None) -> Target:
    """The address resolved and checked, for one attempt (or for its registration); Refused
    with the reason otherwise. `http://` only to an allowed network (tests, `make run`)."""
    parts = parse(url)
    host = parts.hostname
    port = parts.port or (443 if parts.scheme == "https" else 80)
    addresses = (resolver or resolve)(host, port)
    address = check_addresses(host, addresses)
    allowed = allowed_networks()
    if parts.scheme == "http" and not all(any(a in n for n in allowed) for a in addresses):
        raise Refused("Give an https:// address: webhooks are sent over HTTPS only.")
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port, path, str(address))

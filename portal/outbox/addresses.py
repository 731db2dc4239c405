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
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy

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


# Why a webhook may not go to an address, each a whole sentence (the words that name the kind
# of address change in Welsh with what comes before them), said of the host and its address.
WHY = {
    "ipv4-mapped": gettext_lazy(
        "%(host)s resolves to %(address)s, an IPv4-mapped address: webhooks are not sent there."
    ),
    "6to4": gettext_lazy(
        "%(host)s resolves to %(address)s, a 6to4 address: webhooks are not sent there."
    ),
    "teredo": gettext_lazy(
        "%(host)s resolves to %(address)s, a Teredo address: webhooks are not sent there."
    ),
    "nat64": gettext_lazy(
        "%(host)s resolves to %(address)s, a NAT64 address: webhooks are not sent there."
    ),
    "unspecified": gettext_lazy(
        "%(host)s resolves to %(address)s, an unspecified address: webhooks are not sent there."
    ),
    "loopback": gettext_lazy(
        "%(host)s resolves to %(address)s, a loopback address: webhooks are not sent there."
    ),
    "link-local": gettext_lazy(
        "%(host)s resolves to %(address)s, a link-local address: webhooks are not sent there."
    ),
    "multicast": gettext_lazy(
        "%(host)s resolves to %(address)s, a multicast address: webhooks are not sent there."
    ),
    "reserved": gettext_lazy(
        "%(host)s resolves to %(address)s, a reserved address: webhooks are not sent there."
    ),
    "private": gettext_lazy(
        "%(host)s resolves to %(address)s, a private address: webhooks are not sent there."
    ),
    "not-public": gettext_lazy(
        "%(host)s resolves to %(address)s, not a public address: webhooks are not sent there."
    ),
}


def refusal(address: Address) -> str | None:
    """Why a webhook may not go to `address` (a key of WHY), or None if it may."""
    if any(address in network for network in allowed_networks()):
        return None
    if isinstance(address, ipaddress.IPv6Address):
        if address.ipv4_mapped is not None:
            return "ipv4-mapped"
        if address.sixtofour is not None:
            return "6to4"
        if address.teredo is not None:
            return "teredo"
        if any(address in network for network in NAT64):
            return "nat64"
    for refused, why in (
        (address.is_unspecified, "unspecified"),
        (address.is_loopback, "loopback"),
        (address.is_link_local, "link-local"),
        (address.is_multicast, "multicast"),
        (address.is_reserved, "reserved"),
        (address.is_private, "private"),
    ):
        if refused:
            return why
    if not address.is_global:
        return "not-public"
    return None


def check_addresses(host: str, addresses: list[Address]) -> Address:
    """The first of the addresses `host` resolved to, if every one may be sent to; Refused
    otherwise (one refused address refuses the host: the next resolution may give it)."""
    if not addresses:
        raise Refused(_("%(host)s has no address.") % {"host": host})
    for address in addresses:
        why = refusal(address)
        if why:
            raise Refused(WHY[why] % {"host": host, "address": address})
    return addresses[0]


def resolve(host: str, port: int) -> list[Address]:
    """The addresses `host` resolves to now (an IP address, itself)."""
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as trouble:
        raise Refused(_("%(host)s could not be resolved (%(trouble)s).")
                      % {"host": host, "trouble": trouble}) from trouble  # fmt: skip
    unique = dict.fromkeys(ipaddress.ip_address(info[4][0].split("%")[0]) for info in found)
    return list(unique)


def parse(url: str) -> SplitResult:
    """The address split in its parts, if it is one a webhook may be registered at, whatever
    it resolves to; Refused with the reason otherwise."""
    if len(url) > URL_LONGEST:
        raise Refused(_("An address may be at most %(most)s characters long.")
                      % {"most": f"{URL_LONGEST:,}"})  # fmt: skip
    if not is_printable(url) or any(c.isspace() for c in url):
        raise Refused(_("An address holds no spaces, control or invisible characters."))
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as trouble:
        said = _("This is not a web address (%(trouble)s).") % {"trouble": trouble}
        raise Refused(said) from trouble
    if parts.scheme not in ("https", "http") or not parts.hostname:
        raise Refused(_("Give an https:// address."))
    if parts.username is not None or parts.password is not None:
        raise Refused(_("An address with a user name or password in it is not taken."))
    if parts.fragment:
        raise Refused(_("An address with a fragment (#...) is not taken."))
    if port == 0:
        raise Refused(_("Port 0 is not a port."))
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
        raise Refused(_("Give an https:// address: webhooks are sent over HTTPS only."))
    path = parts.path or "/"
    if parts.query:
        path += "?" + parts.query
    return Target(parts.scheme, host, port, path, str(address))

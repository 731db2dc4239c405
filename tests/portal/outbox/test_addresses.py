"""Where a webhook may go: each refusal tested by handing resolved addresses to the checker,
never by connecting anywhere."""

from __future__ import annotations

import ipaddress

import pytest

from portal.outbox import addresses
from portal.outbox.addresses import Refused


def resolving_to(*found: str):
    """A resolver that answers these addresses, whatever it is asked."""
    return lambda host, port: [ipaddress.ip_address(a) for a in found]


@pytest.fixture(autouse=True)
def no_network_allowed(settings):
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = []


@pytest.mark.parametrize(
    ("address", "why"),
    [
        ("127.0.0.1", "loopback"),
        ("::1", "loopback"),
        ("10.1.2.3", "private"),
        ("172.16.0.9", "private"),
        ("192.168.1.1", "private"),
        ("fd00::1", "private"),
        ("169.254.169.254", "link-local"),  # the clouds' metadata service
        ("fe80::1", "link-local"),
        ("224.0.0.1", "multicast"),
        ("ff02::1", "multicast"),
        ("240.0.0.1", "reserved"),
        ("0.0.0.0", "unspecified"),  # noqa: S104 (an address checked, never bound)
        ("::", "unspecified"),
        ("::ffff:127.0.0.1", "IPv4-mapped"),
        ("::ffff:93.184.216.34", "IPv4-mapped"),
        ("2002:7f00:1::1", "6to4"),
        ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
        ("64:ff9b::7f00:1", "NAT64"),
        ("64:ff9b:1::a00:1", "NAT64"),
        ("100.64.0.1", "not a public address"),  # carrier-grade NAT
        ("192.0.2.1", "private"),  # documentation, among Python's private networks
    ],
)
def test_it_refuses_an_address_that_is_not_public(address, why):
    with pytest.raises(Refused, match=why):
        addresses.target("https://hooks.example.com/in", resolving_to(address))


def test_it_takes_a_public_address_and_connects_to_the_one_it_checked():
    target = addresses.target("https://hooks.example.com:8443/in?farm=1",
                              resolving_to("93.184.216.34"))  # fmt: skip
    assert (target.address, target.host, target.port) == (
        "93.184.216.34",
        "hooks.example.com",
        8443,
    )
    assert target.path == "/in?farm=1"
    assert target.host_header == "hooks.example.com:8443"


def test_one_refused_address_among_public_ones_refuses_the_host():
    with pytest.raises(Refused, match=r"10\.0\.0\.5"):
        addresses.target("https://hooks.example.com/", resolving_to("93.184.216.34", "10.0.0.5"))


def test_a_host_that_resolves_to_nothing_is_refused():
    with pytest.raises(Refused, match="no address"):
        addresses.target("https://hooks.example.com/", resolving_to())


def test_an_allowed_network_lets_loopback_through(settings):
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    assert addresses.target("http://127.0.0.1:9/in").address == "127.0.0.1"
    with pytest.raises(Refused, match="private"):
        addresses.target("https://10.0.0.1/in")


def test_http_is_refused_but_to_an_allowed_network(settings):
    with pytest.raises(Refused, match="https"):
        addresses.target("http://hooks.example.com/", resolving_to("93.184.216.34"))
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = ["127.0.0.0/8"]
    with pytest.raises(Refused, match="https"):
        addresses.target("http://hooks.example.com/", resolving_to("93.184.216.34"))


@pytest.mark.parametrize(
    ("url", "why"),
    [
        ("ftp://hooks.example.com/", "https://"),
        ("hooks.example.com/in", "https://"),
        ("https:///in", "https://"),
        ("https://user:secret@hooks.example.com/", "user name or password"),
        ("https://hooks.example.com/in#part", "fragment"),
        ("https://hooks.example.com/\u202ein", "control or invisible"),
        ("https://hooks.example.com/a b", "spaces"),
        ("https://hooks.example.com:99999/", "not a web address"),
        ("https://hooks.example.com/" + "a" * 2000, "2,000 characters"),
    ],
)
def test_it_refuses_an_address_that_is_no_endpoint_s(url, why):
    with pytest.raises(Refused, match=why):
        addresses.target(url, resolving_to("93.184.216.34"))

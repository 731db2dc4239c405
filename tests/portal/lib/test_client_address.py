"""portal.lib.client_address: the address a request comes from, behind trusted proxies."""

from __future__ import annotations

from django.test import RequestFactory

from portal.lib.client_address import client_address


def test_it_is_the_peer_when_no_proxy_is_trusted(settings):
    settings.PORTAL_TRUSTED_PROXIES = []
    request = RequestFactory().get(
        "/", REMOTE_ADDR="192.0.2.1", headers={"X-Forwarded-For": "203.0.113.5"}
    )
    assert client_address(request) == "192.0.2.1"


def test_it_ignores_the_header_from_an_untrusted_peer(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
    request = RequestFactory().get(
        "/", REMOTE_ADDR="192.0.2.1", headers={"X-Forwarded-For": "203.0.113.5"}
    )
    assert client_address(request) == "192.0.2.1"


def test_it_takes_the_nearest_untrusted_hop_behind_a_trusted_proxy(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1", "10.0.0.2"]
    request = RequestFactory().get(
        "/",
        REMOTE_ADDR="10.0.0.1",
        headers={"X-Forwarded-For": "203.0.113.5, 198.51.100.7, 10.0.0.2"},
    )
    assert client_address(request) == "198.51.100.7"


def test_a_forged_leftmost_entry_does_not_win(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", headers={"X-Forwarded-For": "1.2.3.4, 198.51.100.7"}
    )
    assert client_address(request) == "198.51.100.7"


def test_it_is_the_peer_when_the_header_is_missing(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
    request = RequestFactory().get("/", REMOTE_ADDR="10.0.0.1")
    assert client_address(request) == "10.0.0.1"


def test_it_stops_at_a_hop_that_is_not_an_address(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", headers={"X-Forwarded-For": "198.51.100.7, garbage"}
    )
    assert client_address(request) == "10.0.0.1"


def test_it_writes_an_ipv6_address_one_way(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
    request = RequestFactory().get(
        "/", REMOTE_ADDR="10.0.0.1", headers={"X-Forwarded-For": "2001:DB8:0:0::1"}
    )
    assert client_address(request) == "2001:db8::1"


def test_an_ipv4_address_reached_over_ipv6_is_written_as_ipv4(settings):
    settings.PORTAL_TRUSTED_PROXIES = []
    request = RequestFactory().get("/", REMOTE_ADDR="::ffff:198.51.100.200")
    assert client_address(request) == "198.51.100.200"


def test_a_forwarded_address_is_written_one_way(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
    for forwarded, written in [("::FFFF:198.51.100.200", "198.51.100.200"),
                               ("2001:0DB8:0000::0001", "2001:db8::1")]:  # fmt: skip
        request = RequestFactory().get(
            "/", REMOTE_ADDR="10.0.0.1", headers={"X-Forwarded-For": forwarded}
        )
        assert client_address(request) == written


def test_a_trusted_proxy_reached_over_ipv6_is_still_trusted(settings):
    settings.PORTAL_TRUSTED_PROXIES = ["10.0.0.1"]
    request = RequestFactory().get(
        "/", REMOTE_ADDR="::ffff:10.0.0.1", headers={"X-Forwarded-For": "198.51.100.7"}
    )
    assert client_address(request) == "198.51.100.7"


def test_an_ipv6_peer_is_written_one_way(settings):
    settings.PORTAL_TRUSTED_PROXIES = []
    request = RequestFactory().get("/", REMOTE_ADDR="2001:DB8:0:0::1")
    assert client_address(request) == "2001:db8::1"

"""One client, one address, however it is spelled: an IPv4 address reached over IPv6
(`::ffff:198.51.100.7`, a dual-stack socket's or a proxy's spelling) counts against the same
sign-in limits as `198.51.100.7`, and is recorded as it."""

from __future__ import annotations

import pytest

from portal.audit.models import Event
from tests.portal.accounts.helpers import failures_at_the_service, sign_in, sign_in_from

pytestmark = pytest.mark.django_db


@pytest.fixture
def forwarding(settings, upstream_sandbox) -> None:
    settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS = True
    settings.PORTAL_TRUSTED_PROXIES = ["127.0.0.1"]


def test_both_spellings_of_an_address_share_its_sign_in_failures(
    client, forwarding, upstream_sandbox, client_address
):
    spellings = [client_address, f"::ffff:{client_address}"]
    usernames = ["grower", "lapsed", "haulier", "nobody", "partner", "grower@example.com"]
    answers = [
        sign_in_from(client, spellings[n % 2], username, "not-the-password")
        for n, username in enumerate(usernames)
    ]
    assert [answer.status_code for answer in answers] == [400] * 3 + [429] * 3
    assert failures_at_the_service(upstream_sandbox, client_address) == (3, False)


def test_a_peer_on_a_dual_stack_socket_shares_the_allowance_of_its_ipv4_address(
    client, upstream_sandbox, fresh_lockouts, client_address, settings
):
    settings.AXES_FAILURE_LIMIT = 2
    for spelling in (client_address, f"::ffff:{client_address}"):
        client.defaults["REMOTE_ADDR"] = spelling
        assert sign_in(client, "grower", "not-the-password").status_code == 400
    assert sign_in(client, "grower").status_code == 429


def test_an_address_is_recorded_in_its_one_spelling(client, upstream_sandbox, client_address):
    client.defaults["REMOTE_ADDR"] = f"::FFFF:{client_address}"
    assert sign_in(client, "grower").status_code == 302
    assert Event.objects.get(kind=Event.Kind.SIGN_IN).client_address == client_address

"""Webhooks in the browser: the grower reaches the Webhooks page from "Your account", adds an
endpoint (a receiver on 127.0.0.1 of the test's own), copies its secret, sends a test event
and sees its attempt arrive in the delivery log without reloading; axe checks each page."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from portal.outbox import delivering
from portal.outbox.models import Delivery
from tests.e2e.conftest import assert_accessible
from tests.portal.outbox.builders import LOOPBACK_NETWORKS, verified

pytestmark = pytest.mark.browser


def test_the_grower_adds_an_endpoint_and_sees_a_test_event_delivered(
    signed_in_page: Page,
    portal_url: str,
    receiver,
    settings,
):
    settings.PORTAL_WEBHOOK_ALLOWED_NETWORKS = LOOPBACK_NETWORKS
    receiver.expect_request("/hooks", method="POST").respond_with_data("Thanks")
    page = signed_in_page
    page.get_by_role("link", name="Your account").first.click()
    page.get_by_role("link", name="Webhooks").click()
    expect(page.get_by_role("heading", name="Webhooks", level=1)).to_be_visible()
    assert_accessible(page)
    page.get_by_role("link", name="Add an endpoint").click()
    page.get_by_label("Address").fill(receiver.url_for("/hooks"))
    page.get_by_label(re.compile(r"^intake\.load\.recorded")).check()
    assert_accessible(page)
    page.get_by_role("button", name="Add the endpoint").click()
    secret = page.locator("#secret").inner_text()
    assert secret.startswith("whsec_")
    assert_accessible(page)
    page.get_by_role("button", name="Send a test event").click()
    expect(page.get_by_text("A test event (ping) is on its way")).to_be_visible()
    expect(page.locator("#secret")).to_have_count(0)  # shown once
    delivering.attempt([Delivery.objects.get().pk])  # as a worker does once it commits
    expect(page.get_by_text(re.compile(r"200, \d+ ms"))).to_be_visible(timeout=10_000)
    expect(page.get_by_role("cell", name="Delivered")).to_be_visible()
    assert_accessible(page)
    assert verified(secret, receiver.log[0][0])["type"] == "ping"

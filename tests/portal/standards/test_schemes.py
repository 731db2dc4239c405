"""/standards/: the live schemes, and a clearly marked list of previews."""

from __future__ import annotations

import pytest

from tests.portal.standards.helpers import BEEF_LAMB, CROPS, FRESH_PRODUCE, main

pytestmark = pytest.mark.django_db


def test_it_lists_the_live_schemes(grower):
    response = grower.get("/standards/")
    assert response.status_code == 200
    page = main(response.content.decode())
    live = page[page.index('id="live-heading"') : page.index('id="preview-heading"')]
    assert f'<a href="/standards/{CROPS}/">Combinable Crops and Sugar Beet</a>' in live
    assert f'<a href="/standards/{BEEF_LAMB}/">Beef and Lamb</a>' in live
    assert f'<a href="/standards/{FRESH_PRODUCE}/">Fresh Produce</a>' in live
    assert "/standards/preview/" not in live


def test_it_marks_the_previews_as_such(grower):
    page = main(grower.get("/standards/").content.decode())
    previews = page[page.index('id="preview-heading"') :]
    assert '<span class="badge badge-preview">Preview</span> Next versions' in previews
    assert "Not in force yet" in previews
    assert (
        f'<a href="/standards/preview/{CROPS}/">Combinable Crops and Sugar Beet (preview)</a>'
        in previews
    )
    assert f'<a href="/standards/{CROPS}/changes/">what has changed</a>' in previews
    assert BEEF_LAMB not in previews  # only the crops scheme has a preview
    assert FRESH_PRODUCE not in previews


def test_it_says_when_the_content_was_refreshed(grower):
    page = main(grower.get("/standards/").content.decode())
    assert "Content last refreshed from the Assurance service" in page


def test_it_needs_a_signed_in_user(client, upstream_sandbox):
    response = client.get("/standards/")
    assert response.status_code == 302
    assert response.url == "/accounts/sign-in/?next=/standards/"

"""What an htmx request asks for."""

from __future__ import annotations

from django.http import HttpRequest


def wants_fragment(request: HttpRequest) -> bool:
    """Whether htmx asks for the part of a page that changed. A boosted link and a restore of
    history want the whole page."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and not (htmx.boosted or htmx.history_restore_request)

"""A page's frame made once for each user and content, and kept in this process's memory.

The frame of a page (the header with the user's name, the navigation, the footer) costs a busy
page such as a cached standards section more to render than everything else it does. Where a
view's output depends only on what it passes (summed up by `vary`), who the user is, the address
(with its query) and the request's language and time zone, it is rendered once with markers for
the only values that must change on every request, the CSRF token and the CSP nonce, and each
later request puts its own in their place.

The markers are random for each process, so that no content (a section's title, say) can hold
one and be given a token. A request with messages to show is rendered as usual.
"""

from __future__ import annotations

import secrets
import threading
from collections.abc import Hashable
from typing import Any

from cachetools import LRUCache
from django.conf import settings
from django.contrib.messages import get_messages
from django.http import HttpRequest, HttpResponse
from django.middleware.csp import get_nonce
from django.middleware.csrf import get_token
from django.shortcuts import render
from django.template.loader import render_to_string
from django.urls import get_script_prefix
from django.utils import timezone
from django.utils.translation import get_language

FRAMES_KEPT = 2048  # for each process; a frame is a few KiB

_CSRF_MARK = f"csrf-{secrets.token_hex(16)}"
_NONCE_MARK = f"nonce-{secrets.token_hex(16)}"

_kept: LRUCache[tuple, str] = LRUCache(FRAMES_KEPT)
_kept_lock = threading.Lock()


def render_kept(
    request: HttpRequest, template_name: str, context: dict[str, Any], *, vary: Hashable
) -> HttpResponse:
    """`template_name` rendered with `context` for `request`, as `render` would, from the frame
    kept for the same `vary`, user and address if there is one."""
    nonce = get_nonce(request)
    if nonce is None or get_messages(request):  # no CSP; or messages, shown once only
        return render(request, template_name, context)
    user = request.user
    key = (
        template_name, vary, request.get_full_path(), get_script_prefix(), settings.DEBUG,
        get_language(), timezone.get_current_timezone_name(),
        user.pk, user.get_username(), user.is_authenticated, user.is_staff, user.is_superuser,
    )  # fmt: skip
    with _kept_lock:
        frame = _kept.get(key)
    if frame is None:
        marked = {**context, "csrf_token": _CSRF_MARK, "csp_nonce": _NONCE_MARK}
        frame = render_to_string(template_name, marked, request)
        with _kept_lock:
            _kept[key] = frame
    html = frame.replace(_CSRF_MARK, get_token(request)).replace(_NONCE_MARK, str(nonce))
    return HttpResponse(html)


def forget() -> None:
    """Drops every kept frame (as after the templates change, in tests)."""
    with _kept_lock:
        _kept.clear()

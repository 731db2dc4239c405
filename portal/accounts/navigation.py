"""The addresses the page frame's menu links to (what a visitor, a signed-in user and staff may
reach, templates/navigation.html), worked out once for each process; and whether it offers the
grower's pages.

Every page's header and navigation link to the same few pages; reversing their names on every
request (and trying names whose pages may not be installed) would cost more than the rest of a
cached page's frame.
"""

from __future__ import annotations

from functools import cache

from django.core.signals import setting_changed
from django.dispatch import receiver
from django.http import HttpRequest
from django.urls import NoReverseMatch, get_script_prefix, get_urlconf, reverse
from django.utils import translation
from django.utils.functional import SimpleLazyObject

from portal.accounts.session import GROWER

# What the frame links to: the pages of later parts appear in the navigation once they exist.
LINKED = {
    "home": "home",
    "sign_in": "accounts:sign-in",
    "sign_out": "accounts:sign-out",
    "account": "accounts:you",
    "standards": "standards:schemes",
    "jobs": "jobs:list",
    "create": "passports:create",
    "passports": "passports:list",
    "lookup": "checks:lookup",
    "intake": "checks:check",
    "checker": "checks:checker",
    "clerks": "intake:home",  # shown to intake clerks only (`intake_clerk`)
    "dashboard": "dashboard:index",
    "admin": "admin:index",
}


def links(request: HttpRequest) -> dict[str, dict[str, str]]:
    """The context processor: `links.home`, `links.standards`, ... (absent if not installed),
    in the page's language (a Welsh page's under /cy/)."""
    return {"links": _links(get_script_prefix(), get_urlconf(), translation.get_language())}


def grower(request: HttpRequest) -> dict[str, object]:
    """The context processor: `grower`, whether the signed-in user was a contact of any
    membership when they signed in (the menu's links to making and listing passports), read
    from the session only when a template reads it. True for a session begun before the
    portal kept it, as the menu offered those links to all."""
    session = getattr(request, "session", None)
    if session is None:
        return {"grower": True}
    return {"grower": SimpleLazyObject(lambda: session.get(GROWER, True))}


@cache
def _links(script_prefix: str, urlconf: str | None, language: str | None) -> dict[str, str]:
    """The addresses in `urlconf` (a request's own, or None for ROOT_URLCONF), under
    `script_prefix`, which reverse() puts before every address, in `language` (the active
    one, which reverse() writes them in)."""
    found = {}
    for key, name in LINKED.items():
        try:
            found[key] = reverse(name)
        except NoReverseMatch:
            continue
    return found


@receiver(setting_changed, dispatch_uid="navigation.forget_links")
def forget_links(setting: str, **kwargs: object) -> None:
    if setting == "ROOT_URLCONF":
        _links.cache_clear()

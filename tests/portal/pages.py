"""Reading the frame every portal page shares: its main navigation and its language."""

from __future__ import annotations

import re

from django.http import HttpResponse

ADMIN_LINK = '<a href="/admin/">Admin</a>'
_NAVIGATION = re.compile(r'<nav class="site-nav" aria-label="Main">.*?</nav>', re.DOTALL)
_LANGUAGE = re.compile(r'<html lang="([^"]+)"')


def navigation(page: str) -> str:
    """The page's main navigation."""
    [nav] = _NAVIGATION.findall(page)
    return nav


def page_language(page: HttpResponse | str) -> str:
    """The language the page says it is in (its <html lang>)."""
    content = page if isinstance(page, str) else page.content.decode()
    return _LANGUAGE.search(content)[1]

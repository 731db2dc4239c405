"""Reading the frame every portal page shares: its main navigation."""

from __future__ import annotations

import re

ADMIN_LINK = '<a href="/admin/">Admin</a>'
_NAVIGATION = re.compile(r'<nav class="site-nav" aria-label="Main">.*?</nav>', re.DOTALL)


def navigation(page: str) -> str:
    """The page's main navigation."""
    [nav] = _NAVIGATION.findall(page)
    return nav

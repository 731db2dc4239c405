"""Upstream HTML made safe for a page, and its words as plain text."""

from __future__ import annotations

import html
import re

import nh3
from django.utils.safestring import SafeString

# What upstream HTML may keep: text structure and plain links, nothing that runs or loads.
ALLOWED_TAGS = {
    "p", "br", "ul", "ol", "li", "strong", "b", "em", "i", "u", "sub", "sup", "code",
    "blockquote", "h3", "h4", "h5", "table", "thead", "tbody", "tr", "th", "td", "a", "span",
}  # fmt: skip
ALLOWED_ATTRIBUTES = {"a": {"href", "title"}, "th": {"scope"}, "td": {"colspan", "rowspan"}}
ALLOWED_URL_SCHEMES = {"http", "https", "mailto"}

# Built once: a cleaner made for each call would spend most of its time on the allow-lists.
_CLEANER = nh3.Cleaner(
    tags=ALLOWED_TAGS,
    clean_content_tags={"script", "style", "svg", "math", "iframe", "object", "template"},
    attributes=ALLOWED_ATTRIBUTES,
    url_schemes=ALLOWED_URL_SCHEMES,
    link_rel="noopener noreferrer nofollow",
)


def sanitise(fragment: str | None) -> SafeString:
    """Upstream HTML cut down to the allow-list: no scripts, handlers, styles, frames or SVG,
    links only to http(s) and mail, opening with no referrer."""
    return SafeString(_CLEANER.clean(fragment) if fragment else "")


_TAG = re.compile(r"<[^>]*>")
_INLINE_TAG = re.compile(r"</?(?:a|b|strong|em|i|u|span|code|sub|sup)\b[^>]*>", re.IGNORECASE)
_SPACE = re.compile(r"\s+")


def plain_text(fragment: str | None) -> str:
    """The words of an HTML fragment (scripts and styles go with their content)."""
    return words(sanitise(fragment))


def words(clean: str) -> str:
    """The words of sanitised HTML on one line: inline tags go, and every other tag becomes a
    space, so that the words of neighbouring blocks stay apart."""
    text = _TAG.sub(" ", _INLINE_TAG.sub("", str(clean)))
    return _SPACE.sub(" ", html.unescape(text)).strip()


def lines(clean: str) -> str:
    """The words of sanitised HTML with each block (a paragraph, a list item, a row's cell) on a
    line of its own."""
    blocks = _TAG.split(_INLINE_TAG.sub("", str(clean)))
    found = (_SPACE.sub(" ", html.unescape(block)).strip() for block in blocks)
    return "\n".join(line for line in found if line)

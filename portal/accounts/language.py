"""The language a page is written in. English at today's addresses, Welsh under /cy/ (the
pages' i18n_patterns in portal/urls.py), so that links, bookmarks and caches are stable in each.
The addresses printed on paper and in QR codes (the look-up /p/…, the offline checker /V/…), the
passports' public keys and the API keep one address: they are written in the person's choice,
the language cookie (set by the language switch, the account's page and sign-in), else their
browser's language.

The switch (`switch`, on every page) goes through `portal.accounts.views.choose_language`,
which keeps the choice in the cookie and leads to the same page in the other language.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.base_user import AbstractBaseUser
from django.http import HttpRequest, HttpResponse
from django.template.loader import render_to_string
from django.urls import reverse, translate_url
from django.utils import translation
from django.utils.cache import patch_vary_headers
from django.utils.http import url_has_allowed_host_and_scheme

from portal.accounts import preferences

ONE_ADDRESS = ("/p/", "/V/", "/api/", "/intake/api/", "/.well-known/")


def one_address(path: str) -> bool:
    """Whether the path is one of those with one address in every language."""
    return path.startswith(ONE_ADDRESS)


def language_of(request: HttpRequest) -> str:
    """The language of the page asked for: its address's, or the person's choice where the
    address is the same in every language."""
    from_path = translation.get_language_from_path(request.path_info)
    if from_path:
        return from_path
    if one_address(request.path_info):
        return translation.get_language_from_request(request)  # the cookie, else the browser's
    return settings.LANGUAGE_CODE


class LanguageMiddleware:
    """Writes each page in its language (`language_of`), and tells caches that the pages of
    one address differ by the person's choice."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        language = language_of(request)
        translation.activate(language)
        request.LANGUAGE_CODE = translation.get_language()
        response = self.get_response(request)
        if one_address(request.path_info):
            patch_vary_headers(response, ("Accept-Language", "Cookie"))
        response.headers.setdefault("Content-Language", language)
        return response


# Each language's name, and the switch's hidden words, in that language itself: a person who
# reads only Welsh finds "Cymraeg" on an English page (GOV.UK's language switch).
@dataclass(frozen=True)
class Language:
    tag: str  # as `lang` and `hreflang` take it
    name: str
    change_to: str
    href: str = ""
    current: bool = False


LANGUAGES = {
    "en-gb": Language("en-GB", "English", "Change the language to English"),
    "cy": Language("cy", "Cymraeg", "Newid yr iaith i’r Gymraeg"),
}


def switch(request: HttpRequest) -> dict[str, object]:
    """Context processor: `languages`, the switch's links to this page in each language, and
    `page_language`, the page's `lang`."""
    here = request.get_full_path()
    current = translation.get_language()
    return {
        "languages": [
            replace(language, current=code == current,
                    href=reverse("language", args=[code]) + "?" + urlencode({"next": here}))
            for code, language in LANGUAGES.items()
        ],
        "page_language": LANGUAGES.get(current, LANGUAGES[settings.LANGUAGE_CODE]).tag,
    }  # fmt: skip


def page_in(language: str, next_page: str, request: HttpRequest) -> str:
    """The address of the page `next_page` (a path on this site; else the home page) in
    `language`, its query kept."""
    if not url_has_allowed_host_and_scheme(next_page, allowed_hosts={request.get_host()},
                                           require_https=request.is_secure()):  # fmt: skip
        next_page = reverse("home")
    written_in = translation.get_language_from_path(next_page) or settings.LANGUAGE_CODE
    with translation.override(written_in):
        return translate_url(next_page, language)


def remember(response: HttpResponse, language: str) -> HttpResponse:
    """The response, with the person's choice of language kept in their cookie."""
    response.set_cookie(
        settings.LANGUAGE_COOKIE_NAME, language, max_age=settings.LANGUAGE_COOKIE_AGE,
        secure=settings.LANGUAGE_COOKIE_SECURE, httponly=settings.LANGUAGE_COOKIE_HTTPONLY,
        samesite=settings.LANGUAGE_COOKIE_SAMESITE,
    )  # fmt: skip
    return response


# --- mail -----------------------------------------------------------------------------------------

# Mail to a person whose choice the portal does not know is written in both languages, Welsh
# first as bilingual mail in Wales is, each part asking which they want (mail/choose_language.txt).
BOTH = ["cy", "en-gb"]


def mail_languages(user: AbstractBaseUser) -> list[str]:
    """The languages the portal writes to the user in: the one they chose, or both until they
    choose."""
    chosen = preferences.language(user)
    return [chosen] if chosen else list(BOTH)


def written_in[T](languages: list[str], write: Callable[[], T]) -> list[T]:
    """What `write` writes, in each of the languages in turn."""
    written = []
    for language in languages:
        with translation.override(language):
            written.append(write())
    return written


def mail_body(languages: list[str], template: str, context: dict[str, object]) -> str:
    """A plain-text mail's body from its template, in each language (both: each part asking
    which the person wants, `asks_language` in its context, with the address of the account's
    page in that language, `account_page`), the parts a line apart."""

    def part() -> str:
        asks = {"asks_language": len(languages) > 1,
                "account_page": settings.PORTAL_URL + reverse("accounts:you")}  # fmt: skip
        return render_to_string(template, {**context, **asks})

    parts = written_in(languages, part)
    return "\n\n—\n\n".join(part.strip() for part in parts) + "\n"


def mail_subject(languages: list[str], write: Callable[[], str]) -> str:
    """A mail's subject in each language, Welsh / English."""
    return " / ".join(written_in(languages, write))

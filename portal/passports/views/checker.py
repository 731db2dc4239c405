"""The offline checker of passports' signed codes: an installable web app whose pages are
those under /V/ (issue 28).

- `/V/`: the checker's page, with a Scan button; and the shell that the checker's service
  worker answers any `/V/<code>` with when there is no signal, whose script (static/js/
  checker.js) verifies the code on the phone with the public keys it kept.
- `/V/manifest.webmanifest`: what a phone needs to install the checker.
- `/V/worker.js`: the service worker (static/js/checker-worker.js, on Workbox vendored in
  static/vendor/workbox), served from under /V/ so that its scope is /V/, preceded by the list
  of files it keeps, each with a digest of its content: a changed file changes the worker,
  and the phone fetches the new files.

The checker speaks each of the portal's languages offline: the worker keeps the shell in each
(asked with the language's Accept-Language and no cookie) and the scripts' words in each (the
JavaScript catalogue, /jsi18n/ and /cy/jsi18n/), and answers with the shell in the language of
the last /V/ page the person opened with signal (their choice, else their browser's).

The essentials' labels come from portal.passports.signing, so that the page online and the
checker offline name them alike.
"""

from __future__ import annotations

import hashlib
import json
from functools import cache
from pathlib import Path

from django.conf import settings
from django.contrib.staticfiles import finders
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.template.loader import get_template
from django.templatetags.static import static
from django.urls import resolve, reverse
from django.utils import translation
from django.utils.translation import gettext
from django.views.decorators.cache import cache_control
from django.views.decorators.http import require_safe

from portal.accounts.language import LANGUAGES
from portal.assurance import records
from portal.passports import signing
from portal.passports.views.camera import with_the_camera

SCOPE = signing.PATH  # /V/
WORKER_SOURCE = "js/checker-worker.js"
WORKBOX = "vendor/workbox/"
# What the checker's page loads, which the worker keeps (cborg's modules, which the checker's
# script imports, by their own names: module imports are not renamed by collectstatic).
KEPT_FILES = ("js/checker.js", "js/scanner.js", "js/words.js", "css/lookup.css", "img/mark.svg",
              "img/checker-192.png", "img/checker-512.png")  # fmt: skip
KEPT_MODULES = "vendor/cborg/"
SHELL_TEMPLATES = (
    "passports/checker.html",
    "passports/checker_head.html",
    "passports/checker_scan.html",
    "scan_panel.html",
    "passports/layout.html",
    "language_switch.html",
    "navigation.html",
)
MANIFEST_MEDIA_TYPE = "application/manifest+json"
WORKER_MEDIA_TYPE = "text/javascript; charset=utf-8"
THEME = "#1d3b2a"


def checker_config() -> dict[str, object]:
    """What the checker's script needs of the server, given to both the checker's page and
    the page of a code checked (json_script): where its worker and the keys are, and how the
    essentials are labelled."""
    return {
        "scope": SCOPE,
        "worker": reverse("checks:checker-worker"),
        "keys": reverse("checks:keys"),
        "essentials": [_essential(essential) for essential in signing.ESSENTIALS],
        "shortened": signing.SHORTENED,
        "validStatuses": list(records.VALID_STATUSES),
    }


def _essential(essential: signing.Essential) -> dict[str, object]:
    return {"claim": essential.claim, "name": essential.name, "label": str(essential.label),
            "kind": str(essential.kind)}  # fmt: skip


@require_safe
@cache_control(no_cache=True)
@with_the_camera
def checker(request: HttpRequest) -> HttpResponse:
    """The checker's page: what it does and a Scan button; offline, the shell of any code."""
    return render(request, "passports/checker.html", {"checker": checker_config()})


@require_safe
@cache_control(max_age=24 * 60 * 60)
def manifest(request: HttpRequest) -> HttpResponse:
    body = {
        "name": gettext("Passport checker · Assurance portal"),
        "short_name": gettext("Passport checker"),
        "description": gettext("Checks a crop passport's signed QR code, with signal or without."),
        "lang": translation.get_language(),
        "start_url": SCOPE,
        "scope": SCOPE,
        "display": "standalone",
        "background_color": "#ffffff",
        "theme_color": THEME,
        "icons": [
            {"src": static("img/mark.svg"), "sizes": "any", "type": "image/svg+xml"},
            {"src": static("img/checker-192.png"), "sizes": "192x192", "type": "image/png"},
            {"src": static("img/checker-512.png"), "sizes": "512x512", "type": "image/png"},
        ],
    }
    return JsonResponse(body, content_type=MANIFEST_MEDIA_TYPE)


@require_safe
@cache_control(no_cache=True)
def worker(request: HttpRequest) -> HttpResponse:
    response = HttpResponse(_worker_script(), content_type=WORKER_MEDIA_TYPE)
    response["Service-Worker-Allowed"] = SCOPE
    return response


def _worker_script() -> str:
    return (_worker_script_now if settings.DEBUG else _worker_script_kept)()


@cache
def _worker_script_kept() -> str:
    return _worker_script_now()


def _worker_script_now() -> str:
    """The worker's source, after what it keeps and where it finds Workbox."""
    source = _read(WORKER_SOURCE).decode()
    kept = [{"url": url, "revision": revision} for url, revision in [*_kept(), *_catalogues()]]
    shell = hashlib.sha256("".join(_template_source(name) for name in SHELL_TEMPLATES).encode())
    for code, _ in settings.LANGUAGES:
        with translation.override(code):
            shell.update(json.dumps(checker_config(), sort_keys=True).encode())
    for compiled in _compiled_catalogues():
        shell.update(compiled.read_bytes())
    config = {
        "workbox": static(WORKBOX + "workbox-sw.js"),
        "workboxModules": settings.STATIC_URL + WORKBOX,  # a folder: no hashed name
        "scope": SCOPE,
        "shell": SCOPE,
        "shellRevision": shell.hexdigest()[:16],
        "languages": [language.tag for language in LANGUAGES.values()],  # as pages' `lang`
        "keys": reverse("checks:keys"),
        "kept": kept,
    }
    return f"self.CHECKER = {json.dumps(config, indent=1)};\n\n{source}"


def _kept() -> list[tuple[str, str]]:
    """Each file the worker keeps, as the pages name it, and a digest of its content."""
    names = [*KEPT_FILES, *_module_files(KEPT_MODULES)]
    kept = {}
    for name in names:
        revision = hashlib.sha256(_read(name)).hexdigest()[:16]
        for url in (static(name), settings.STATIC_URL + name):  # hashed name, and its own
            kept[url] = revision
    return sorted(kept.items())


def _catalogues() -> list[tuple[str, str]]:
    """The scripts' words in each language (the JavaScript catalogue, at its address in that
    language), and a digest of each."""
    found = []
    for code, _ in settings.LANGUAGES:
        with translation.override(code):
            url = reverse("javascript-catalog")
            request = HttpRequest()
            request.method = "GET"
            body = resolve(url).func(request).content
        found.append((url, hashlib.sha256(body).hexdigest()[:16]))
    return found


def _compiled_catalogues() -> list[Path]:
    """The compiled catalogues the shell's words come from."""
    return sorted(
        path for folder in settings.LOCALE_PATHS for path in Path(folder).glob("*/LC_MESSAGES/*.mo")
    )


def _module_files(folder: str) -> list[str]:
    root = Path(_found(folder))
    return sorted(f"{folder}{path.relative_to(root).as_posix()}" for path in root.rglob("*.js"))


def _read(name: str) -> bytes:
    return Path(_found(name)).read_bytes()


def _found(name: str) -> str:
    path = finders.find(name)
    if not isinstance(path, str):
        raise FileNotFoundError(f"static/{name} is missing")
    return path


def _template_source(name: str) -> str:
    return get_template(name).template.source

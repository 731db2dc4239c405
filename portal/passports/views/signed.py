"""A passport's signed code checked by the portal (`/V/<code>`, what the QR code of a passport's
page opens), for anyone, signed in or not; and the public keys that verify signed codes
(`/.well-known/passport-keys.json`), for anyone's software.

The check needs no call to the service: the signature says what the portal signed and when.
Beside it, for a genuine code, the claim as the service gives it now, through the public
look-up's own path and allowance (portal.passports.lookup.look_up_now). A code that is not
genuine gets its refusal in words, and no look-up.
"""

from __future__ import annotations

import hashlib
import json
import logging

from django.http import HttpRequest, HttpResponse, JsonResponse
from django.shortcuts import render
from django.views.decorators.cache import never_cache
from django.views.decorators.http import etag, require_safe

from portal.lib.signed_codes import State
from portal.passports import signing
from portal.passports.lookup import look_up_now
from portal.passports.views.camera import with_the_camera
from portal.passports.views.checker import checker_config

logger = logging.getLogger(__name__)

KEYS_MEDIA_TYPE = "application/jwk-set+json"  # RFC 7517, section 8.5
KEYS_KEEP_SECONDS = 60 * 60  # a new key is published before it signs (docs/running/keys.md)


@require_safe
@never_cache
@with_the_camera
def signed_check(request: HttpRequest, payload: str) -> HttpResponse:
    checked = signing.check(payload.removesuffix("/"))
    looked_up = same_record = passport = None
    if checked.is_genuine and checked.short_code:
        looked_up = look_up_now(request, checked.short_code)
        passport = looked_up.verdict and looked_up.verdict.passport
        same_record = checked.matches(passport) if passport else None
    context = {"checked": checked, "rows": checked.rows_known(passport or None),
               "looked_up": looked_up, "same_record": same_record,
               "checker": checker_config()}  # fmt: skip
    status = 400 if checked.state is State.MALFORMED else 200
    return render(request, "passports/signed.html", context, status=status)


def _keys_body() -> bytes:
    return json.dumps(signing.published_keys(), separators=(",", ":")).encode()


def _keys_etag(request: HttpRequest) -> str | None:
    try:
        return hashlib.sha256(_keys_body()).hexdigest()[:32]
    except Exception:  # the key directory cannot be read: answered below
        return None


@require_safe
@etag(_keys_etag)
def passport_keys(request: HttpRequest) -> HttpResponse:
    """The JWK set of the keys that verify passports' codes now; 503 if the key directory
    cannot be read (an empty set would tell checkers to trust no code)."""
    try:
        body = _keys_body()
    except Exception as error:
        logger.error("The passport keys cannot be published: %s", error)
        response = JsonResponse({"error": "The keys cannot be read just now."}, status=503)
        response["Retry-After"] = "60"
        return response
    response = HttpResponse(body, content_type=KEYS_MEDIA_TYPE)
    response["Cache-Control"] = f"public, max-age={KEYS_KEEP_SECONDS}"
    response["Access-Control-Allow-Origin"] = "*"  # public keys, for any site's checker
    return response

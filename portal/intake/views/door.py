"""The door of a site's weighbridge or laboratory software: `POST /intake/api/loads` with
`Authorization: Bearer <the site's token>` and a JSON body, one record or a list of at most
PORTAL_INTAKE_DOOR_RECORDS (portal/intake/door.py).

Answers, always JSON:
- 401 without a token, or with one that is not a site's or was revoked;
- 429 past the token's PORTAL_INTAKE_DOOR_PER_MINUTE requests in a minute, or past
  FAILURES_PER_MINUTE requests with a bad token from one address (so tokens cannot be guessed);
- 413 for a body larger than door.DOOR_BYTES (declared so, or sent chunked past it: the
  connection is then closed, the rest unread), or a list of more records than allowed;
- 411 for a body sent chunked to a server that cannot tell where it ends (never read as empty);
- 400 for a body that is not JSON, or not a record nor a list of them;
- one record: 201 recorded, 200 corrected, already recorded or unchanged, 422 refused with its
  errors by field; a list: 200, with each record's answer in order and their tally.

It takes no session nor cookie, so it is exempt from CSRF checks: the token is its credential.
"""

from __future__ import annotations

import json
from decimal import Decimal

from django.conf import settings
from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_POST
from django_ratelimit.core import get_usage

from portal.intake import door, rows
from portal.intake.models import SiteToken
from portal.lib import bodies
from portal.lib.client_address import client_address

FAILURES_PER_MINUTE = 20
STATUS_OF_ONE = {rows.Outcome.RECORDED: 201, rows.Outcome.REFUSED: 422}


@csrf_exempt
@never_cache
@require_POST
def loads(request: HttpRequest) -> JsonResponse:
    if _failures(request, increment=False):
        return _too_many(request, "Too many requests with a bad token from this address.")
    token = door.token_of(request.headers.get("Authorization", ""))
    if token is None:
        _failures(request, increment=True)
        return _unauthorised()
    rate = f"{settings.PORTAL_INTAKE_DOOR_PER_MINUTE}/m"
    usage = get_usage(request, group="intake-door", key=lambda g, r: str(token.pk), rate=rate,
                      increment=True)  # fmt: skip
    if usage is not None and usage["should_limit"]:
        return _too_many(request, "Too many requests with this token: wait a minute.",
                         usage["time_left"])  # fmt: skip
    return _taken(request, token)


def _taken(request: HttpRequest, token: SiteToken) -> JsonResponse:
    try:
        body = bodies.body_of(request, door.DOOR_BYTES)
    except bodies.BodyTooLarge:
        return _error(413, f"The body is larger than {door.DOOR_BYTES:,} bytes: send fewer "
                           "records at a time.")  # fmt: skip
    except bodies.LengthRequired:
        return _error(411, "Send the body with a Content-Length header.")
    try:
        sent = json.loads(body, parse_float=Decimal)
    except (ValueError, RecursionError) as error:
        return _error(400, f"The body is not JSON: {error}"[:300])
    one = isinstance(sent, dict)
    records = [sent] if one else sent
    if not isinstance(records, list) or not records:
        return _error(400, "Send a record (a JSON object) or a list of them.")
    most = settings.PORTAL_INTAKE_DOOR_RECORDS
    if len(records) > most:
        return _error(413, f"At most {most:,} records a request: this has {len(records):,}.")
    answers = door.take(token, records, request)
    if one:
        [answer] = answers
        return JsonResponse(answer.as_json(), status=STATUS_OF_ONE.get(answer.taken.outcome, 200))
    return JsonResponse({"records": [answer.as_json() for answer in answers],
                         "tally": door.tally(answers)})  # fmt: skip


def _failures(request: HttpRequest, *, increment: bool) -> bool:
    """Whether the client address has sent FAILURES_PER_MINUTE bad tokens (or, counting
    this one, more) in the current minute."""
    usage = get_usage(request, group="intake-door-refused", key=lambda g, r: client_address(r),
                      rate=f"{FAILURES_PER_MINUTE}/m", increment=increment)  # fmt: skip
    return usage is not None and usage["count"] >= usage["limit"] + increment


def _error(status: int, message: str) -> JsonResponse:
    return JsonResponse({"error": message}, status=status)


def _unauthorised() -> JsonResponse:
    response = _error(401, "Send a token of the site's, made in the portal's admin: "
                           "Authorization: Bearer <token>.")  # fmt: skip
    response["WWW-Authenticate"] = 'Bearer realm="intake", error="invalid_token"'
    return response


def _too_many(request: HttpRequest, message: str, seconds: int = 60) -> JsonResponse:
    response = _error(429, message)
    response["Retry-After"] = str(max(1, seconds))
    return response

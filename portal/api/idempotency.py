"""`Idempotency-Key` on every POST, as Stripe's API takes it: the answer to a POST sent with a key
is kept (PORTAL_API_IDEMPOTENCY_HOURS, at least a day) and given again to the same token sending
the same key with the same body, to the same address, without doing anything again; the same
key with another body or address is refused (422 `idempotency_key_reused`), and while the first
request is still being answered, a second is told to wait (409 `idempotency_key_in_use`).

Every POST route is decorated with `@idempotent` (beneath its route decorator):

    @router.post("/loads", auth=scoped("intake:write"))
    @idempotent
    def record(request, ...): ...

Kept: answers below 500 but for 401, 403 and 429 (which a retry may find otherwise); a 5xx or
those leave the key free for the retry. A request whose token is refused is answered as it
would be without a key. A key claimed by a request that never finished (its process killed) is
free again after STALE_SECONDS.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable
from contextlib import nullcontext
from datetime import timedelta

from django.conf import settings
from django.db import IntegrityError, transaction
from django.http import HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from django.utils import timezone
from django.utils.translation import gettext as _
from ninja.decorators import decorate_view

from portal.accounts import credentials
from portal.api import tokens
from portal.api.auth import found
from portal.api.errors import error_response
from portal.api.models import KeptAnswer, Token

HEADER = "Idempotency-Key"
LONGEST_KEY = 255
STALE_SECONDS = 5 * 60
NOT_KEPT = frozenset({401, 403, 429})
REPLAYED = "Idempotent-Replayed"

type Run = Callable[..., HttpResponseBase]


def _keeping(run: Run) -> Run:
    @functools.wraps(run)
    def answered(request: HttpRequest, *args: object, **kwargs: object) -> HttpResponseBase:
        key = request.headers.get(HEADER)
        if key is None:
            return run(request, *args, **kwargs)
        if not 0 < len(key) <= LONGEST_KEY or not key.isascii() or not key.isprintable():
            message = _("An %(header)s is 1 to %(most)s printable ASCII characters.") % {
                "header": HEADER, "most": LONGEST_KEY}  # fmt: skip
            return error_response(400, "idempotency_key_invalid", message, {HEADER: [message]})
        try:
            token = found(request)
        except tokens.Refused:
            return run(request, *args, **kwargs)  # answered as without a key: 401
        return _once(request, token, key, lambda: run(request, *args, **kwargs))

    return answered


idempotent = decorate_view(_keeping)


def _once(
    request: HttpRequest, token: Token, key: str, run: Callable[[], HttpResponseBase]
) -> HttpResponseBase:
    fingerprint = fingerprint_of(request)
    claimed = _claim(token, key, fingerprint)
    if not isinstance(claimed, KeptAnswer):
        return claimed
    try:
        response = run()
    except BaseException:
        claimed.delete()
        raise
    if response.status_code >= 500 or response.status_code in NOT_KEPT or response.streaming:
        claimed.delete()
        return response
    # Sealed: an answer may hold a secret shown once (a webhook endpoint's).
    claimed.status, claimed.body = response.status_code, credentials.seal(response.content)
    claimed.content_type = response.get("Content-Type", "")[:100]
    claimed.save(update_fields=["status", "body", "content_type"])
    return response


def fingerprint_of(request: HttpRequest) -> str:
    """What a key's request is the same request by: its method, address and body."""
    digest = hashlib.sha256(f"{request.method} {request.get_full_path()}\n".encode())
    digest.update(request.body)
    return digest.hexdigest()


def _claim(token: Token, key: str, fingerprint: str) -> KeptAnswer | HttpResponse:
    """The key's new row, claimed by this request; or the answer to give instead (the kept one,
    or a refusal)."""
    try:
        # Alone, the INSERT is its own transaction: one exchange with the database, not three
        # (BEGIN, INSERT, COMMIT); within a caller's transaction, a savepoint keeps it whole.
        with (
            transaction.atomic() if transaction.get_connection().in_atomic_block else nullcontext()
        ):
            return KeptAnswer.objects.create(token=token, key=key, fingerprint=fingerprint)
    except IntegrityError:
        pass
    kept = KeptAnswer.objects.filter(token=token, key=key).first()
    if kept is None:  # swept meanwhile
        return _claim(token, key, fingerprint)
    if kept.fingerprint != fingerprint:
        said = _("Sent before with another body or address.")
        return error_response(422, "idempotency_key_reused", _("This Idempotency-Key was sent "
                              "with another request: use a new key for each request."),
                              {HEADER: [said]})  # fmt: skip
    if kept.status is None:
        if timezone.now() - kept.created > timedelta(seconds=STALE_SECONDS):
            KeptAnswer.objects.filter(pk=kept.pk, status__isnull=True).delete()
            return _claim(token, key, fingerprint)
        return error_response(409, "idempotency_key_in_use", _("A request with this "
                              "Idempotency-Key is still being answered: try again shortly."),
                              retry_after=1)  # fmt: skip
    return _replayed(kept)


def _replayed(kept: KeptAnswer) -> HttpResponse:
    body = credentials.unseal(bytes(kept.body))
    if body is None:
        return error_response(422, "idempotency_answer_unreadable", _("The answer kept for this "
                              "Idempotency-Key can no longer be read (the portal's keys were "
                              "changed): check what the first request did before sending it "
                              "again with a new key."))  # fmt: skip
    response = HttpResponse(body, status=kept.status, content_type=kept.content_type)
    response[REPLAYED] = "true"
    return response


def sweep() -> int:
    """Removes the answers kept longer than PORTAL_API_IDEMPOTENCY_HOURS; how many."""
    since = timezone.now() - timedelta(hours=settings.PORTAL_API_IDEMPOTENCY_HOURS)
    removed, _by_model = KeptAnswer.objects.filter(created__lt=since).delete()
    return removed


def is_idempotent(operation: object) -> bool:
    """Whether a route's operation (ninja's) was decorated with `@idempotent`."""
    return _keeping in getattr(operation, "_run_decorators", ())

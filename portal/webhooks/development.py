"""The webhooks `make run`'s receiver kept (scripts/webhook_receiver.py; its folder named by
PORTAL_DEVELOPMENT_WEBHOOKS, set only where DEBUG or PORTAL_DEVELOPMENT is on), beside the
development mailbox: each with its headers and body, and whether its signature is that of an
endpoint's secret. Staff only, as the mailbox is: events name every business's passports."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from django.conf import settings
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from portal.accounts.decorators import staff_only
from portal.outbox import signing
from portal.outbox.models import Endpoint

SHOWN = 100


@dataclass(frozen=True)
class Received:
    at: datetime | None
    path: str
    headers: dict[str, str]
    body: str
    verified_by: Endpoint | None

    @property
    def type(self) -> str:
        try:
            return str(json.loads(self.body).get("type", ""))
        except (ValueError, AttributeError):
            return ""

    @property
    def webhook_headers(self) -> list[tuple[str, str]]:
        return [(name, value) for name, value in self.headers.items()
                if name.lower().startswith("webhook-")]  # fmt: skip


@require_safe
@staff_only
def received(request: HttpRequest) -> HttpResponse:
    if not settings.PORTAL_DEVELOPMENT_WEBHOOKS:
        raise Http404("No receiver of make run's keeps webhooks here.")
    folder = Path(settings.PORTAL_DEVELOPMENT_WEBHOOKS)
    files = sorted(folder.glob("*.json"), reverse=True)[:SHOWN] if folder.is_dir() else []
    candidates = list(Endpoint.objects.filter(url__startswith="http://127.0.0.1"))
    kept = [_read(path, candidates) for path in files]
    return render(request, "webhooks/development.html",
                  {"received": [one for one in kept if one is not None],
                   "address": settings.PORTAL_DEVELOPMENT_WEBHOOK_URL})  # fmt: skip


def _read(path: Path, candidates: list[Endpoint]) -> Received | None:
    try:
        kept = json.loads(path.read_text(encoding="utf-8"))
        at = datetime.fromisoformat(kept["received"])
        headers = {str(k): str(v) for k, v in kept["headers"].items()}
        body, where = str(kept["body"]), str(kept["path"])
    except (OSError, ValueError, KeyError, AttributeError):
        return None
    return Received(at, where, headers, body, _signer(headers, body, candidates))


def _signer(headers: dict[str, str], body: str, candidates: list[Endpoint]) -> Endpoint | None:
    lower = {name.lower(): value for name, value in headers.items()}
    parts = (lower.get("webhook-id", ""), lower.get("webhook-timestamp", ""),
             lower.get("webhook-signature", ""))  # fmt: skip
    for endpoint in candidates:
        for secret in endpoint.signing_secrets():
            if signing.verifies(secret, *parts, body.encode()):
                return endpoint
    return None

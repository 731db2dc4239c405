"""Signatures as the Standard Webhooks specification writes them: `webhook-signature` holds
`v1,` and the base64 of HMAC-SHA256 of `id.timestamp.body`, keyed by the secret's bytes (what
follows `whsec_`, in base64), once for each secret that signs now, separated by spaces."""

from __future__ import annotations

import base64
import hashlib
import hmac

from portal.outbox.models import SECRET_PREFIX


def signature(secret: str, webhook_id: str, timestamp: int, body: bytes) -> str:
    key = base64.b64decode(secret.removeprefix(SECRET_PREFIX))
    signed = f"{webhook_id}.{timestamp}.".encode() + body
    digest = hmac.new(key, signed, hashlib.sha256).digest()
    return "v1," + base64.b64encode(digest).decode("ascii")


def headers(secrets: list[str], webhook_id: str, timestamp: int, body: bytes) -> dict[str, str]:
    """The three headers of a delivery's attempt at `timestamp` (seconds since the epoch)."""
    return {
        "webhook-id": webhook_id,
        "webhook-timestamp": str(timestamp),
        "webhook-signature": " ".join(
            signature(secret, webhook_id, timestamp, body) for secret in secrets
        ),
    }


def verifies(secret: str, webhook_id: str, timestamp: str, signatures: str, body: bytes) -> bool:
    """Whether one of `signatures` (a webhook-signature header) was made with `secret`."""
    try:
        expected = signature(secret, webhook_id, int(timestamp), body)
    except (ValueError, TypeError):
        return False
    return any(hmac.compare_digest(expected, given) for given in signatures.split())

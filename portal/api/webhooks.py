"""The webhook endpoints' routes: `/api/v1/webhooks/...`."""

from __future__ import annotations

from ninja import Router

router = Router()

"""The passports' routes (growers' software): `/api/v1/passports/...`."""

from __future__ import annotations

from ninja import Router

router = Router()

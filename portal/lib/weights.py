"""Tonnes as every view writes them (pages, mails, sheets, error messages): to three places,
a kilogram, so that a weight from the weighbridge's kilograms or a claim's tonnes as typed (at
most three places) is never rounded, and the same weight reads the same everywhere."""

from __future__ import annotations

from decimal import Decimal


def tonnes(value: Decimal) -> str:
    """29.100, 1,204.500."""
    return f"{value:,.3f}"


def tonnes_of_kg(kilograms: int) -> str:
    """A weight in kilograms, written in tonnes."""
    return tonnes(Decimal(kilograms) / 1000)

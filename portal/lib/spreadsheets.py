"""Cells of the CSV files the portal writes."""

from __future__ import annotations

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")


def safe_cell(value: str | None) -> str:
    """Text that a spreadsheet will not run as a formula: one that would begin as a formula
    does is given a leading apostrophe, which spreadsheets show as text."""
    text = value or ""
    return "'" + text if text.startswith(FORMULA_STARTS) else text

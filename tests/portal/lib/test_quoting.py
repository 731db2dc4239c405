"""Words of someone else's quoted in plain-text mail: every line marked "> ", and nothing in them
that acts on a reader's screen."""

from __future__ import annotations

import pytest

from portal.lib.quoting import quoted


def test_every_line_is_quoted():
    assert quoted("Tare of the wrong lorry.\nSee https://example.com/x") == (
        "> Tare of the wrong lorry.\n> See https://example.com/x"
    )


@pytest.mark.parametrize(
    "hidden",
    ["\x1b", "\x07", "\x85", "\u202e", "\u200b", "\u2066", "\ufeff", "\x00", "\x7f"],
    ids=["ESC", "BEL", "NEL", "RLO", "zero-width space", "LRI", "BOM", "NUL", "DEL"],
)
def test_what_acts_on_a_screen_is_shown_as_a_replacement_character(hidden):
    assert quoted(f"Tare{hidden}ok") == "> Tare\ufffdok"


@pytest.mark.parametrize("line_break", ["\r\n", "\r", "\u2028", "\u2029"])
def test_no_line_break_starts_an_unquoted_line(line_break):
    text = quoted(f"First.{line_break}Second.")
    assert all(line.startswith("> ") for line in text.split("\n")), text

"""The one table of hostile values: what a hostile sender, or a paste from elsewhere, puts where
the portal takes text, a number or a date, from any door (a form, an upload's CSV or workbook,
the sites' JSON door, a list's query string). Every test of those doors takes its values from
here, so that one rule (portal/lib/printable.py, portal/lib/numbers.py) is held to everywhere.

Each value is a `Hostile`: what it is (the test's id) and the value itself."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Hostile:
    what: str
    value: str

    def __str__(self) -> str:
        return self.what


# Characters no text the portal keeps holds: control characters, and those that turn text
# around or hide in it.
CONTROL = {
    "escape": "\x1b", "bell": "\x07", "delete": "\x7f", "tab": "\t",
    "control sequence introducer (C1)": "\x9b", "next line (U+0085)": "\x85",
}  # fmt: skip
INVISIBLE = {
    "right-to-left override (U+202E)": "\u202e", "left-to-right override": "\u202d",
    "right-to-left embedding": "\u202b", "pop directional formatting": "\u202c",
    "right-to-left isolate": "\u2067", "pop directional isolate": "\u2069",
    "right-to-left mark": "\u200f", "Arabic letter mark": "\u061c",
    "zero-width space": "\u200b", "zero-width non-joiner": "\u200c",
    "zero-width joiner": "\u200d", "word joiner (U+2060)": "\u2060",
    "byte-order mark (U+FEFF)": "\ufeff", "line separator (U+2028)": "\u2028",
    "paragraph separator (U+2029)": "\u2029",
}  # fmt: skip
LINE_BREAKS = {"line feed": "\n", "carriage return": "\r"}


def within(text: str, character: str) -> str:
    """`character` in the middle of `text`, where no stripping of the ends takes it away."""
    middle = len(text) // 2
    return text[:middle] + character + text[middle:]


def one_line_refused(text: str) -> list[Hostile]:
    """`text` spoilt by each character one line of text may not hold (a line break too)."""
    refused = CONTROL | INVISIBLE | LINE_BREAKS
    return [Hostile(what, within(text, character)) for what, character in refused.items()]


def lines_refused(text: str) -> list[Hostile]:
    """`text` spoilt by each character text of several lines may not hold."""
    return [Hostile(what, within(text, c)) for what, c in (CONTROL | INVISIBLE).items()]


def lines_taken(text: str) -> str:
    """`text` over two lines, as a browser sends a text area's lines (\\r\\n): taken."""
    return within(text, "\r\n")


# The digits of other scripts, by their zero: Python and Django read each as ours.
OTHER_DIGITS = {"Arabic-Indic": 0x660, "Persian": 0x6F0, "Devanagari": 0x966, "full-width": 0xFF10}


def in_digits_of(text: str, zero: int) -> str:
    return "".join(chr(zero + int(c)) if c.isascii() and c.isdigit() else c for c in text)


def other_scripts(text: str) -> list[Hostile]:
    """`text` (a number, a date, a time) with its digits in each other script: all of them, and
    its last only (Python reads a date of mixed digits where it refuses one of another
    script's only)."""
    return [hostile for script, zero in OTHER_DIGITS.items() for hostile in (
        Hostile(f"{script} digits", in_digits_of(text, zero)),
        Hostile(f"{script} last digit", text[:-1] + in_digits_of(text[-1], zero)),
    )]  # fmt: skip


def not_numbers(number: str = "14") -> list[Hostile]:
    """What is not a number by the portal's rule, though Python or Django would read it."""
    return [*other_scripts(number),
            Hostile("an exponent", "1E1"), Hostile("an exponent, small", "1e1"),
            Hostile("underscores", f"{number[0]}_{number[1:]}"), Hostile("infinity", "Infinity"),
            Hostile("not a number", "NaN"), Hostile("hexadecimal", "0x1A"),
            Hostile("a comma", f"{number[:-1]},{number[-1]}"),
            Hostile("two decimal points", "1.2.3"), Hostile("a sign twice", "--1"),
            Hostile("a space inside", f"{number[0]} {number[1:]}"),
            Hostile("a control character inside", within(number, "\x1b")),
            Hostile("a zero-width space inside", within(number, "\u200b"))]  # fmt: skip


def not_weights() -> list[Hostile]:
    """A weight in kilograms (here 41200) as no one writes it: commas not a thousand apart, and
    whatever is not a number."""
    return [Hostile("a comma four digits from the end", "41,2000"),
            Hostile("a comma two digits from the end", "412,00"),
            Hostile("a comma at the end", "41200,"), Hostile("a comma at the start", ",41200"),
            *not_numbers("41200")]  # fmt: skip


WEIGHTS_TAKEN = {"41,200": 41200, "41200": 41200, "+41,200": 41200}
ZEROS = {"-0": "0", "-0.0": "0.0", "+0": "0"}  # a number, zero, as it is kept and shown

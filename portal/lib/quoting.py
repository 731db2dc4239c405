"""Words that came from someone else (an intake site's reason for a correction, say), quoted in
the portal's plain-text mail: every line marked as quoted ("> "), so that they read as the
sender's words under a line that names the sender ("Stour Valley Grain wrote:"), never as the
portal's own. Nothing in them acts on a reader's screen: control, line-separating,
direction-changing and invisible characters are shown as U+FFFD, and line breaks of any kind
start a new quoted line."""

from __future__ import annotations

import re

# C0 and C1 controls (but the line feed), line and paragraph separators, the marks and
# overrides of direction, and the invisible characters that join, separate or hide text.
_HIDDEN = re.compile(r"[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200b-\u200f\u2028-\u202e"
                     r"\u2060-\u2069\ufeff]")  # fmt: skip
SHOWN_INSTEAD = "\ufffd"
MARK = "> "


def quoted(words: str) -> str:
    """`words` as quoted lines of plain text, each beginning "> "."""
    lines = words.replace("\r\n", "\n").replace("\r", "\n").strip("\n").split("\n")
    return "\n".join(MARK + _HIDDEN.sub(SHOWN_INSTEAD, line).rstrip() for line in lines)

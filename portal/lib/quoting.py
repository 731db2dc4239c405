"""Words that came from someone else (an intake site's reason for a correction, say), quoted in
the portal's plain-text mail: every line marked as quoted ("> "), so that they read as the
sender's words under a line that names the sender ("Stour Valley Grain wrote:"), never as the
portal's own. Nothing in them acts on a reader's screen: control, line-separating,
direction-changing and invisible characters are shown as U+FFFD, and line breaks of any kind
start a new quoted line."""

from __future__ import annotations

from portal.lib.printable import NOT_PRINTABLE_BUT_LINE_BREAKS

SHOWN_INSTEAD = "\ufffd"
MARK = "> "


def quoted(words: str) -> str:
    """`words` as quoted lines of plain text, each beginning "> "."""
    lines = words.replace("\r\n", "\n").replace("\r", "\n").strip("\n").split("\n")
    return "\n".join(
        MARK + NOT_PRINTABLE_BUT_LINE_BREAKS.sub(SHOWN_INSTEAD, line).rstrip() for line in lines
    )

"""How long a client waits before a rate limit (django-ratelimit's `get_usage`) lets it try
again."""

from __future__ import annotations

from collections.abc import Mapping


def seconds_to_wait(usage: Mapping[str, int]) -> int:
    """Whole seconds until the limit's window has turned. The window's last second still counts
    in it (django-ratelimit compares whole seconds), so a client told `time_left` and waiting
    just that long would be refused once more: one second more, and never less than one."""
    return usage["time_left"] + 1

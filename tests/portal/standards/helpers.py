"""What the standards tests share: the demo schemes, and reading the pages they make."""

from __future__ import annotations

import json
import re
from pathlib import Path

from sandbox.ids import guid_for

DATA = Path(__file__).resolve().parents[3] / "sandbox" / "demo" / "data"

CROPS = guid_for("scheme:crops")
BEEF_LAMB = guid_for("scheme:beef-lamb")
FRESH_PRODUCE = guid_for("scheme:fresh-produce")
UNKNOWN_SCHEME = "0000000000.0000000000000"

_SUMMARY_CODE = re.compile(r'<summary>\s*<span class="code">([^<]+)</span>')
_COUNT = re.compile(r'<p class="count" role="status">([^<]*)</p>')


def demo(name: str) -> dict:
    """One of the sandbox's demo files (`crops`, `crops-preview`, ...)."""
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


def demo_section(scheme: str, code: str) -> dict:
    """A section of a live demo scheme by its code (`CR.ST`)."""
    sector, prefix = code.split(".")
    return next(
        s for s in demo(scheme)["sections"] if (s["sector"], s["prefix"]) == (sector, prefix)
    )


def demo_references(scheme: str, code: str) -> list[str]:
    """The references of a live demo section's standard points, in order."""
    return [f"{code}.{p['number']}" for p in demo_section(scheme, code)["points"]]


def shown_references(page: str) -> list[str]:
    """The references of the standard points on a page, in the order shown."""
    return _SUMMARY_CODE.findall(page)


def count_line(page: str) -> str:
    [line] = _COUNT.findall(page)
    return " ".join(line.split())


def main(page: str) -> str:
    """The page's <main>, so that the layout's own scripts and links do not get in the way."""
    return page[page.index("<main") : page.index("</main>")]

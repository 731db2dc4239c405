"""What the standards tests share: the demo schemes, and reading the pages they make."""

from __future__ import annotations

import io
import json
import re
from datetime import datetime
from pathlib import Path

import pypdf
from django.utils import timezone

from sandbox.ids import guid_for

DATA = Path(__file__).resolve().parents[3] / "sandbox" / "demo" / "data"

CROPS = guid_for("scheme:crops")
BEEF_LAMB = guid_for("scheme:beef-lamb")
FRESH_PRODUCE = guid_for("scheme:fresh-produce")
UNKNOWN_SCHEME = "0000000000.0000000000000"
STORAGE = f"/standards/{CROPS}/CR/ST/"  # the crops scheme's CR.ST section
HTMX = {"HX-Request": "true"}

_SUMMARY_CODE = re.compile(r'<summary>\s*<span class="code">([^<]+)</span>')
_COUNT = re.compile(r'<p class="count" role="status">([^<]*)</p>')
_REFRESHED = re.compile(
    r"Content last refreshed from the Assurance service (\d{1,2} \w{3} \d{4} at \d\d:\d\d)\."
)


def made_points(response) -> bool:
    """Whether the request made a section's points (rendered the point partial), rather than
    using those kept."""
    return any(
        t.name == "point" and t.origin.template_name == "standards/section.html"
        for t in response.templates
    )


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


def demo_critical_references(scheme: str, code: str) -> list[str]:
    """The references of a live demo section's points with a critical answer, in order."""
    points = demo_section(scheme, code)["points"]
    return [f"{code}.{p['number']}" for p in points if any(a["critical"] for a in p["answers"])]


def shown_references(page: str) -> list[str]:
    """The references of the standard points on a page, in the order shown."""
    return _SUMMARY_CODE.findall(page)


def count_line(page: str) -> str:
    [line] = _COUNT.findall(page)
    return " ".join(line.split())


def main(page: str) -> str:
    """The page's <main>, so that the layout's own scripts and links do not get in the way."""
    return page[page.index("<main") : page.index("</main>")]


def refreshed_at(page: str) -> datetime:
    """When the page says its content was last refreshed, to the minute."""
    [stamp] = _REFRESHED.findall(page)
    moment = datetime.strptime(stamp, "%d %b %Y at %H:%M")
    return timezone.make_aware(moment, timezone.get_current_timezone())


def aim_guid(page: str, name: str) -> str:
    """The GUID of the aim called `name` in a section page's aim filter."""
    [guid] = re.findall(rf'<option value="([^"]+)"[^>]*>{name}</option>', page)
    return guid


def pdf_words(content: bytes) -> str:
    """The words of a PDF document, its pages in turn, one space between each."""
    reader = pypdf.PdfReader(io.BytesIO(content))
    return " ".join(" ".join(page.extract_text() for page in reader.pages).split())

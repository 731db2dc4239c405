"""portal.standards.markup: a standard point's markup shows every plain-text value as text."""

from __future__ import annotations

from html.parser import HTMLParser

from hypothesis import given
from hypothesis import strategies as st

from portal.assurance import records
from portal.standards.content import Point
from portal.standards.markup import point_markup, points_markup

HOSTILE = (
    "\"><script>alert(1)</script> &lt;i&gt; &amp; & <b>bold</b> 'quoted'"  # as text, all of it
)


class _Parts(HTMLParser):
    """The start tags of a document, and the text inside each element with a class."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[str] = []
        self.text_by_class: dict[str, list[str]] = {}
        self._open: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)
        self._open.append(dict(attrs).get("class") or "")

    def handle_endtag(self, tag: str) -> None:
        self._open.pop()

    def handle_data(self, data: str) -> None:
        for css_class in filter(None, self._open):
            self.text_by_class.setdefault(css_class, []).append(data)

    def text_of(self, css_class: str) -> str:
        return "".join(self.text_by_class.get(css_class, []))


def parts_of(html: str) -> _Parts:
    parts = _Parts()
    parts.feed(html)
    parts.close()
    return parts


def hostile_point() -> Point:
    return Point(
        point=records.StandardPoint(
            guid="p1", reference=f"CR.ST.1{HOSTILE}", assessment_question=f"Q {HOSTILE}",
            score=2.5, revision_status=f"New {HOSTILE}",
        ),
        guidelines="", record_keeping="", guidance="",
        audit_points=[records.AuditPoint(reference=f"A{HOSTILE}", item_text=f"Check {HOSTILE}")],
        answers=[
            records.Answer(answer_text=f"Yes {HOSTILE}", critical_point=False),
            records.Answer(answer_text=f"No {HOSTILE}", critical_point=True),
        ],
        aims=[records.Category(guid="a1", name=f"Aim {HOSTILE}")],
    )  # fmt: skip


def test_every_plain_text_value_is_shown_as_text():
    parts = parts_of(point_markup(hostile_point(), "/standards/x/CR.ST.1/"))
    assert "script" not in parts.tags
    assert parts.text_of("point-question") == f"Q {HOSTILE}"
    assert parts.text_of("audit-points") == f"A{HOSTILE} Check {HOSTILE}"
    assert parts.text_of("answers") == f"Yes {HOSTILE}Critical No {HOSTILE}"
    assert parts.text_of("badge") == f"New {HOSTILE}"
    assert parts.text_of("badge badge-critical") == "CriticalCritical"
    facts = parts.text_of("point-facts muted")
    assert f"New {HOSTILE}" in facts
    assert f"Aims: Aim {HOSTILE}" in facts
    assert facts.endswith(f"Link to CR.ST.1{HOSTILE}")


def test_the_link_is_the_address_given_whatever_it_holds():
    link = '/standards/x/CR.ST.1"onmouseover="alert(1)/'
    html = point_markup(hostile_point(), link)
    assert f'href="{link.replace(chr(34), "&quot;")}"' in html
    assert "onmouseover=" not in html.replace("&quot;onmouseover=&quot;", "")


def test_a_section_is_its_points_in_turn():
    point = hostile_point()
    assert points_markup([point, point], "/p/") == 2 * point_markup(point, f"/p/{point.reference}/")


MARKUP_PIECES = ["&", "amp;", "lt", ";", "#60;", "<", ">", "/", "script", "b", '"', "'", "=", " "]
TEXT_LIKE_MARKUP = st.lists(st.sampled_from(MARKUP_PIECES)).map("".join)


@given(TEXT_LIKE_MARKUP | st.text())
def test_any_text_comes_back_as_itself(text):
    point = Point(
        point=records.StandardPoint(reference="CR.ST.1", assessment_question=text),
        guidelines="", record_keeping="", guidance="",
    )  # fmt: skip
    parts = parts_of(point_markup(point, "/p/"))
    expected = text.replace("\r\n", "\n").replace("\r", "\n")  # as HTML reads line ends
    assert parts.text_of("point-question") in {text, expected}
    assert parts.tags.count("span") == 2  # the reference and the question, nothing of the text

"""portal.standards.sanitise: sanitise and plain_text: upstream HTML made safe to show."""

from __future__ import annotations

import re

import pytest
from django.utils.safestring import SafeString

from portal.assurance import records
from portal.standards.points import Point
from portal.standards.sanitise import plain_text, sanitise

REL = 'rel="noopener noreferrer nofollow"'


def test_it_removes_scripts_and_what_is_in_them():
    assert sanitise("<p>Hi</p><script>alert('x')</script>") == "<p>Hi</p>"
    assert sanitise("<SCRIPT src=https://evil.example/x.js></SCRIPT>ok") == "ok"


def test_a_split_script_tag_leaves_only_harmless_text():
    cleaned = sanitise("<scr<script>ipt>alert(1)</script>")
    assert "<script" not in cleaned.lower()
    assert "<" not in cleaned.replace("&lt;", "")


@pytest.mark.parametrize(
    "fragment",
    [
        '<p onclick="steal()">a</p>',
        "<p onmouseover=steal()>a</p>",
        '<a href="https://example.org/" onfocus="steal()">a</a>',
        '<strong ONLOAD="steal()">a</strong>',
    ],
)
def test_it_removes_event_handlers(fragment):
    cleaned = sanitise(fragment)
    assert not re.search(r"\son\w+\s*=", cleaned, re.IGNORECASE)
    assert "steal" not in cleaned


@pytest.mark.parametrize(
    "href",
    [
        "javascript:alert(1)",
        "JaVaScRiPt:alert(1)",
        " javascript:alert(1)",
        "jav&#x09;ascript:alert(1)",
        "&#106;avascript:alert(1)",
        "data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==",
        "vbscript:msgbox(1)",
    ],
)
def test_it_removes_links_that_run_code(href):
    cleaned = sanitise(f'<a href="{href}">click</a>')
    assert "href" not in cleaned
    assert "click" in cleaned


@pytest.mark.parametrize(
    "fragment",
    [
        '<svg onload="steal()"><circle r="1"/></svg>',
        '<iframe src="https://evil.example/"></iframe>',
        '<object data="https://evil.example/x.swf"></object>',
        '<embed src="https://evil.example/x.swf">',
        "<style>body { display: none }</style>",
        '<img src="x" onerror="steal()">',
        '<form action="https://evil.example/"><input name="password"></form>',
        '<input type="hidden" name="a" value="b">',
        '<base href="https://evil.example/">',
        '<meta http-equiv="refresh" content="0;url=https://evil.example/">',
        '<link rel="stylesheet" href="https://evil.example/x.css">',
        "<math><mi>x</mi></math>",
        "<template><p>inert</p></template>",
    ],
)
def test_it_removes_what_could_load_run_or_restyle(fragment):
    cleaned = sanitise(f"<p>before</p>{fragment}<p>after</p>")
    assert cleaned == "<p>before</p><p>after</p>"


def test_it_removes_style_attributes():
    assert sanitise('<p style="position:fixed;top:0">a</p>') == "<p>a</p>"


def test_it_keeps_the_text_of_a_removed_form_but_none_of_its_fields():
    cleaned = sanitise('<form action="/x"><button>Go</button><input name="a"></form>')
    assert cleaned == "Go"


def test_a_plain_link_keeps_its_address_and_opens_with_no_referrer():
    cleaned = sanitise('<a href="https://example.org/guide" title="Guide">the guide</a>')
    assert cleaned == f'<a href="https://example.org/guide" title="Guide" {REL}>the guide</a>'


def test_a_link_loses_its_own_target_and_rel():
    cleaned = sanitise('<a href="https://example.org/" target="_blank" rel="opener">x</a>')
    assert cleaned == f'<a href="https://example.org/" {REL}>x</a>'


def test_a_mail_link_is_kept():
    cleaned = sanitise('<a href="mailto:help@example.org">write</a>')
    assert cleaned == f'<a href="mailto:help@example.org" {REL}>write</a>'


def test_the_allowed_structure_survives():
    fragment = (
        "<p>Keep <strong>this</strong> and <em>that</em>.</p>"
        "<ul><li>one</li><li>two</li></ul>"
        "<ol><li>first</li></ol>"
    )
    assert sanitise(fragment) == fragment


def test_entities_stay_escaped():
    fragment = "<p>Fish &amp; chips &lt;script&gt;alert(1)&lt;/script&gt; &quot;here&quot;</p>"
    cleaned = sanitise(fragment)
    assert "<script" not in cleaned
    assert "&lt;script&gt;" in cleaned
    assert "Fish &amp; chips" in cleaned


def test_odd_nesting_comes_out_balanced():
    cleaned = sanitise("<p><strong>bold <em>both</p> after")
    assert cleaned.count("<strong>") == cleaned.count("</strong>")
    assert cleaned.count("<em>") == cleaned.count("</em>")
    assert cleaned.count("<p>") == cleaned.count("</p>")
    assert "after" in cleaned


def test_stray_closing_tags_do_no_harm():
    cleaned = sanitise("</p></ul></div><li>x")
    assert "x" in cleaned
    assert "</div>" not in cleaned


def test_comments_are_removed():
    assert sanitise("<!-- <script>x()</script> --><p>x</p>") == "<p>x</p>"


def test_nothing_gives_an_empty_safe_string():
    assert sanitise(None) == ""
    assert sanitise("") == ""
    assert isinstance(sanitise(None), SafeString)
    assert isinstance(sanitise("<p>a</p>"), SafeString)


def test_plain_text_gives_the_words_only():
    fragment = (
        "<p>Check <strong>gutters</strong>\n  and <a href='https://x.example'>downpipes</a>.</p>"
    )
    assert plain_text(fragment) == "Check gutters and downpipes."


def test_plain_text_drops_scripts_and_styles_with_their_content():
    assert plain_text("<style>p{}</style><p>a</p><script>steal()</script>") == "a"


def test_plain_text_unescapes_entities():
    assert plain_text("<p>Fish &amp; chips &lt;b&gt;</p>") == "Fish & chips <b>"


def test_plain_text_of_nothing_is_empty():
    assert plain_text(None) == ""
    assert plain_text("") == ""


@pytest.mark.parametrize(
    "fragment",
    ["<ul><li>One</li><li>Two</li></ul>", "<p>One</p><p>Two</p>", "One<br>Two"],
    ids=["list-items", "paragraphs", "line-break"],
)
def test_plain_text_keeps_the_words_of_separate_blocks_apart(fragment):
    assert plain_text(fragment) == "One Two"


def test_plain_lines_give_each_block_a_line_of_its_own():
    point = Point(
        point=records.StandardPoint(),
        guidelines=sanitise(
            "<p>Check <b>every</b>\n  store</p><ul><li>A &amp; B</li><li>C</li></ul>"
        ),
        record_keeping=sanitise("Kept<br>two years<script>steal()</script>"),
        guidance=sanitise(None),
    )
    assert point.plain_lines() == ("Check every store\nA & B\nC", "Kept\ntwo years", "")

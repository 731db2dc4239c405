"""The client's decoding of a 300-point section, against bare parsing of the same body.

    python -m bench.client

Builds in this process (no server, no Django) a `SectionData` the size of the sandbox's
benchmark section: 300 standard points with realistic text, 2 audit points and 3 answers per
point, 1 or 2 links per point and 6 categories. It encodes it with the codec to JSON and to XML,
then times on the same body in the same run:

- `codec.decode(body, SectionData, Format.JSON)` against `json.loads(body)`
  (target: at most 2 times as long);
- `codec.decode(body, SectionData, Format.XML)` against `defusedxml.ElementTree.fromstring(body)`
  (target: at most 3 times as long).
"""

from __future__ import annotations

import gc
import json
import random
from datetime import UTC, datetime, timedelta

import defusedxml.ElementTree as SafeElementTree

from bench.common import (
    BENCH_POINTS,
    BENCH_PREFIX,
    BENCH_SECTOR,
    Target,
    Timing,
    heading,
    machine_load,
    ms,
    print_table,
    print_targets,
    size,
    time_calls,
)
from portal.assurance import codec, records
from portal.assurance.codec import Format
from sandbox.ids import guid_for
from sandbox.text import AIMS, ANSWERS, AUDIT_POINTS, QUESTIONS, Text

AUDIT_POINTS_PER_POINT, ANSWERS_PER_POINT = 2, 3
WARMUP, RUNS = 5, 30
JSON_RATIO, XML_RATIO = 2.0, 3.0
SEED = "bench:client"


def build_section(points: int = BENCH_POINTS) -> records.SectionData:
    """A section of `points` standard points, with audit points, answers, aims and links."""
    rng = random.Random(SEED)
    text = Text(rng)
    changed = datetime(2025, 3, 14, 8, 15, tzinfo=UTC)

    def modified() -> datetime:
        return changed - timedelta(minutes=rng.randrange(500_000))

    categories = [
        records.Category(guid=guid_for(f"{SEED}:aim:{key}"), name=name, description=about,
                         modified_date=modified())
        for key, name, about in AIMS
    ]  # fmt: skip
    section = records.SectionData(
        scheme_guid=guid_for(f"{SEED}:scheme"),
        sector_prefix=BENCH_SECTOR,
        section_guid=guid_for(f"{SEED}:section"),
        section_name=f"Grain stores ({BENCH_SECTOR}.{BENCH_PREFIX})",
        section_prefix=BENCH_PREFIX,
        cache_date=changed,
        categories=categories,
        what_has_changed="<p>Points BX.12 and BX.40 were revised; BX.300 is new.</p>",
    )
    for number in range(1, points + 1):
        reference = f"{BENCH_SECTOR}.{BENCH_PREFIX}.{number}"
        point_guid = guid_for(f"{SEED}:point:{reference}")
        section.standard_points.append(
            records.StandardPoint(
                guid=point_guid,
                reference=reference,
                assessment_question=text.fill(rng.choice(QUESTIONS)),
                assessment_guidelines=text.guidelines(),
                reference_sources=text.records(),
                guidance=text.guidance(),
                score=3,
                revision_status=rng.choice(("Unchanged",) * 8 + ("Revised", "New")),
                index=number,
                modified_date=modified(),
            )
        )
        for n, template in enumerate(rng.sample(AUDIT_POINTS, AUDIT_POINTS_PER_POINT), 1):
            section.audit_points.append(
                records.AuditPoint(
                    question_guid=point_guid,
                    guid=guid_for(f"{SEED}:audit:{reference}:{n}"),
                    reference=f"{reference}-A{n}",
                    item_text=text.fill(template),
                    index=n,
                    modified_date=modified(),
                )
            )
        for n, (template, critical, score) in enumerate(ANSWERS[:ANSWERS_PER_POINT], 1):
            section.answers.append(
                records.Answer(
                    question_guid=point_guid,
                    guid=guid_for(f"{SEED}:answer:{reference}:{n}"),
                    reference=f"{reference}-R{n}",
                    answer_text=text.fill(template),
                    critical_point=critical,
                    index=n,
                    modified_date=modified(),
                    score=score,
                )
            )
        for category in rng.sample(categories, rng.randint(1, 2)):
            section.links.append(
                records.Link(
                    guid=guid_for(f"{SEED}:link:{reference}:{category.guid}"),
                    category_guid=category.guid,
                    asset_guid=point_guid,
                    modified_date=modified(),
                )
            )
    return section


# --- the benchmark --------------------------------------------------------------------------------


def _timed(call, runs: int = RUNS) -> Timing:
    """`call` timed `runs` times after a warm-up, with the garbage collector as in production."""
    gc.collect()
    return time_calls(call, runs, WARMUP)


def _row(name: str, timing: Timing, n_bytes: int | None = None, ratio: float | None = None):
    return [
        name,
        str(timing.n),
        ms(timing.median),
        ms(timing.p95),
        ms(timing.minimum),
        f"{ratio:.2f} x" if ratio is not None else "",
        size(n_bytes) if n_bytes is not None else "",
    ]


def main() -> None:
    heading("bench.client: decoding a 300-point section")
    print(f"Machine before: {machine_load()}")
    section = build_section()
    bodies = {fmt: codec.encode(section, fmt) for fmt in (Format.JSON, Format.XML)}
    for fmt, body in bodies.items():
        decoded = codec.decode(body, records.SectionData, fmt)
        if decoded != section:
            raise RuntimeError(f"the {fmt} body does not decode to the section it came from")
    print(
        f"Section: {len(section.standard_points)} standard points, "
        f"{len(section.audit_points)} audit points, {len(section.answers)} answers, "
        f"{len(section.links)} links, {len(section.categories)} categories; "
        f"JSON {size(len(bodies[Format.JSON]))}, XML {size(len(bodies[Format.XML]))}"
    )

    json_body, xml_body = bodies[Format.JSON], bodies[Format.XML]
    bare_json = _timed(lambda: json.loads(json_body))
    ours_json = _timed(lambda: codec.decode(json_body, records.SectionData, Format.JSON))
    bare_xml = _timed(lambda: SafeElementTree.fromstring(xml_body))
    ours_xml = _timed(lambda: codec.decode(xml_body, records.SectionData, Format.XML))
    json_ratio = ours_json.median / bare_json.median
    xml_ratio = ours_xml.median / bare_xml.median

    print(f"\nIn this process, {RUNS} runs each after {WARMUP} untimed (ratio: of medians):")
    print_table(
        ["decode", "n", "median", "p95", "min", "ratio", "size"],
        [
            _row("json.loads(body)", bare_json, len(json_body)),
            _row("codec.decode(body, SectionData, JSON)", ours_json, len(json_body), json_ratio),
            _row("defusedxml.ElementTree.fromstring(body)", bare_xml, len(xml_body)),
            _row("codec.decode(body, SectionData, XML)", ours_xml, len(xml_body), xml_ratio),
        ],
    )
    print(
        f"Beyond the bare parse, building the records costs "
        f"{ms(ours_json.median - bare_json.median)} from JSON and "
        f"{ms(ours_xml.median - bare_xml.median)} from XML."
    )
    targets = [
        Target("codec.decode JSON / json.loads, median", json_ratio, JSON_RATIO, "x", True),
        Target("codec.decode XML / defusedxml parse, median", xml_ratio, XML_RATIO, "x", True),
    ]
    print(f"\nMachine after: {machine_load()}")
    print()
    print_targets(targets)


if __name__ == "__main__":
    main()

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

Where a target is missed it profiles `codec.decode` and prints where the time goes.
"""

from __future__ import annotations

import cProfile
import gc
import io
import json
import pstats
import random
from datetime import UTC, datetime, timedelta

import defusedxml.ElementTree as SafeElementTree

from bench.common import (
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

POINTS, AUDIT_POINTS_PER_POINT, ANSWERS_PER_POINT = 300, 2, 3
WARMUP, RUNS = 5, 30
PROFILE_RUNS = 10
JSON_RATIO, XML_RATIO = 2.0, 3.0
SEED = "bench:client"

# --- a realistic section, its text made as sandbox/generate.py makes it ---------------------------
# (sandbox.generate imports Django models, so its helpers cannot be used without Django.)

_SUBJECTS = (
    "grain stores", "field operations", "plant protection products", "fertiliser applications",
    "harvest equipment", "drying and cooling", "water sources", "waste handling",
    "staff training", "pest control", "seed purchases", "transport of crops",
    "the farm's boundaries", "fuel and oil storage", "soil management", "crop monitoring",
)  # fmt: skip
_ACTORS = (
    "the grower", "the farm manager", "a trained operator", "the store keeper",
    "a qualified adviser", "the person responsible for compliance",
)  # fmt: skip
_RECORDS = (
    "a dated record of each inspection", "the spray record", "the store intake log",
    "purchase invoices", "training certificates", "a current risk assessment",
    "the pest control contractor's report", "calibration certificates",
    "the nutrient management plan", "delivery notes", "temperature and moisture readings",
    "a map of the holding",
)  # fmt: skip
_FREQUENCIES = (
    "at least once a year", "before each harvest", "every month while crop is in store",
    "whenever the procedure changes", "before each use", "at every intake",
)  # fmt: skip
_QUESTIONS = (
    "{Subject} are managed so that assured crops are not put at risk, and {actor} can show "
    "how this is done.",
    "{Actor} checks {subject} {frequency} and keeps {record} as evidence.",
    "There is a documented procedure for {subject}, it is followed in practice, and it is "
    "reviewed {frequency}.",
    "Risks arising from {subject} have been assessed by {actor}, and the actions identified are "
    "carried out and recorded.",
)
_SENTENCES = (
    "The assessor asks {actor} to explain how {subject} are handled and compares the answer "
    "with {record}.",
    "Where {subject} are contracted out, the contractor's own records are accepted if they "
    "cover the same points.",
    "A sample of {record} is checked against what is seen on the day of the assessment.",
    "Evidence should show that {subject} have been reviewed {frequency}.",
    "Small holdings may keep a single combined record, provided it is dated and legible.",
    "Any problem found is recorded together with the action taken and the date it was closed.",
)
_GUIDANCE = (
    "A simple way to meet this standard is to keep {record} next to the work it describes and "
    "to fill it in on the day.",
    "Many members find it helpful to ask {actor} to walk round {subject} {frequency} with a "
    "short checklist.",
    "Photographs with a date stamp are a quick and reliable way to show what was done.",
    "If in doubt, speak to your certification body before the assessment rather than after it.",
    "Records kept electronically are acceptable, as long as they can be shown to the assessor.",
    "Think about what could go wrong with {subject}, how likely it is, and what you would do "
    "about it.",
)
_AUDIT_POINTS = (
    "{Record} is available and covers the last twelve months.",
    "{Subject} were seen to be in good order on the day of the assessment.",
    "{Actor} could describe the procedure for {subject} without prompting.",
    "Actions from the last review of {subject} have been completed and signed off.",
)
_ANSWERS = (
    ("Compliant: {record} was complete and matched what was seen.", False, 3),
    ("Minor non-conformance: {record} had gaps, but {subject} were found in good order.", False, 1),
    ("Critical non-conformance: {subject} put assured crops at risk and no action had been taken.",
     True, 0),
)  # fmt: skip
_AIMS = (
    ("food-safety", "Food safety", "Crops leave the farm free from contamination that could "
     "make food or feed unsafe."),
    ("traceability", "Traceability", "Every assured consignment can be traced back to its "
     "fields and forward to the first buyer."),
    ("environment", "Environmental protection", "Soil, water, air and wildlife are protected "
     "from harm caused by farming."),
    ("worker-safety", "Worker health and safety", "Everyone who works on the farm is trained "
     "and protected from avoidable harm."),
    ("crop-quality", "Crop quality", "Crops are grown, harvested and stored so that they reach "
     "the buyer in the condition agreed."),
    ("legal", "Legal compliance", "The farm meets the legal requirements that apply to growing "
     "and storing crops."),
)  # fmt: skip


class _Text:
    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def fill(self, template: str) -> str:
        subject, actor = self.rng.choice(_SUBJECTS), self.rng.choice(_ACTORS)
        record = self.rng.choice(_RECORDS)
        return template.format(
            subject=subject,
            Subject=subject[0].upper() + subject[1:],
            actor=actor,
            Actor=actor[0].upper() + actor[1:],
            record=record,
            Record=record[0].upper() + record[1:],
            frequency=self.rng.choice(_FREQUENCIES),
        )

    def sentences(self, templates: tuple[str, ...], low: int, high: int) -> list[str]:
        return [self.fill(t) for t in self.rng.sample(templates, self.rng.randint(low, high))]

    def guidelines(self) -> str:
        paragraph = " ".join(self.sentences(_SENTENCES, 1, 2))
        items = "".join(f"<li>{s}</li>" for s in self.sentences(_AUDIT_POINTS, 2, 3))
        return f"<p>{paragraph}</p><ul>{items}</ul>"

    def records(self) -> str:
        items = self.rng.sample(_RECORDS, self.rng.randint(2, 4))
        return "<ul>" + "".join(f"<li>{r[0].upper()}{r[1:]}</li>" for r in items) + "</ul>"

    def guidance(self) -> str:
        return "".join(f"<p>{s}</p>" for s in self.sentences(_GUIDANCE, 2, 4))


def build_section(points: int = POINTS) -> records.SectionData:
    """A section of `points` standard points, with audit points, answers, aims and links."""
    rng = random.Random(SEED)
    text = _Text(rng)
    changed = datetime(2025, 3, 14, 8, 15, tzinfo=UTC)

    def modified() -> datetime:
        return changed - timedelta(minutes=rng.randrange(500_000))

    categories = [
        records.Category(guid=guid_for(f"{SEED}:aim:{key}"), name=name, description=about,
                         modified_date=modified())
        for key, name, about in _AIMS
    ]  # fmt: skip
    section = records.SectionData(
        scheme_guid=guid_for(f"{SEED}:scheme"),
        sector_prefix="BM",
        section_guid=guid_for(f"{SEED}:section"),
        section_name="Grain stores (BM.BX)",
        section_prefix="BX",
        cache_date=changed,
        categories=categories,
        what_has_changed="<p>Points BX.12 and BX.40 were revised; BX.300 is new.</p>",
    )
    for number in range(1, points + 1):
        reference = f"BM.BX.{number}"
        point_guid = guid_for(f"{SEED}:point:{reference}")
        section.standard_points.append(
            records.StandardPoint(
                guid=point_guid,
                reference=reference,
                assessment_question=text.fill(rng.choice(_QUESTIONS)),
                assessment_guidelines=text.guidelines(),
                reference_sources=text.records(),
                guidance=text.guidance(),
                score=3,
                revision_status=rng.choice(("Unchanged",) * 8 + ("Revised", "New")),
                index=number,
                modified_date=modified(),
            )
        )
        for n, template in enumerate(rng.sample(_AUDIT_POINTS, AUDIT_POINTS_PER_POINT), 1):
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
        for n, (template, critical, score) in enumerate(_ANSWERS[:ANSWERS_PER_POINT], 1):
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


def _profile(body: bytes, fmt: Format) -> str:
    """The top of a cProfile of `codec.decode(body, SectionData, fmt)`, by own time."""
    profiler = cProfile.Profile()
    profiler.enable()
    for _ in range(PROFILE_RUNS):
        codec.decode(body, records.SectionData, fmt)
    profiler.disable()
    out = io.StringIO()
    stats = pstats.Stats(profiler, stream=out)
    stats.sort_stats("tottime").print_stats(14)
    lines = out.getvalue().splitlines()
    start = next((i for i, line in enumerate(lines) if "ncalls" in line), 0)
    return "\n".join(line for line in lines[start:] if line.strip())


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
    for target, fmt in zip(targets, (Format.JSON, Format.XML), strict=True):
        if not target.passed:
            print(
                f"\nWhere codec.decode ({fmt.name}) spends its time, {PROFILE_RUNS} decodes under "
                "cProfile (own time first; cProfile inflates the many small calls):"
            )
            print(_profile(bodies[fmt], fmt))
    print(f"\nMachine after: {machine_load()}")
    print()
    print_targets(targets)


if __name__ == "__main__":
    main()

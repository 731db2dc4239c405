"""Generated text for large standards data: sentences from templates, realistic in length.

Plain Python (no Django), so that benchmarks can make the same text without a database.
"""

from __future__ import annotations

import random

SUBJECTS = (
    "grain stores", "field operations", "plant protection products", "fertiliser applications",
    "harvest equipment", "drying and cooling", "water sources", "waste handling",
    "staff training", "pest control", "seed purchases", "transport of crops",
    "the farm's boundaries", "fuel and oil storage", "soil management", "crop monitoring",
)  # fmt: skip
ACTORS = (
    "the grower", "the farm manager", "a trained operator", "the store keeper",
    "a qualified adviser", "the person responsible for compliance",
)  # fmt: skip
RECORDS = (
    "a dated record of each inspection", "the spray record", "the store intake log",
    "purchase invoices", "training certificates", "a current risk assessment",
    "the pest control contractor's report", "calibration certificates",
    "the nutrient management plan", "delivery notes", "temperature and moisture readings",
    "a map of the holding",
)  # fmt: skip
FREQUENCIES = (
    "at least once a year", "before each harvest", "every month while crop is in store",
    "whenever the procedure changes", "before each use", "at every intake",
)  # fmt: skip

QUESTIONS = (
    "{Subject} are managed so that assured crops are not put at risk, and {actor} can show "
    "how this is done.",
    "{Actor} checks {subject} {frequency} and keeps {record} as evidence.",
    "There is a documented procedure for {subject}, it is followed in practice, and it is "
    "reviewed {frequency}.",
    "Risks arising from {subject} have been assessed by {actor}, and the actions identified are "
    "carried out and recorded.",
)
SENTENCES = (
    "The assessor asks {actor} to explain how {subject} are handled and compares the answer "
    "with {record}.",
    "Where {subject} are contracted out, the contractor's own records are accepted if they "
    "cover the same points.",
    "A sample of {record} is checked against what is seen on the day of the assessment.",
    "Evidence should show that {subject} have been reviewed {frequency}.",
    "Small holdings may keep a single combined record, provided it is dated and legible.",
    "Any problem found is recorded together with the action taken and the date it was closed.",
)
GUIDANCE = (
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
AUDIT_POINTS = (
    "{Record} is available and covers the last twelve months.",
    "{Subject} were seen to be in good order on the day of the assessment.",
    "{Actor} could describe the procedure for {subject} without prompting.",
    "Actions from the last review of {subject} have been completed and signed off.",
)
ANSWERS = (
    ("Compliant: {record} was complete and matched what was seen.", False, 3),
    ("Minor non-conformance: {record} had gaps, but {subject} were found in good order.", False, 1),
    ("Critical non-conformance: {subject} put assured crops at risk and no action had been taken.",
     True, 0),
)  # fmt: skip
AIMS = (
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


class Text:
    """Sentences made from the templates, with subjects, actors and records drawn at random."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng

    def fill(self, template: str) -> str:
        subject, actor = self.rng.choice(SUBJECTS), self.rng.choice(ACTORS)
        record = self.rng.choice(RECORDS)
        return template.format(
            subject=subject,
            Subject=subject[0].upper() + subject[1:],
            actor=actor,
            Actor=actor[0].upper() + actor[1:],
            record=record,
            Record=record[0].upper() + record[1:],
            frequency=self.rng.choice(FREQUENCIES),
        )

    def sentences(self, templates: tuple[str, ...], low: int, high: int) -> list[str]:
        chosen = self.rng.sample(templates, self.rng.randint(low, high))
        return [self.fill(t) for t in chosen]

    def question(self) -> str:
        return self.fill(self.rng.choice(QUESTIONS))

    def guidelines(self) -> str:
        paragraph = " ".join(self.sentences(SENTENCES, 1, 2))
        items = "".join(f"<li>{s}</li>" for s in self.sentences(AUDIT_POINTS, 2, 3))
        return f"<p>{paragraph}</p><ul>{items}</ul>"

    def records(self) -> str:
        items = self.rng.sample(RECORDS, self.rng.randint(2, 4))
        return "<ul>" + "".join(f"<li>{r[0].upper()}{r[1:]}</li>" for r in items) + "</ul>"

    def guidance(self) -> str:
        return "".join(f"<p>{s}</p>" for s in self.sentences(GUIDANCE, 2, 4))

"""Large, realistic-looking data for benchmarks: a big scheme of standards and many passports.

`generate(points, passports)` is idempotent: the standards are created once (a second run leaves
them as they are, whatever `points` says), and passports are topped up to `passports`, each with
a short code derived from its number, so a second run with the same numbers adds nothing.

Everything is made from a fixed random seed, so every machine gets the same text and codes.
"""

from __future__ import annotations

import hashlib
import random
from collections.abc import Iterator
from datetime import datetime, timedelta
from itertools import product
from string import ascii_uppercase

from django.db import transaction

from sandbox import clock
from sandbox.demo import accounts as demo_accounts
from sandbox.demo import loader
from sandbox.ids import SHORT_CODE_ALPHABET, SHORT_CODE_LENGTH, guid_for
from sandbox.models import (
    Account,
    Aim,
    Answer,
    AuditPoint,
    Edition,
    Link,
    Membership,
    Passport,
    Scheme,
    Scope,
    Section,
    Site,
    StandardPoint,
    Store,
)
from sandbox.text import AIMS, ANSWERS, AUDIT_POINTS, SENTENCES, SUBJECTS, Text

KEY = "benchmark"
SCHEME_NAME = "Benchmark Standards"
SCHEME_GUID = guid_for(f"scheme:{KEY}")
MEMBERSHIP_NAME = "Benchmark Farms Ltd"
MEMBERSHIP_GUID = guid_for(f"membership:{KEY}")
CONTACT = "grower"

# The section the benchmarks ask for: BM.BX, with exactly this many points (or all of them, when
# fewer are asked for).
BENCH_SECTOR, BENCH_PREFIX, BENCH_POINTS = "BM", "BX", 300
OTHER_SECTORS = ("BM", "BN", "BP")
SECTION_SIZES = (12, 40)  # the other sections have between 12 and 40 points
BATCH = 500

DEFAULT_POINTS = 2000
DEFAULT_PASSPORTS = 10000


def generate(points: int = DEFAULT_POINTS, passports: int = DEFAULT_PASSPORTS) -> list[str]:
    """Creates whatever part of the benchmark data is missing; returns what it created."""
    if points < 1 or passports < 0:
        raise ValueError("points must be at least 1 and passports at least 0")
    created = []
    with transaction.atomic():
        if not Account.objects.filter(username=CONTACT).exists():
            # The membership's contact is a demo account: load the demo data (idempotently).
            loader.load()
            created.append("the demo data")
        if _create_standards(points):
            created.append(f"scheme {SCHEME_NAME} with {points} standard points")
        added = _create_passports(passports)
        if added:
            created.append(f"{added} passports of {MEMBERSHIP_NAME}")
    return created


def passport_code(number: int) -> str:
    """The short code of the benchmark's passport `number` (0, 1, ...)."""
    value = int.from_bytes(hashlib.sha256(f"passport:{KEY}:{number}".encode()).digest(), "big")
    chars = []
    for _ in range(SHORT_CODE_LENGTH):
        value, remainder = divmod(value, len(SHORT_CODE_ALPHABET))
        chars.append(SHORT_CODE_ALPHABET[remainder])
    return "".join(chars)


# --- standards ------------------------------------------------------------------------------------


def _prefixes() -> Iterator[str]:
    for pair in product(ascii_uppercase, repeat=2):
        prefix = "".join(pair)
        if prefix != BENCH_PREFIX:
            yield prefix


def section_sizes(points: int, rng: random.Random) -> list[int]:
    """Points per section: the benchmark's section first, then sections of 12 to 40 points."""
    sizes = [min(points, BENCH_POINTS)]
    left = points - sizes[0]
    while left > 0:
        size = min(left, rng.randint(*SECTION_SIZES))
        sizes.append(size)
        left -= size
    return sizes


def _create_standards(points: int) -> bool:
    scheme, _ = Scheme.objects.get_or_create(
        key=KEY, defaults={"name": SCHEME_NAME, "guid": SCHEME_GUID}
    )
    if Edition.objects.filter(scheme=scheme, stage=Edition.Stage.LIVE).exists():
        return False
    rng = random.Random(f"{KEY}:standards")
    text = Text(rng)
    seed = f"{KEY}:{Edition.Stage.LIVE}"
    now = clock.now()
    edition = Edition.objects.create(scheme=scheme, stage=Edition.Stage.LIVE, changed=now)
    scope = Scope.objects.create(
        edition=edition,
        guid=guid_for(f"{seed}:scope"),
        name=f"{SCHEME_NAME} {now.year}",
        start_date=now.replace(month=1, day=1, hour=0, minute=0, second=0, microsecond=0),
        end_date=now.replace(
            year=now.year + 2, month=12, day=31, hour=0, minute=0, second=0, microsecond=0
        ),
    )
    aims = Aim.objects.bulk_create(
        Aim(edition=edition, guid=guid_for(f"{seed}:aim:{key}"), name=name, description=about)
        for key, name, about in AIMS
    )

    prefixes = _prefixes()
    sections = []
    for index, size in enumerate(section_sizes(points, rng), start=1):
        if index == 1:
            sector, prefix = BENCH_SECTOR, BENCH_PREFIX
        else:
            sector, prefix = OTHER_SECTORS[index % len(OTHER_SECTORS)], next(prefixes)
        subject = rng.choice(SUBJECTS)
        sections.append(
            (
                Section(
                    edition=edition,
                    scope=scope,
                    guid=guid_for(f"{seed}:section:{sector}.{prefix}"),
                    sector_prefix=sector,
                    prefix=prefix,
                    name=f"{subject[0].upper()}{subject[1:]} ({sector}.{prefix})",
                    description=text.fill(SENTENCES[0]),
                    index=index,
                    content_changed=now,
                ),
                size,
            )
        )
    Section.objects.bulk_create([section for section, _ in sections], batch_size=BATCH)

    standard_points, children = [], []
    for section, size in sections:
        code = f"{section.sector_prefix}.{section.prefix}"
        for number in range(1, size + 1):
            point, related = _point(section, code, number, seed, text, rng, aims)
            standard_points.append(point)
            children.append(related)
    StandardPoint.objects.bulk_create(standard_points, batch_size=BATCH)
    # The points have their primary keys now; their children can refer to them.
    for model in (AuditPoint, Answer, Link):
        model.objects.bulk_create(
            [row for related in children for row in related if isinstance(row, model)],
            batch_size=BATCH,
        )
    return True


def _point(section, code, number, seed, text, rng, aims):
    reference = f"{code}.{number}"
    point = StandardPoint(
        section=section,
        guid=guid_for(f"{seed}:point:{reference}"),
        reference=reference,
        assessment_question=text.question(),
        assessment_guidelines=text.guidelines(),
        reference_sources=text.records(),
        guidance=text.guidance(),
        score=3,
        revision_status="Unchanged",
        index=number,
    )
    related = [
        AuditPoint(
            standard_point=point,
            guid=guid_for(f"{seed}:audit:{reference}:{n}"),
            reference=f"{reference}-A{n}",
            item_text=text.fill(template),
            index=n,
        )
        for n, template in enumerate(rng.sample(AUDIT_POINTS, 2), start=1)
    ]
    related += [
        Answer(
            standard_point=point,
            guid=guid_for(f"{seed}:answer:{reference}:{n}"),
            reference=f"{reference}-R{n}",
            answer_text=text.fill(template),
            critical_point=critical,
            score=score,
            index=n,
        )
        for n, (template, critical, score) in enumerate(ANSWERS, start=1)
    ]
    related += [
        Link(
            standard_point=point,
            aim=aim,
            guid=guid_for(f"{seed}:link:{reference}:{aim.guid}"),
        )
        for aim in rng.sample(aims, rng.randint(1, 2))
    ]
    return point, related


# --- membership and passports ---------------------------------------------------------------------

_CROPS = {
    "Wheat": ("Extase", "Skyfall", "KWS Zyatt", "Crusoe", "Graham"),
    "Barley": ("Laureate", "Planet", "KWS Orwell", "Craft"),
    "Oilseed rape": ("Aurelia", "Campus", "Dart"),
    "Oats": ("Mascani", "Gerald"),
    "Beans": ("Tundra", "Lynx"),
}
_HAULIERS = (
    "Stour Valley Haulage", "East Anglian Grain Movements", "Fenland Bulk Ltd",
    "Orwell Transport", "Gipping Valley Logistics",
)  # fmt: skip
_PRODUCTS = ("K-Obiol EC 25", "Actellic 50 EC", "Degesch Plates")


def _membership(now: datetime) -> tuple[Membership, Site, Store]:
    membership = Membership.objects.filter(guid=MEMBERSHIP_GUID).first()
    if membership is None:
        membership = Membership.objects.create(
            guid=MEMBERSHIP_GUID,
            membership_number="CCSB-900001",
            business_name=MEMBERSHIP_NAME,
            scheme_name=demo_accounts.CROPS,
            certifier_name=demo_accounts.CERTIFIER,
            status=Membership.Status.VALID,
            expiry_date=(now + timedelta(days=730)).replace(
                hour=23, minute=59, second=59, microsecond=0
            ),
            enterprises="Combinable crops, Sugar beet",
        )
        membership.contacts.set(Account.objects.filter(username=CONTACT))
    site, _ = Site.objects.get_or_create(
        guid=guid_for(f"site:{KEY}"),
        defaults={
            "membership": membership,
            "name": "Benchmark Farm",
            "address": "Benchmark Farm, Station Road, Elmswell, Bury St Edmunds, Suffolk",
            "postcode": "IP30 9HR",
        },
    )
    store, _ = Store.objects.get_or_create(
        guid=guid_for(f"store:{KEY}"),
        defaults={
            "site": site,
            "name": "Benchmark grain store",
            "latitude": "52.2368",
            "longitude": "0.9139",
        },
    )
    return membership, site, store


def _create_passports(target: int) -> int:
    now = clock.now()
    membership, site, store = _membership(now)
    existing = set(
        Passport.objects.filter(membership=membership).values_list("short_code", flat=True)
    )
    wanted = [(n, passport_code(n)) for n in range(target)]
    missing = [(n, code) for n, code in wanted if code not in existing]
    if not missing:
        return 0
    grower = Account.objects.get(username=CONTACT)
    fields = {
        "membership": membership,
        "site": site,
        "store": store,
        "created_by": grower,
        **Passport.claim_as_checked(membership, site, store, now),
    }
    rng = random.Random(f"{KEY}:passports")
    rows = (_passport(n, code, now, rng, fields) for n, code in missing)
    Passport.objects.bulk_create(rows, batch_size=BATCH)
    return len(missing)


def _passport(n: int, code: str, now: datetime, rng: random.Random, fields: dict) -> Passport:
    created = now - timedelta(minutes=n * 47 + rng.randint(0, 40))
    crop = rng.choice(list(_CROPS))
    option = rng.choice(("", "A", "B", "C"))
    tested = rng.random() < 0.3
    letters = "ABCDEFGHJKLMNOPRSTUVWXY"
    registration = (
        f"{rng.choice(letters)}{rng.choice(letters)}{rng.randint(10, 25)} "
        f"{''.join(rng.choices(letters, k=3))}"
    )
    return Passport(
        short_code=code,
        created=created,
        crop_type=crop,
        variety=rng.choice(_CROPS[crop]),
        store_or_bin_name=f"Bay {rng.randint(1, 8)}",
        loading_date=created,
        harvest_year=str(created.year if created.month >= 7 else created.year - 1),
        haulier_company_name=rng.choice(_HAULIERS),
        vehicle_registration=registration,
        trailer_number=f"T{rng.randint(1, 40)}",
        haulier_collection_ticket_no=f"HC-{100000 + n}",
        post_harvest_treatment_option=option,
        post_harvest_treatment_date=created - timedelta(days=rng.randint(20, 90))
        if option
        else None,
        post_harvest_treatment_product=rng.choice(_PRODUCTS) if option else "",
        don_risk_assessment_result=rng.randint(5, 30),
        don_test_date=created - timedelta(days=rng.randint(1, 10)) if tested else None,
        don_test_result=f"{rng.randint(100, 1200)} ppb" if tested else "",
        zon_test_date=created - timedelta(days=rng.randint(1, 10)) if tested else None,
        zon_test_result=f"{rng.randint(10, 90)} ppb" if tested else "",
        **{**fields, "check_date": created},
    )

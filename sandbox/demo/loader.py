"""Demo data for the sandbox, loaded idempotently: what exists is left as an operator left it."""

from __future__ import annotations

import copy
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from django.db import transaction

from sandbox import clock
from sandbox.demo import accounts as demo
from sandbox.ids import guid_for
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

DATA = Path(__file__).parent / "data"
LIVE_SCHEMES = ("crops", "beef-lamb", "fresh-produce")
PREVIEWS = ("crops-preview",)


def read(name: str) -> dict[str, Any]:
    return json.loads((DATA / f"{name}.json").read_text(encoding="utf-8"))


@transaction.atomic
def load() -> list[str]:
    """Loads whatever part of the demo data is missing; returns what it loaded."""
    loaded = []
    for name in LIVE_SCHEMES:
        if load_edition(read(name), Edition.Stage.LIVE):
            loaded.append(f"scheme {name}")
    for name in PREVIEWS:
        changes = read(name)
        if load_edition(apply_preview(read(changes["base"]), changes), Edition.Stage.PREVIEW):
            loaded.append(f"preview {changes['base']}")
    loaded += load_accounts()
    return loaded


# --- standards ------------------------------------------------------------------------------------


def _date(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=UTC)


def load_edition(data: dict[str, Any], stage: str) -> Edition | None:
    key = data["key"]
    scheme, _ = Scheme.objects.get_or_create(
        key=key, defaults={"name": data["name"], "guid": guid_for(f"scheme:{key}")}
    )
    if Edition.objects.filter(scheme=scheme, stage=stage).exists():
        return None
    seed = f"{key}:{stage}"
    edition = Edition.objects.create(scheme=scheme, stage=stage, changed=clock.now())
    scopes = {
        s["key"]: Scope.objects.create(
            edition=edition,
            guid=guid_for(f"{seed}:scope:{s['key']}"),
            name=s["name"],
            start_date=_date(s["start"]),
            end_date=_date(s["end"]),
        )
        for s in data["scopes"]
    }
    aims = {
        a["key"]: Aim.objects.create(
            edition=edition,
            guid=guid_for(f"{seed}:aim:{a['key']}"),
            name=a["name"],
            description=a["description"],
        )
        for a in data["aims"]
    }
    for index, section in enumerate(data["sections"], start=1):
        _load_section(edition, seed, section, index, scopes, aims)
    return edition


def _load_section(edition, seed, data, index, scopes, aims) -> None:
    code = f"{data['sector']}.{data['prefix']}"
    section = Section.objects.create(
        edition=edition,
        scope=scopes.get(data.get("scope")),
        guid=guid_for(f"{seed}:section:{code}"),
        sector_prefix=data["sector"],
        prefix=data["prefix"],
        name=data["name"],
        description=data.get("description", ""),
        index=index,
        what_has_changed=data.get("what_has_changed", ""),
        content_changed=clock.now(),
    )
    points, audit_points, answers, links = [], [], [], []
    for position, point in enumerate(data["points"], start=1):
        reference = f"{code}.{point['number']}"
        standard_point = StandardPoint(
            section=section,
            guid=guid_for(f"{seed}:point:{reference}"),
            reference=reference,
            assessment_question=point["question"],
            assessment_guidelines=point.get("guidelines", ""),
            reference_sources=point.get("records", ""),
            guidance=point.get("guidance", ""),
            score=point.get("score"),
            revision_status=point.get("revision", ""),
            index=position,
        )
        points.append(standard_point)
        for n, text in enumerate(point.get("audit_points", []), start=1):
            audit_points.append(
                AuditPoint(
                    standard_point=standard_point,
                    guid=guid_for(f"{seed}:audit:{reference}:{n}"),
                    reference=f"{reference}-A{n}",
                    item_text=text,
                    index=n,
                )
            )
        for n, answer in enumerate(point.get("answers", []), start=1):
            answers.append(
                Answer(
                    standard_point=standard_point,
                    guid=guid_for(f"{seed}:answer:{reference}:{n}"),
                    reference=f"{reference}-R{n}",
                    answer_text=answer["text"],
                    critical_point=bool(answer.get("critical")),
                    score=answer.get("score"),
                    index=n,
                )
            )
        for aim_key in point.get("aims", []):
            links.append(
                Link(
                    standard_point=standard_point,
                    aim=aims[aim_key],
                    guid=guid_for(f"{seed}:link:{reference}:{aim_key}"),
                )
            )
    StandardPoint.objects.bulk_create(points)
    AuditPoint.objects.bulk_create(audit_points)
    Answer.objects.bulk_create(answers)
    Link.objects.bulk_create(links)


def apply_preview(base: dict[str, Any], changes: dict[str, Any]) -> dict[str, Any]:
    """The next version of `base`: its sections with the preview's changes applied."""
    preview = copy.deepcopy(base)
    scope = changes["scope"]
    preview["scopes"] = [scope]
    for section in preview["sections"]:
        section["scope"] = scope["key"]
        change = changes["sections"].get(f"{section['sector']}.{section['prefix']}", {})
        section["what_has_changed"] = change.get("what_has_changed", "")
        removed = set(change.get("removed", []))
        reworded = change.get("reworded", {})
        points = []
        for point in section["points"]:
            if point["number"] in removed:
                continue
            if point["number"] in reworded:
                point = {**point, **reworded[point["number"]], "revision": "Revised"}
            else:
                point = {**point, "revision": "Unchanged"}
            points.append(point)
        for point in change.get("added", []):
            points.append({**point, "revision": "New"})
        section["points"] = sorted(points, key=_point_order)
    return preview


def _point_order(point: dict[str, Any]) -> tuple[int, ...]:
    return tuple(int(part) if part.isdigit() else 0 for part in point["number"].split("."))


# --- accounts, memberships, passports -------------------------------------------------------------


def load_accounts() -> list[str]:
    loaded = []
    for data in demo.ACCOUNTS:
        if not Account.objects.filter(username=data["username"]).exists():
            account = Account(username=data["username"], email=data["email"])
            account.set_password(data["password"])
            account.save()
            loaded.append(f"account {account.username}")
    for data in demo.MEMBERSHIPS:
        if _load_membership(data):
            loaded.append(f"membership {data['business_name']}")
    for data in demo.PASSPORTS:
        if _load_passport(data):
            loaded.append(f"passport {data['short_code']}")
    return loaded


def _load_membership(data: dict[str, Any]) -> bool:
    guid = guid_for(f"membership:{data['key']}")
    if Membership.objects.filter(guid=guid).exists():
        return False
    membership = Membership.objects.create(
        guid=guid,
        membership_number=data["membership_number"],
        business_name=data["business_name"],
        scheme_name=data["scheme_name"],
        certifier_name=data["certifier_name"],
        status=data["status"],
        expiry_date=(clock.now() + data["expires_in"]).replace(
            hour=23, minute=59, second=59, microsecond=0
        ),
        enterprises=data["enterprises"],
    )
    membership.contacts.set(Account.objects.filter(username__in=data["contacts"]))
    for site_data in data["sites"]:
        site = Site.objects.create(
            membership=membership,
            guid=guid_for(f"site:{site_data['key']}"),
            name=site_data["name"],
            address=site_data["address"],
            postcode=site_data["postcode"],
        )
        for store in site_data["stores"]:
            Store.objects.create(
                site=site,
                guid=guid_for(f"store:{store['key']}"),
                name=store["name"],
                latitude=store["lat"],
                longitude=store["lon"],
            )
    return True


def _load_passport(data: dict[str, Any]) -> bool:
    if Passport.objects.filter(short_code=data["short_code"]).exists():
        return False
    membership = Membership.objects.get(guid=guid_for(f"membership:{data['membership']}"))
    site = Site.objects.get(guid=guid_for(f"site:{data['site']}"))
    store = Store.objects.get(guid=guid_for(f"store:{data['store']}"))
    now = clock.now()
    details = {
        k: v for k, v in data.items() if k not in ("membership", "site", "store", "created_by")
    }
    Passport.objects.create(
        membership=membership,
        site=site,
        store=store,
        created_by=Account.objects.get(username=data["created_by"]),
        created=now,
        loading_date=now,
        **Passport.claim_as_checked(membership, site, store, now),
        **details,
    )
    return True

"""Many identical loads at once: a batch of passports with the same details, each with its own
short code, made by a job (the `passport-batch` kind, portal.passports.tasks).

The batch's key is its form's one-time key, and each of its passports is made under a key of
its own drawn from it (its place in the batch), so that the job run again (its worker killed,
Redis restarted) or the form sent again finishes the batch rather than doubling it.
"""

from __future__ import annotations

import uuid

from django.http import HttpRequest
from django.utils.translation import ngettext

from portal.assurance import codec, records
from portal.jobs import actions
from portal.jobs.models import Job
from portal.passports.tasks import passport_batch


def start(
    request: HttpRequest, key: uuid.UUID, passport: records.PassportRequest, count: int,
    business_name: str,
) -> Job:  # fmt: skip
    """The signed-in user's job making `count` passports of `passport` under the batch `key`: a
    new one, or the one this key started already (a failed one queued again, to go on where it
    stopped)."""
    dedupe_key = _dedupe_key(key)

    def title() -> str:
        if business_name:
            return ngettext(
                "%(count)s passport for %(business)s", "%(count)s passports for %(business)s",
                count,
            ) % {"count": count, "business": business_name}  # fmt: skip
        return ngettext(
            "%(count)s passport for your membership", "%(count)s passports for your membership",
            count,
        ) % {"count": count}  # fmt: skip

    params = {"batch": str(key), "count": count, "request": codec.to_mapping(passport)}
    return actions.start_job(request, passport_batch, title, params, dedupe_key)


def job_of(request: HttpRequest, key: uuid.UUID) -> Job | None:
    """The signed-in user's job of the batch `key`, if they started one."""
    return Job.objects.filter(owner=request.user, dedupe_key=_dedupe_key(key)).first()


def _dedupe_key(key: uuid.UUID) -> str:
    return f"{passport_batch.name}:{key}"

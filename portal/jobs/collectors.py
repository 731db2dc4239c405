"""What `/metrics` reads of the jobs when it is scraped, and nothing records as it goes: the
jobs waiting or running and those ended in the last hour, by kind and state, and the oldest job
waiting (one aggregate query through two indexes, portal/jobs/models.py), and the messages
waiting in the job queue (the length of the queue's lists, when the broker is Redis). Each
scrape asks afresh; the pages users see never do. The jobs' AppConfig.ready() registers it with
the scrape's registry (portal/operations/collectors.py)."""

from __future__ import annotations

import logging
from datetime import datetime, timedelta

import redis
from django.db import DatabaseError
from django.db.models import Count, Min, Q
from django.utils import timezone
from kombu.transport.redis import PRIORITY_STEPS, Channel
from prometheus_client.core import GaugeMetricFamily, Metric

from portal.celery import app as celery
from portal.jobs.models import Job

log = logging.getLogger(__name__)

REDIS_SECONDS = 1.0  # for the broker to answer a scrape
UNDER_WAY = [Job.State.QUEUED, Job.State.RUNNING]
ENDED_WITHIN = timedelta(hours=1)
JOBS, ENDED = "portal_jobs", "portal_jobs_ended_last_hour"
OLDEST, QUEUE = "portal_job_oldest_queued_seconds", "portal_job_queue_messages"


class JobsCollector:
    """The jobs under way and those ended lately, the oldest waiting job's age and the broker's
    queue, read at scrape time."""

    def describe(self) -> list[Metric]:  # so that registering it reads nothing
        return list(_families().values())

    def collect(self) -> list[Metric]:
        families = _families()
        rows = _jobs_under_way_or_ended_lately()
        if rows is not None:
            _add_jobs(families, rows)
        depth = _queue_depth()
        if depth is not None:
            families[QUEUE].add_metric([], depth)
        return [family for family in families.values() if family.samples]


def _families() -> dict[str, GaugeMetricFamily]:
    by_kind_and_state = ["kind", "state"]
    return {
        JOBS: GaugeMetricFamily(
            JOBS,
            "Jobs waiting (queued) or running now, by kind and state.",
            labels=by_kind_and_state,
        ),
        ENDED: GaugeMetricFamily(
            ENDED,
            "Jobs that ended in the last hour, by kind and state (done, failed, cancelled).",
            labels=by_kind_and_state,
        ),
        OLDEST: GaugeMetricFamily(
            OLDEST, "How long the job waiting longest has waited since it was queued (0: none)."
        ),
        QUEUE: GaugeMetricFamily(QUEUE, "Messages waiting in the job queue of the Redis broker."),
    }


def _jobs_under_way_or_ended_lately() -> list[tuple[str, str, int, datetime]] | None:
    """(state, kind, how many, the oldest last change) of the jobs waiting or running and of
    those ended within ENDED_WITHIN, in one query through the two indexes it has
    (portal/jobs/models.py): its work grows with neither the jobs kept nor those ever made.
    None when the database does not answer: the rest of the scrape is wanted all the more."""
    lately = timezone.now() - ENDED_WITHIN
    try:
        return list(
            Job.objects.order_by()
            .filter(Q(state__in=UNDER_WAY) | Q(finished__gte=lately))
            .values_list("state", "kind")
            .annotate(count=Count("*"), oldest=Min("touched"))
        )
    except DatabaseError as error:
        log.warning("Jobs could not be counted: %s", type(error).__name__)
        return None


def _add_jobs(families: dict[str, GaugeMetricFamily], rows: list[tuple]) -> None:
    waiting_since = None
    for state, kind, count, touched in rows:
        families[JOBS if state in UNDER_WAY else ENDED].add_metric([kind, state], count)
        if state == Job.State.QUEUED:
            waiting_since = touched if waiting_since is None else min(waiting_since, touched)
    age = (timezone.now() - waiting_since).total_seconds() if waiting_since else 0.0
    families[OLDEST].add_metric([], max(0.0, age))


def _queue_depth() -> int | None:
    """The messages waiting in the portal's queue on a Redis broker (every priority's list, as
    kombu keeps them); None with another broker, or when Redis does not answer."""
    broker = celery.conf.broker_url
    if not broker.startswith(("redis://", "rediss://", "unix://")):
        return None
    queue = celery.conf.task_default_queue
    names = [queue] + [f"{queue}{Channel.sep}{step}" for step in PRIORITY_STEPS if step]
    try:
        client = redis.Redis.from_url(
            broker, socket_connect_timeout=REDIS_SECONDS, socket_timeout=REDIS_SECONDS
        )
        with client, client.pipeline(transaction=False) as pipe:
            for name in names:
                pipe.llen(name)
            return sum(pipe.execute())
    except redis.RedisError as error:
        log.warning("The job queue's length could not be read: %s", type(error).__name__)
        return None

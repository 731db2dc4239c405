"""What `/metrics` reports: the counts of every process, and what the apps read afresh at each
scrape (the jobs and the queue, portal/jobs/collectors.py), which they register here from their
AppConfig.ready()."""

from __future__ import annotations

from functools import cache as once

from prometheus_client import CollectorRegistry
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from portal.operations import metrics, processes

_read_at_scrape: list[Collector] = []


def read_at_scrape(collector: Collector) -> None:
    """Adds `collector` to what every scrape reports; called from an app's AppConfig.ready(),
    before any scrape."""
    _read_at_scrape.append(collector)


def registry() -> CollectorRegistry:
    """What a scrape reports: the counts of every process (from their files in multiprocess
    mode, else this process's own) and what the apps read now."""
    return _registry(processes.directory())


@once
def _registry(directory: str | None) -> CollectorRegistry:
    chosen = CollectorRegistry()
    if directory is None:
        chosen.register(metrics.REGISTRY)
    else:
        MultiProcessCollector(chosen, path=directory)
    for collector in _read_at_scrape:
        chosen.register(collector)
    return chosen

"""Reading `/metrics` as Prometheus does: its text parsed by prometheus_client's own parser."""

from __future__ import annotations

from prometheus_client.parser import text_string_to_metric_families

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def parsed(text: str) -> Samples:
    """Every sample of a scrape, by its name and labels."""
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def value(samples: Samples, name: str, **labels: str) -> float:
    """The sample's value; 0 for one not there (a counter not yet counted)."""
    return samples.get((name, frozenset(labels.items())), 0.0)


def has(samples: Samples, name: str) -> bool:
    return any(sample_name == name for sample_name, _ in samples)

"""The bands of time a call to the Assurance service took: one set, which both of its counts
read, so that the staff dashboard's percentiles and Prometheus' agree. The database's rows of
the calls by minute have a column for each band (portal/operations/models.py: ServiceCalls) and
`/metrics` a bucket (portal/operations/metrics.py: portal_upstream_call_duration_seconds).

A band holds the calls that took at most its bound and more than the bound before, as a
Prometheus bucket's `le` does; the last holds the slower ones (Prometheus' `+Inf`).
"""

from __future__ import annotations

# The upper bounds of the bands, in milliseconds; None: the last band, any longer.
BANDS_MS = (50, 100, 250, 500, 1000, 2500, 5000, None)
# The database's columns, band by band.
BAND_FIELDS = tuple(f"under_{bound}" if bound else "slower" for bound in BANDS_MS)
# Prometheus' buckets, in seconds (it adds `+Inf` itself).
BUCKETS_SECONDS = tuple(bound / 1000 for bound in BANDS_MS if bound)


def band_of(seconds: float) -> str:
    """The column of the band a call that took `seconds` falls in: compared with the buckets
    as Prometheus compares them."""
    for bucket, name in zip(BUCKETS_SECONDS, BAND_FIELDS, strict=False):
        if seconds <= bucket:
            return name
    return BAND_FIELDS[-1]

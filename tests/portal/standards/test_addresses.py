"""A standard point's address made from the start every point's address shares: the same as
reverse() makes it, so that a page linking hundreds of points reverses once."""

from __future__ import annotations

import pytest

from portal.standards.addresses import LIVE, PREVIEW, point_address, points_address, standards_url

SCHEME = "8c0e1d2a-0000-4000-8000-000000000001"


@pytest.mark.parametrize("stage", [LIVE, PREVIEW])
@pytest.mark.parametrize(
    "reference", ["CR.ST.3", "CR.ST.3.1", "a b", "A&B'1", "é.1", "50%", "x:y@z~"]
)
def test_it_makes_the_address_reverse_makes(stage, reference):
    made = point_address(points_address(stage, SCHEME), reference)
    assert made == standards_url("point", stage, SCHEME, reference)


def test_it_starts_with_the_schemes_points():
    assert points_address(LIVE, SCHEME) == f"/standards/{SCHEME}/points/"
    assert points_address(PREVIEW, SCHEME) == f"/standards/preview/{SCHEME}/points/"

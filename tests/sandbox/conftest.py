"""Fixtures of the sandbox's tests."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from portal.assurance.codec import Format


@pytest.fixture(params=[Format.JSON, Format.XML], ids=str)
def fmt(request: pytest.FixtureRequest) -> Format:
    """Each format of the interface in turn."""
    return request.param


@pytest.fixture
def clock(sandbox) -> Iterator[None]:
    """The sandbox's shared clock, at zero offset for the test and put back afterwards."""
    sandbox.reset_clock()
    try:
        yield
    finally:
        sandbox.reset_clock()

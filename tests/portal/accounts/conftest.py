from __future__ import annotations

from collections.abc import Iterator

import pytest


@pytest.fixture
def clock(sandbox) -> Iterator[None]:
    """The sandbox's shared clock, at zero offset for the test and put back afterwards."""
    sandbox.reset_clock()
    try:
        yield
    finally:
        sandbox.reset_clock()

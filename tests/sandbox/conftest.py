"""Fixtures of the sandbox's tests."""

from __future__ import annotations

import pytest

from portal.assurance.codec import Format


@pytest.fixture(params=[Format.JSON, Format.XML], ids=str)
def fmt(request: pytest.FixtureRequest) -> Format:
    """Each format of the interface in turn."""
    return request.param

"""Every operation of the API's OpenAPI document driven by schemathesis (valid and invalid
inputs, a bounded number of cases each), through the portal's WSGI application, with a site's
token and a clerk's: no answer is a server error, and every error has the one shape."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
import schemathesis
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from schemathesis import GenerationMode

from tests.portal.api.builders import bearer, made_on_the_page, site_token
from tests.portal.intake.builders import a_clerk, a_load, a_site

pytestmark = pytest.mark.django_db
EXAMPLES = 15
SCHEMA = schemathesis.openapi.from_wsgi("/api/v1/openapi.json", get_wsgi_application())
SCHEMA.config.generation.update(with_security_parameters=False)
OPERATIONS = [result.ok() for result in SCHEMA.get_all_operations()]


@contextmanager
def connection_kept_open() -> Iterator[None]:
    """The test's transaction kept across a request, as Django's test client keeps it: a request
    through the WSGI application would otherwise close the database connection it runs in."""
    for signal in (signals.request_started, signals.request_finished):
        signal.disconnect(close_old_connections)
    try:
        yield
    finally:
        for signal in (signals.request_started, signals.request_finished):
            signal.connect(close_old_connections)


@pytest.fixture
def tokens(upstream_sandbox, grower) -> dict[str, str]:
    site = a_clerk("grower", a_site())
    a_load(site, "T-1")
    return {"site": site_token(site), "clerk": made_on_the_page(grower)}


@pytest.mark.parametrize("who", ["site", "clerk"])
@pytest.mark.parametrize("operation", OPERATIONS, ids=[op.label for op in OPERATIONS])
def test_no_operation_fails_or_answers_an_error_of_another_shape(tokens, operation, who):
    strategies = [operation.as_strategy(generation_mode=mode) for mode in GenerationMode]
    found: list[str] = []

    @settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
              phases=[Phase.explicit, Phase.generate],
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(case=st.one_of(strategies))
    def fuzz(case):
        with connection_kept_open():
            response = case.call(headers=bearer(tokens[who]))
        if response.status_code >= 500:
            found.append(f"{response.status_code} for {case.method} {case.formatted_path}: "
                         f"{response.text[:300]}")  # fmt: skip
        elif response.status_code >= 400:
            body = response.json()
            assert set(body) == {"error"}, body
            assert set(body["error"]) == {"code", "message", "fields"}, body

    fuzz()
    assert not found, "\n".join(found)

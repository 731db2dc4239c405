"""The API, version 1 (`/api/v1/`): one NinjaAPI, its routers registered here and nowhere else,
its OpenAPI 3.1 document at /api/v1/openapi.json, its documentation page at /api/v1/docs (Swagger
UI, vendored under static/vendor/swagger-ui: nothing loaded from elsewhere, no inline script).

Each app's routes are a Router in a module of this package named for the app (passports.py,
intake.py, standards.py, webhooks.py); a route calls the same functions of its app that the
app's pages call, so that the rules are written once. Every route takes a token
(`auth=scoped(...)`, portal.api.auth), every POST an `Idempotency-Key` (`@idempotent`,
portal.api.idempotency), every list a cursor (portal.api.paging); every error has one shape
(portal.api.errors).
"""

from __future__ import annotations

import json
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import translation
from django.utils.functional import Promise
from ninja import NinjaAPI
from ninja.openapi.docs import DocsBase
from ninja.openapi.schema import OpenAPISchema
from ninja.parser import Parser

from portal.api import errors, intake, passports, standards, webhooks


class ExactNumbers(Parser):
    """JSON bodies with their decimals as written (Decimal), never rounded through a float."""

    def parse_body(self, request: HttpRequest) -> Any:
        return json.loads(request.body, parse_float=Decimal)


class Docs(DocsBase):
    """The documentation page: Swagger UI from the portal's own static files."""

    def render_page(self, request: HttpRequest, api: NinjaAPI, **kwargs: Any) -> HttpResponse:
        context = {"openapi_url": self.get_openapi_url(api, kwargs), "title": api.title}
        return render(request, "api/docs.html", context)


class PortalApi(NinjaAPI):
    def get_openapi_schema(self, **kwargs: Any) -> OpenAPISchema:
        """The OpenAPI document in English whatever the language asked (it documents codes,
        the same in every language; the page around it says so): written in English now, the
        labels it borrows from the pages included."""
        with translation.override(settings.LANGUAGE_CODE):
            schema = super().get_openapi_schema(**kwargs)
            _written_now(schema)
        return schema


def _written_now(value: object) -> None:
    """Every lazily translated string in the document's dicts and lists, written in the
    language active now."""
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in list(items):
        if isinstance(item, Promise):
            value[key] = str(item)
        elif isinstance(item, dict | list):
            _written_now(item)


api = PortalApi(
    title="Assurance portal API",
    version="1",
    description=(
        "Passports, intake results and standards for farm and grain software. Send a token "
        "(Authorization: Bearer cpp_...), made on Your account → API tokens; an Idempotency-Key "
        "with every POST; follow next_cursor through lists. Every error is "
        '{"error": {"code", "message", "fields"}}.'
    ),
    urls_namespace="api",
    docs=Docs(),
    docs_url="/docs",
    openapi_url="/openapi.json",
    parser=ExactNumbers(),
)
errors.install(api)
api.add_router("/passports", passports.router, tags=["passports"])
api.add_router("/intake", intake.router, tags=["intake"])
api.add_router("/standards", standards.router, tags=["standards"])
api.add_router("/webhooks", webhooks.router, tags=["webhooks"])
urls = api.urls


def view_of(name: str) -> Any:
    """The view of the API's address named `name` (a route's url_name), to be given another
    address as well."""
    patterns, _, _ = urls
    return next(pattern.callback for pattern in patterns if pattern.name == name)

"""Tokens for the API's tests, made as people make them: on the pages of tokens (a user's own,
a site's by its clerk), whose answer shows the token once; or, for a site no clerk of the test
is at, as those pages make them (portal.api.tokens.make)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import timedelta

from django.test import Client
from django.utils import timezone

from portal.api import tokens
from portal.intake.models import IntakeSite

SHOWN = re.compile(r'value="(cpp_[0-9A-Za-z]{36})"')
EVERY_SCOPE = ("passports:read", "passports:write", "intake:read", "intake:write",
               "webhooks:manage")  # fmt: skip
SITE_SCOPES = ("intake:read", "intake:write")


def made_on_the_page(
    client: Client, address: str = "/accounts/you/tokens/", *, name: str = "Farm records",
    scopes: Iterable[str] = EVERY_SCOPE, days: int = 90,
) -> str:  # fmt: skip
    """The token `client` (signed in) makes on the page at `address`, as shown to them."""
    response = client.post(address, {"name": name, "scopes": list(scopes), "days": days})
    assert response.status_code == 201, response.content.decode()[:2000]
    [token] = SHOWN.findall(response.content.decode())
    return token


def site_token(site: IntakeSite, *, name: str = "Weighbridge",
               scopes: Iterable[str] = SITE_SCOPES) -> str:  # fmt: skip
    """A token of `site`'s, made as its clerks' page makes one."""
    expires = timezone.now() + timedelta(days=90)
    return tokens.make(site, name=name, scopes=scopes, expires=expires, made_by="clerk")[1]


def bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}

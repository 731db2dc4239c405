"""The GUIDs of the sandbox's demo memberships, sites and stores, and its demo passport's short
code (sandbox/demo/accounts.py), by the names the tests use for them."""

from __future__ import annotations

from sandbox.demo.accounts import PASSPORTS
from sandbox.ids import guid_for

DEMO_PASSPORT = PASSPORTS[0]["short_code"]

HOLLOWFIELD = guid_for("membership:hollowfield")
HOLLOWFIELD_FARM = guid_for("site:hollowfield-farm")
MARSH_END = guid_for("site:marsh-end")
MAIN_STORE = guid_for("store:main-store")
FLAT_STORE = guid_for("store:flat-store")
WENHAM = guid_for("membership:wenham-grange")
WENHAM_SITE = guid_for("site:wenham-grange")
GRANGE_BINS = guid_for("store:grange-bins")
COLDHARBOUR = guid_for("membership:coldharbour")
COLDHARBOUR_SITE = guid_for("site:coldharbour")
OAKHURST = guid_for("membership:oakhurst")
OAKHURST_SITE = guid_for("site:oakhurst")
RIDGEWAY = guid_for("membership:ridgeway")
RIDGEWAY_SITE = guid_for("site:ridgeway")

"""What the sign-in page says when it refuses a sign-in (portal.accounts.views): a wrong
password, with the tries left once they are few, and a lockout, with for how long, in words.

Each message is a whole sentence or two in the catalogue, one for each limit
(portal.accounts.lockout's and portal.accounts.service_lockout's), never built from pieces, so
that it reads rightly in Welsh too; the English is kept here for the tests to read as well.
"""

from __future__ import annotations

import math

from django.conf import settings
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop, ngettext, ngettext_lazy

from portal.accounts import lockout, service_lockout
from portal.accounts.service_lockout import Standing

WRONG = gettext_noop("The username or password is not right.")
FAILED = gettext_noop("The username or password is not right. Check them and try again.")
LOCKED_TO_NEW = gettext_noop(
    "After repeated failed sign-ins on this portal, only passwords that have worked here before "
    "are accepted for now, until someone signs in with one. If you have signed in here before, "
    "your usual password still works."
)
LOCKED_TO_NEW_FROM_ADDRESS = gettext_noop(
    "After repeated failed sign-ins from your address, only passwords that have worked here "
    "before are accepted from it for %(duration)s. If you have signed in here before, your usual "
    "password still works."
)
LOCKED_FROM_ADDRESS = gettext_noop(
    "Sign-in from your address is locked for %(duration)s after repeated failures. If you have "
    "signed in here before, your usual password still works."
)
LOCKED_ACCOUNT = gettext_noop(
    "Sign-in to this account from your address is locked for %(duration)s after repeated "
    "failures. If you have signed in here before, your usual password still works."
)
LOCKED_BY_SERVICE_FROM_ADDRESS = gettext_noop(
    "The Assurance service has locked sign-in from your address for %(duration)s after "
    "repeated failures."
)
LOCKED_BY_SERVICE_FOR_EVERYONE = gettext_noop(
    "The Assurance service has locked sign-in for everyone on this portal for %(duration)s "
    "after repeated failures."
)
UNAVAILABLE = gettext_noop(
    "The Assurance service cannot be reached just now, so nobody can sign in. "
    "Please try again in a minute."
)
LOCKED = {
    lockout.PACE: LOCKED_FROM_ADDRESS,
    lockout.ACCOUNT: LOCKED_ACCOUNT,
    service_lockout.ADDRESS: LOCKED_TO_NEW_FROM_ADDRESS,
    service_lockout.SHARED: LOCKED_TO_NEW,
}
# The tries left before each limit is met, and what then (the plural chosen by the tries).
TRIES_LEFT = {
    service_lockout.SHARED: ngettext_lazy(
        "You have one more try before only passwords that have worked here before are accepted.",
        "You have %(tries)s more tries before only passwords that have worked here before "
        "are accepted.",
        "tries",
    ),
    service_lockout.ADDRESS: ngettext_lazy(
        "You have one more try before only passwords that have worked here before are "
        "accepted from your address.",
        "You have %(tries)s more tries before only passwords that have worked here before "
        "are accepted from your address.",
        "tries",
    ),
    lockout.ACCOUNT: ngettext_lazy(
        "You have one more try before sign-in to this account from your address is locked "
        "for %(duration)s.",
        "You have %(tries)s more tries before sign-in to this account from your address is "
        "locked for %(duration)s.",
        "tries",
    ),
    lockout.PACE: ngettext_lazy(
        "You have one more try before sign-in from your address is locked for %(duration)s.",
        "You have %(tries)s more tries before sign-in from your address is locked for "
        "%(duration)s.",
        "tries",
    ),
}


def failed(standing: Standing, warned: bool) -> str:
    """A wrong password's message; with the tries left once they are few or the service warns.
    Each part is a whole sentence (or two), so that they may follow one another."""
    if standing.tries == 0:
        return f"{_(WRONG)} {locked(standing)}"
    if not (warned or standing.tries == 1):
        return _(FAILED)
    return f"{_(WRONG)} {_tries_left(standing)}"


def _tries_left(standing: Standing) -> str:
    """How many tries are left before the limit `standing` is met, and what then."""
    said = TRIES_LEFT.get(standing.limit, TRIES_LEFT[lockout.PACE])
    return said % {"tries": standing.tries, "duration": in_words(standing.seconds)}


def locked(standing: Standing) -> str:
    """Why sign-in is refused now, and for how long."""
    if standing.limit == service_lockout.LOCKOUT:
        forwarded = settings.ASSURANCE_FORWARDS_CLIENT_ADDRESS
        said = LOCKED_BY_SERVICE_FROM_ADDRESS if forwarded else LOCKED_BY_SERVICE_FOR_EVERYONE
    else:
        said = LOCKED[standing.limit]
    if standing.limit == service_lockout.SHARED:
        return _(said)
    return _(said) % {"duration": in_words(standing.seconds)}


def in_words(seconds: float | None) -> str:
    """A duration as a person would say it: "about 15 minutes"."""
    minutes = max(1, math.ceil((seconds or 0) / 60))
    if minutes < 60:
        return ngettext("about a minute", "about %(minutes)s minutes", minutes) % {
            "minutes": minutes
        }
    hours = round(minutes / 60)
    return ngettext("about an hour", "about %(hours)s hours", hours) % {"hours": hours}

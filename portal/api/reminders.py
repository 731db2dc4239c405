"""The mail to a user with an API token whose latest sign-in (portal.accounts.latest_sign_in)
ends within a week: sign in to the portal again to keep your API tokens working. Celery beat
sends `upstream-sign-in-reminders` (portal.api.tasks) every hour; each expiry is told once, and a
sign-in that renews the token brings a new expiry, told in its turn. Only users who hold a token
neither revoked nor expired are mailed: the others have nothing the sign-in keeps working.

Each reminder is claimed before it is sent (its row marked with the expiry it tells, on the
condition that no other run marked it and no sign-in renewed it meanwhile), so that two runs at
once send it once, and no row is locked while the mail server is asked. A mail server that cannot
be reached, or says "try later", gives the claim back for the next run; one that refuses the
address for good is logged, and not asked again for that expiry. A worker killed between the
claim and the mail leaves that expiry untold: the API's refusal then says why in words.

The mail goes to where the portal writes to the user (portal.accounts.preferences), and to
active accounts only.
"""

from __future__ import annotations

import logging
import smtplib
from datetime import datetime, timedelta

from django.conf import settings
from django.core.mail import EmailMessage
from django.db.models import Exists, F, OuterRef, QuerySet
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils import timezone

from portal.accounts import preferences
from portal.accounts.models import LatestSignIn
from portal.api.models import Token

log = logging.getLogger(__name__)

REMIND_BEFORE = timedelta(days=7)


def send_reminders() -> int:
    """Mails each active user with a live API token whose latest sign-in ends within a week and
    who was not told of that expiry yet; how many were mailed."""
    sent = 0
    for kept in _due(timezone.now()).select_related("user"):
        if _claim(kept) and _mail(kept):
            sent += 1
    return sent


def _due(now: datetime) -> QuerySet[LatestSignIn]:
    live_tokens = Token.objects.filter(user=OuterRef("user"), revoked=None, expires__gt=now)
    ending = LatestSignIn.objects.filter(
        Exists(live_tokens), expires__gt=now, expires__lte=now + REMIND_BEFORE,
        user__is_active=True,
    )  # fmt: skip
    return ending.exclude(reminded_of=F("expires")).order_by("expires")


def _claim(kept: LatestSignIn) -> bool:
    """Marks the expiry as told, unless another run did or a sign-in renewed it; whether this
    run did."""
    unclaimed = LatestSignIn.objects.filter(pk=kept.pk, expires=kept.expires)
    return bool(unclaimed.exclude(reminded_of=F("expires")).update(reminded_of=kept.expires))


def _mail(kept: LatestSignIn) -> bool:
    """Sends the reminder; whether the mail server took it. A passing trouble gives the claim
    back, for the next run to try again."""
    address = preferences.mail_address(kept.user)
    if not address:
        return False
    try:
        message(kept, address).send()
    except (smtplib.SMTPException, OSError) as trouble:
        if _refused_for_good(trouble):
            log.warning("The mail server refused the sign-in reminder to user %s for good: %s",
                        kept.user.pk, trouble)  # fmt: skip
        else:
            log.warning("The sign-in reminder to user %s waits for the next run: %s",
                        kept.user.pk, trouble or type(trouble).__name__)  # fmt: skip
            _unclaim(kept)
        return False
    return True


def _refused_for_good(trouble: Exception) -> bool:
    """A 5xx answer: the mail server will not take this mail, however often it is asked."""
    if isinstance(trouble, smtplib.SMTPRecipientsRefused):
        return all(code >= 500 for code, _ in trouble.recipients.values())
    return isinstance(trouble, smtplib.SMTPResponseException) and trouble.smtp_code >= 500


def _unclaim(kept: LatestSignIn) -> None:
    LatestSignIn.objects.filter(pk=kept.pk, reminded_of=kept.expires).update(
        reminded_of=kept.reminded_of
    )


def message(kept: LatestSignIn, address: str) -> EmailMessage:
    """The reminder, plain text: when the sign-in ends, and where to sign in again."""
    ends = timezone.localtime(kept.expires)
    context = {
        "ends": ends,
        "username": kept.user.get_username(),
        "sign_in_page": settings.PORTAL_URL + reverse("accounts:sign-in"),
        "account_page": settings.PORTAL_URL + reverse("accounts:you"),
    }
    return EmailMessage(
        subject=f"Sign in to the Assurance portal by {ends.day} {ends:%B} to keep your API tokens "
        "working",
        body=render_to_string("api/mail/sign_in_reminder.txt", context),
        from_email=settings.DEFAULT_FROM_EMAIL,
        to=[address],
    )

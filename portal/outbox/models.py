"""Webhooks' endpoints, the events the portal emits, and their deliveries.

An endpoint belongs to a business (a membership of the Assurance service, by its GUID: its
contacts manage it) or to an intake site (its clerks do). An event is written, with one
delivery row for each enabled endpoint of its owners that wants its type, in the transaction of
the change that caused it (portal.outbox.events.emit); each delivery keeps every attempt made.
"""

from __future__ import annotations

import base64
import secrets
import uuid
from datetime import timedelta
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from portal.accounts import credentials

SECRET_PREFIX = "whsec_"  # noqa: S105 (the Standard Webhooks' prefix of a secret, not one)
URL_LONGEST = 2000
ANSWER_KEPT = 4096  # the first bytes of an answer kept with its attempt
ROTATION = timedelta(hours=24)  # how long a secret replaced still signs


class EventType(models.TextChoices):
    PASSPORT_CREATED = "passport.created", _("A passport was made")
    PASSPORT_SENT = "passport.sent", _("A passport was sent by e-mail")
    LOAD_RECORDED = "intake.load.recorded", _("A load was recorded at intake")
    LOAD_CORRECTED = "intake.load.corrected", _("A load's results were corrected")
    QUERY_OPENED = "intake.query.opened", _("A load's results were queried")
    QUERY_ANSWERED = "intake.query.answered", _("A query of a load's results was answered")
    PING = "ping", _("A test event")


def new_secret() -> str:
    """A signing secret as the Standard Webhooks write one: the prefix and 32 random bytes in
    base64."""
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode("ascii")


class Endpoint(models.Model):
    """Where a business's or a site's events are sent, signed with its secret. The secret is
    kept encrypted (portal.accounts.credentials), not hashed: every delivery is signed with
    it. While a secret is rotated, the one it replaced signs too, until `previous_until`."""

    membership_guid = models.CharField(_("membership GUID"), max_length=64, blank=True,
                                       db_index=True)  # fmt: skip
    business_name = models.CharField(_("business name"), max_length=200, blank=True)
    site = models.ForeignKey(
        "intake.IntakeSite", null=True, blank=True, on_delete=models.CASCADE,
        related_name="webhook_endpoints", verbose_name=_("site"),
    )  # fmt: skip
    url = models.URLField(_("address"), max_length=URL_LONGEST)
    description = models.CharField(_("description"), max_length=200, blank=True)
    event_types = models.JSONField(_("event types"), default=list)
    secret = models.TextField(_("secret"), editable=False)  # encrypted
    # Encrypted too.
    previous_secret = models.TextField(_("previous secret"), blank=True, editable=False)
    previous_until = models.DateTimeField(_("previous secret until"), null=True, blank=True,
                                          editable=False)  # fmt: skip
    enabled = models.BooleanField(_("enabled"), default=True)
    disabled_reason = models.CharField(_("disabled reason"), max_length=300, blank=True)
    # The first failure since the last delivery that worked: failing for
    # PORTAL_WEBHOOK_DISABLE_AFTER_DAYS disables the endpoint.
    failing_since = models.DateTimeField(_("failing since"), null=True, blank=True)
    made_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("made by"),
    )  # fmt: skip
    created = models.DateTimeField(_("created"), default=timezone.now)

    class Meta:
        verbose_name = _("endpoint")
        verbose_name_plural = _("endpoints")
        ordering = ["-created", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=(Q(site__isnull=True) & ~Q(membership_guid=""))
                | (Q(site__isnull=False) & Q(membership_guid="")),
                name="endpoint_of_a_business_or_a_site",
            ),
        ]

    def __str__(self) -> str:
        return self.url

    def signing_secrets(self) -> list[str]:
        """The secrets each delivery is signed with now: the current one, and the one it
        replaced during a rotation."""
        kept = [self.secret]
        if self.previous_secret and self.previous_until and self.previous_until > timezone.now():
            kept.append(self.previous_secret)
        return [secret for secret in map(credentials.decrypt, kept) if secret]

    def set_secret(self, secret: str) -> None:
        self.secret = credentials.encrypt(secret)

    def wants(self, event_type: str) -> bool:
        return event_type == EventType.PING or event_type in self.event_types

    def audited(self) -> dict[str, object]:
        """The endpoint as the audit trail names it: its id, its owner, and its address without
        a query, a fragment or a user's part (a receiver may keep a secret of its own there);
        never its signing secret."""
        owner = f"site-{self.site.code}" if self.site_id else f"business-{self.membership_guid}"
        address = urlsplit(self.url)
        address = address._replace(netloc=address.netloc.rpartition("@")[2], query="", fragment="")
        return {"endpoint": self.pk, "owner": owner, "address": urlunsplit(address)}


class Event(models.Model):
    """Something that happened, for its owners' endpoints: a thin payload (what changed, its
    status, and where the API gives the rest). `body` is the JSON sent, the same at every
    attempt; `uid` is its `webhook-id`."""

    uid = models.CharField(_("webhook ID"), max_length=40, unique=True, editable=False)
    type = models.CharField(_("type"), max_length=40, choices=EventType.choices)
    created = models.DateTimeField(_("created"), default=timezone.now, db_index=True)
    membership_guid = models.CharField(_("membership GUID"), max_length=64, blank=True)
    site = models.ForeignKey(
        "intake.IntakeSite", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
        verbose_name=_("site"),
    )  # fmt: skip
    body = models.TextField(_("body"))

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["-created", "-pk"]

    def __str__(self) -> str:
        return f"{self.type} {self.uid}"

    @staticmethod
    def new_uid() -> str:
        return f"msg_{uuid.uuid4().hex}"


class Delivery(models.Model):
    """One event to one endpoint: pending until an attempt is answered with 2xx (delivered) or
    the retries run out (failed). A worker sending it holds it until `held_until`, so that the
    sweep leaves it alone meanwhile."""

    class State(models.TextChoices):
        PENDING = "pending", _("Waiting to be sent")
        DELIVERED = "delivered", _("Delivered")
        FAILED = "failed", _("Failed")

    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="deliveries",
                              verbose_name=_("event"))  # fmt: skip
    endpoint = models.ForeignKey(Endpoint, on_delete=models.CASCADE, related_name="deliveries",
                                 verbose_name=_("endpoint"))  # fmt: skip
    state = models.CharField(_("state"), max_length=16, choices=State.choices,
                             default=State.PENDING)  # fmt: skip
    tries = models.PositiveSmallIntegerField(_("tries"), default=0)
    next_attempt = models.DateTimeField(_("next attempt"), default=timezone.now)
    held_until = models.DateTimeField(_("held until"), null=True, blank=True)
    last_status = models.PositiveSmallIntegerField(_("last status"), null=True, blank=True)
    created = models.DateTimeField(_("created"), default=timezone.now)
    ended = models.DateTimeField(_("ended"), null=True, blank=True)

    class Meta:
        verbose_name = _("delivery")
        verbose_name_plural = _("deliveries")
        ordering = ["-created", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["event", "endpoint"], name="one_delivery_an_endpoint")
        ]
        indexes = [
            models.Index(
                fields=["next_attempt"], condition=Q(state="pending"), name="outbox_delivery_due"
            ),
            models.Index(fields=["endpoint", "-created"], name="outbox_delivery_log"),
        ]

    def __str__(self) -> str:
        return gettext("%(event)s to %(endpoint)s (%(state)s)") % {
            "event": self.event, "endpoint": self.endpoint, "state": self.get_state_display(),
        }  # fmt: skip


class Attempt(models.Model):
    """One try at a delivery: when, the answer's status (none when there was no answer), how
    long it took, the first bytes of the answer, and what went wrong, in words."""

    delivery = models.ForeignKey(Delivery, on_delete=models.CASCADE, related_name="attempts",
                                 verbose_name=_("delivery"))  # fmt: skip
    at = models.DateTimeField(_("at"), default=timezone.now)
    status = models.PositiveSmallIntegerField(_("status"), null=True, blank=True)
    milliseconds = models.PositiveIntegerField(_("milliseconds"), default=0)
    answer = models.TextField(_("answer"), blank=True)
    trouble = models.CharField(_("trouble"), max_length=300, blank=True)

    class Meta:
        verbose_name = _("attempt")
        verbose_name_plural = _("attempts")
        ordering = ["at", "pk"]

    def __str__(self) -> str:
        return gettext("%(delivery)s at %(at)s: %(outcome)s") % {
            "delivery": self.delivery, "at": f"{self.at:%Y-%m-%d %H:%M:%S}",
            "outcome": self.status or self.trouble,
        }  # fmt: skip

    @property
    def succeeded(self) -> bool:
        return self.status is not None and 200 <= self.status < 300 and not self.trouble

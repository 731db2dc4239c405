"""The audit trail: what was done in the portal, by whom, from where and when, appended to and
never changed. Kept PORTAL_AUDIT_DAYS, then removed by the periodic sweep (docs/running/audit.md
says what is recorded and why). The code refuses to change or delete an event, one by one or
by queryset; on PostgreSQL the database refuses it too (migrations/0002_append_only.py)."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class AppendOnly(Exception):
    """An audit event was to be changed or deleted: the trail is append-only."""


class UnknownKind(ValueError):
    """An audit event of a kind that Event.Kind does not name."""


class EventQuerySet(models.QuerySet):
    def update(self, **kwargs: object) -> int:
        raise AppendOnly("Audit events are never changed.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise AppendOnly("Audit events are removed only by the sweep, once past their keeping.")


class Event(models.Model):
    class Kind(models.TextChoices):
        SIGN_IN = "sign-in", _("Signed in")
        SIGN_OUT = "sign-out", _("Signed out")
        SIGN_IN_FAILED = "sign-in-failed", _("Sign-in failed")
        LOCKOUT_MET = "lockout-met", _("Sign-in refused: locked out")
        SESSIONS_ENDED = "sessions-ended", _("Sessions ended by staff")
        PASSPORT_CREATED = "passport-created", _("Passport created")
        PDF_DOWNLOADED = "pdf-downloaded", _("Passport PDF downloaded")
        MAIL_SENT = "mail-sent", _("Passports sent by e-mail")
        EXPORT_REQUESTED = "export-requested", _("Export requested")
        EXPORT_DOWNLOADED = "export-downloaded", _("Export downloaded")
        LOOK_UP = "look-up", _("Passport looked up")
        LOOK_UP_LIMITED = "look-up-limited", _("Look-up refused: over the address's limit")
        INTAKE_CHECK = "intake-check", _("Loads checked at intake")
        STAFF_RIGHTS = "staff-rights", _("Staff rights changed")
        INTAKE_CLERKS = "intake-clerks", _("Intake clerks changed")
        INTAKE_UPLOAD = "intake-upload", _("Loads uploaded at intake")
        INTAKE_DOOR = "intake-door", _("Loads sent by a site's software")
        INTAKE_TOKEN_MADE = "intake-token-made", _("Intake site's token made")
        INTAKE_TOKEN_REVOKED = "intake-token-revoked", _("Intake site's token revoked")
        API_TOKEN_MADE = "api-token-made", _("API token made")
        API_TOKEN_REVOKED = "api-token-revoked", _("API token revoked")
        API_TOKEN_USED_REVOKED = "api-token-used-revoked", _("API token used after it was revoked")
        WEBHOOK_REGISTERED = "webhook-registered", _("Webhook endpoint registered")
        WEBHOOK_SECRET_ROLLED = "webhook-secret-rolled", _("Webhook endpoint's secret rolled")
        WEBHOOK_DISABLED = "webhook-disabled", _("Webhook endpoint disabled")
        WEBHOOK_ENABLED = "webhook-enabled", _("Webhook endpoint enabled again")

    # Kept in code, not as the column's choices, so that a new kind costs no migration; save()
    # refuses a kind that Kind does not name.
    kind = models.CharField(_("kind"), max_length=32)
    at = models.DateTimeField(_("at"), default=timezone.now, db_index=True)
    # Unset by the database when the user is deleted, the one change its trigger allows (0002).
    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.DB_SET_NULL,
        related_name="+", verbose_name=_("user"),
    )  # fmt: skip
    # The user's name as it was (kept when the user is removed), or the name tried.
    username = models.CharField(_("username"), max_length=150, blank=True)
    client_address = models.GenericIPAddressField(_("client address"), null=True, blank=True)
    request_id = models.CharField(_("request ID"), max_length=64, blank=True)
    # What else the event holds: counts, kinds, keyed hashes of short codes; never a secret.
    detail = models.JSONField(_("detail"), default=dict, blank=True)

    objects = EventQuerySet.as_manager()

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("events")
        ordering = ["-at", "-pk"]
        indexes = [
            models.Index(fields=["kind", "-at"]),
            models.Index(fields=["user", "-at"]),
        ]

    def __str__(self) -> str:
        return f"{self.kind_label} ({self.username or 'someone'}, {self.at:%Y-%m-%d %H:%M})"

    def save(self, *args: object, **kwargs: object) -> None:
        if not self._state.adding:
            raise AppendOnly("An audit event is never changed.")
        if self.kind not in Event.Kind.values:
            raise UnknownKind(f"{self.kind!r} is not a kind of audit event (Event.Kind).")
        super().save(*args, **kwargs)

    def delete(self, *args: object, **kwargs: object) -> tuple[int, dict[str, int]]:
        raise AppendOnly("An audit event is removed only by the sweep, once past its keeping.")

    @property
    def kind_label(self) -> str:
        """What the kind means in words ("Signed in"); a kind no longer named, as it was kept."""
        try:
            return str(Event.Kind(self.kind).label)
        except ValueError:
            return self.kind

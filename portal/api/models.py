"""The API's tokens, of people and of intake sites alike, and the answers to POSTs sent with an
`Idempotency-Key`, kept to be given again.

A token is shown once, when it is made: only its SHA-256 is kept (portal.api.tokens), so a copy
of the database lets no one call the API. A token is revoked, never removed, so the audit
trail's events still name it; it is of a user (acting as that user, seeing only what they may)
or of a site (its software, recording at that site alone), never both.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.utils import timezone
from django.utils.translation import gettext_lazy as _


class Scope(models.TextChoices):
    PASSPORTS_READ = "passports:read", _("Read the business's passports")
    PASSPORTS_WRITE = "passports:write", _("Create and send passports")
    INTAKE_READ = "intake:read", _("Read an intake site's loads")
    INTAKE_WRITE = "intake:write", _("Record and correct loads, answer queries")
    WEBHOOKS_MANAGE = "webhooks:manage", _("Manage webhook endpoints")


# What a site's token may be given: its software records and reads the site's loads.
SITE_SCOPES = (Scope.INTAKE_READ, Scope.INTAKE_WRITE)


class Token(models.Model):
    user = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                             on_delete=models.CASCADE, related_name="api_tokens",
                             verbose_name=_("user"))  # fmt: skip
    site = models.ForeignKey("intake.IntakeSite", null=True, blank=True,
                             on_delete=models.CASCADE, related_name="api_tokens",
                             verbose_name=_("site"))  # fmt: skip
    name = models.CharField(_("name"), max_length=100,
                            help_text=_("What it is for: Weighbridge, Farm records."))  # fmt: skip
    scopes = models.JSONField(_("scopes"), default=list)
    digest = models.CharField(_("digest"), max_length=64, unique=True, editable=False)
    created = models.DateTimeField(_("created"), default=timezone.now, editable=False)
    expires = models.DateTimeField(_("expires"))
    revoked = models.DateTimeField(_("revoked"), null=True, blank=True, editable=False)
    last_used = models.DateTimeField(_("last used"), null=True, blank=True, editable=False)
    # Who made it: the user themselves, a site's clerk, staff; kept as it was.
    made_by = models.CharField(_("made by"), max_length=150, blank=True, editable=False)

    class Meta:
        verbose_name = _("token")
        verbose_name_plural = _("tokens")
        ordering = ["-created", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=models.Q(user__isnull=False, site__isnull=True)
                | models.Q(user__isnull=True, site__isnull=False),
                name="api_token_of_a_user_or_a_site",
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.owner})"

    @property
    def owner(self) -> str:
        return self.site.name if self.site_id else self.user.get_username()

    @property
    def is_revoked(self) -> bool:
        return self.revoked is not None

    @property
    def is_expired(self) -> bool:
        return self.expires <= timezone.now()

    def allows(self, scope: str) -> bool:
        return scope in self.scopes


class KeptAnswer(models.Model):
    """The answer to a POST sent with an `Idempotency-Key` by a token: given again to the same
    key and body, refused to the same key with another body (portal.api.idempotency). A row
    without a status is a request still being answered. Swept once older than
    PORTAL_API_IDEMPOTENCY_HOURS. The body is sealed (portal.accounts.credentials): an answer may
    hold a secret shown once."""

    token = models.ForeignKey(Token, on_delete=models.CASCADE, related_name="+",
                              verbose_name=_("token"))  # fmt: skip
    key = models.CharField(_("idempotency key"), max_length=255)
    # SHA-256 of the method, address and body
    fingerprint = models.CharField(_("fingerprint"), max_length=64)
    created = models.DateTimeField(_("created"), default=timezone.now, db_index=True)
    status = models.PositiveSmallIntegerField(_("status"), null=True)
    content_type = models.CharField(_("content type"), max_length=100, blank=True)
    body = models.BinaryField(_("body"), default=b"")

    class Meta:
        verbose_name = _("kept answer")
        verbose_name_plural = _("kept answers")
        constraints = [
            models.UniqueConstraint(fields=["token", "key"], name="one_answer_a_key"),
        ]

    def __str__(self) -> str:
        return f"{self.key} ({self.token_id})"

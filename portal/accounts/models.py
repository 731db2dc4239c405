from django.conf import settings
from django.db import models
from django.utils.translation import gettext_lazy as _


class PasswordVerifier(models.Model):
    """What the portal keeps from a user's last successful sign-in to recognise the same
    password again: a slow, salted hash of it (portal.accounts.verifiers), never the password."""

    # As typed, trimmed, lower case.
    username = models.CharField(_("username"), max_length=254, unique=True)
    verifier = models.CharField(_("verifier"), max_length=256)
    kept = models.DateTimeField(_("kept"))

    class Meta:
        verbose_name = _("password verifier")
        verbose_name_plural = _("password verifiers")

    def __str__(self) -> str:
        return self.username


class Preferences(models.Model):
    """What a user keeps on their account's page (`/accounts/you/`, portal.accounts.preferences):
    the e-mail address replies to the passports they send go to, which is also where the portal
    writes to them; whether it e-mails them the intake results of the passports they made; and
    the language of their pages and mail (empty until they choose one).
    One row a user, made when they first save the page; until then, the defaults: their
    account's address, and the mail on."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
        related_name="preferences", verbose_name=_("user"),
    )  # fmt: skip
    email = models.EmailField(
        _("e-mail address"), blank=True,
        help_text=_("Empty: the account's own address (the user's `email`)."),
    )  # fmt: skip
    intake_mail = models.BooleanField(
        _("intake mail"), default=True,
        help_text=_("Mailed each intake result of the passports they made."),
    )  # fmt: skip
    language = models.CharField(
        _("language"), max_length=8, blank=True, choices=settings.LANGUAGES,
        help_text=_("The pages' and the mail's; empty until they choose."),
    )  # fmt: skip
    changed = models.DateTimeField(_("changed"), auto_now=True)

    class Meta:
        verbose_name = _("preferences")
        verbose_name_plural = _("preferences")

    def __str__(self) -> str:
        return f"Preferences of {self.user}"


class LatestSignIn(models.Model):
    """The upstream token of a user's latest sign-in, encrypted as jobs keep theirs
    (portal.accounts.credentials), and when the service said it expires: what the user's API
    tokens call the service with (portal.accounts.latest_sign_in). One row a user, renewed at
    every sign-in, removed when staff end every session of the user."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, primary_key=True,
        related_name="latest_sign_in", verbose_name=_("user"),
    )  # fmt: skip
    token = models.TextField(_("token"), help_text=_("Encrypted; never shown."))
    expires = models.DateTimeField(
        _("expires"), null=True, help_text=_("As the service said; empty if it did not say.")
    )
    signed_in = models.DateTimeField(_("signed in"))
    reminded_of = models.DateTimeField(
        _("reminded of"), null=True,
        help_text=_("The expiry the user was last reminded of (one mail each)."),
    )  # fmt: skip

    class Meta:
        verbose_name = _("latest sign-in")
        verbose_name_plural = _("latest sign-ins")
        indexes = [models.Index(fields=["expires"], name="latest_sign_in_expires")]

    def __str__(self) -> str:
        return f"Latest sign-in of {self.user}"

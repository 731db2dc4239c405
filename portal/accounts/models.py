from django.db import models


class PasswordVerifier(models.Model):
    """What the portal keeps from a user's last successful sign-in to recognise the same
    password again: a slow, salted hash of it (portal.accounts.verifiers), never the password."""

    username = models.CharField(max_length=254, unique=True)  # as typed, trimmed, lower case
    verifier = models.CharField(max_length=256)
    kept = models.DateTimeField()

    def __str__(self) -> str:
        return self.username

"""What can go wrong in a call to the Assurance service, as a small hierarchy of exceptions.

Each carries the upstream's code, HTTP status and message, and every field error of the body.
None carries a credential: messages come from the upstream's error body or from this module.
"""

from __future__ import annotations

from django.utils.translation import gettext_lazy as _

from portal.assurance import records


class AssuranceError(Exception):
    """A call to the Assurance service did not give what was asked for."""

    default_message = _("The Assurance service could not do this.")

    def __init__(
        self,
        message: str | None = None,
        *,
        status: int | None = None,
        code: str | None = None,
        errors: list[records.ErrorItem] | None = None,
        operation: str | None = None,
    ) -> None:
        # The default in the language in use where it was raised (a page's, a job's).
        self.message = message or str(self.default_message)
        self.status = status
        self.code = code
        self.errors = errors or []
        self.operation = operation
        super().__init__(self.message)

    def __str__(self) -> str:
        where = f"{self.operation}: " if self.operation else ""
        what = f" [{self.code or self.status}]" if (self.code or self.status) else ""
        return f"{where}{self.message}{what}"

    @property
    def field_errors(self) -> dict[str, list[str]]:
        """Messages of the `DataError:<field>:<rule>` errors, by field."""
        by_field: dict[str, list[str]] = {}
        for error in self.errors:
            parts = (error.code or "").split(":")
            if len(parts) == 3 and parts[0] == "DataError":
                by_field.setdefault(parts[1], []).append(error.message or parts[2])
        return by_field


class AuthenticationFailed(AssuranceError):
    default_message = _("The username or password is incorrect.")


class LockoutWarning(AuthenticationFailed):
    """A failed sign-in after which one or two more failures lock the address out."""

    default_message = _(
        "The username or password is incorrect, and one more failure may lock sign-in for a while."
    )


class LockoutActive(AssuranceError):
    default_message = _("Sign-in is locked for a while after repeated failures.")


class AuthenticationRequired(AssuranceError):
    """No credentials, or ones that expired or were revoked: sign in again."""

    default_message = _("Your sign-in has ended; sign in again.")


class NotAContact(AssuranceError):
    default_message = _("You are not a registered contact of this membership, site or store.")


class NotFound(AssuranceError):
    default_message = _("The Assurance service has no such thing.")


class StatusNotValid(AssuranceError):
    default_message = _("The assurance claim of this membership is not valid now.")


class ValidationFailed(AssuranceError):
    default_message = _("The Assurance service refused some of the values sent.")


class Unavailable(AssuranceError):
    """The service could not be reached, timed out, or answered 5xx or 429."""

    default_message = _("The Assurance service cannot be reached just now.")

    def __init__(self, message: str | None = None, *, retry_after: float | None = None, **kw):
        super().__init__(message, **kw)
        self.retry_after = retry_after


class UnexpectedResponse(AssuranceError):
    """An answer that does not parse, is too large, or is not what was asked for."""

    default_message = _("The Assurance service gave an answer that could not be read.")


_BY_CODE: dict[str, type[AssuranceError]] = {
    "OperationError:AuthenticationFailed": AuthenticationFailed,
    "OperationError:AuthenticationLockoutWarning": LockoutWarning,
    "OperationError:AuthenticationLockoutActive": LockoutActive,
    "OperationError:AuthenticationRequired": AuthenticationRequired,
    "OperationError:NotAContact": NotAContact,
    "OperationError:NotFound": NotFound,
    "OperationError:StatusNotValid": StatusNotValid,
}

_BY_STATUS: dict[int, type[AssuranceError]] = {
    400: ValidationFailed,
    401: AuthenticationRequired,
    403: NotAContact,
    404: NotFound,
    429: Unavailable,
}


def error_for(status: int, errors: list[records.ErrorItem]) -> AssuranceError:
    """The exception for an error answer: by its first known code, else by its status."""
    kind = next((_BY_CODE[e.code] for e in errors if e.code in _BY_CODE), None)
    if kind is None and any((e.code or "").startswith("DataError:") for e in errors):
        kind = ValidationFailed
    if kind is None:
        kind = _BY_STATUS.get(status) or (Unavailable if status >= 500 else UnexpectedResponse)
    messages = [e.message for e in errors if e.message]
    return kind(
        " ".join(messages) or None,
        status=status,
        code=next((e.code for e in errors if e.code), None),
        errors=errors,
    )

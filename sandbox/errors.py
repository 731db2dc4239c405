"""The one error the service answers with its error body (sandbox/api.py writes it), raised by
its endpoints and its authentication alike."""

from __future__ import annotations

from portal.assurance import records


class ServiceError(Exception):
    """An error the service answers with its error body."""

    def __init__(
        self,
        status: int,
        errors: list[records.ErrorItem],
        headers: dict[str, str] | None = None,
    ) -> None:
        self.status = status
        self.errors = errors
        self.headers = headers or {}
        super().__init__(", ".join(e.code or "" for e in errors))

    @classmethod
    def of(cls, status: int, code: str, message: str, **headers: str) -> ServiceError:
        return cls(status, [records.ErrorItem(code=code, message=message)], headers)

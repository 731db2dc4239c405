"""A real SMTP server for the tests (aiosmtpd's Controller, on a free port chosen first), that
keeps what it receives, or refuses it as a mail server may. The `mail_server` fixture
(tests/conftest.py) starts one and points the portal's mailer at it."""

from __future__ import annotations

import asyncio
import email
import time
from dataclasses import dataclass, field
from email import policy
from email.message import EmailMessage

from aiosmtpd.controller import Controller
from aiosmtpd.smtp import SMTP, Envelope, Session

from scripts.servers import LOOPBACK, free_port


@dataclass(frozen=True)
class Received:
    """A mail as the server took it: who the envelope named, and the message."""

    sender: str
    recipients: list[str]
    message: EmailMessage

    def attachments(self) -> dict[str, bytes]:
        """The attachments (not the inline images) by file name."""
        return {
            part.get_filename(): part.get_content()
            for part in self.message.iter_attachments()
            if part.get_content_disposition() == "attachment"
        }

    def body(self, subtype: str) -> str:
        return self.message.get_body((subtype,)).get_content()


@dataclass
class Inbox:
    """aiosmtpd's handler: keeps each mail; refuses each recipient with `refusal` while set
    ("550 5.1.1 No such user", "451 4.3.0 Try again later"); takes `delay` seconds to accept
    each mail, as a busy server may."""

    received: list[Received] = field(default_factory=list)
    refusal: str = ""
    delay: float = 0

    async def handle_RCPT(
        self, server: SMTP, session: Session, envelope: Envelope, address: str, options: list
    ) -> str:
        if self.refusal:
            return self.refusal
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server: SMTP, session: Session, envelope: Envelope) -> str:
        await asyncio.sleep(self.delay)
        message = email.message_from_bytes(envelope.content, policy=policy.default)
        self.received.append(Received(envelope.mail_from, list(envelope.rcpt_tos), message))
        return "250 Message accepted for delivery"


class MailServer:
    def __init__(self) -> None:
        self.port = free_port()
        self.inbox = Inbox()
        self.controller: Controller | None = None

    @property
    def received(self) -> list[Received]:
        return self.inbox.received

    def start(self) -> None:
        self.controller = Controller(self.inbox, hostname=LOOPBACK, port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None

    def wait_for(self, count: int, seconds: float = 30) -> list[Received]:
        """The mails received, once there are `count` of them."""
        deadline = time.monotonic() + seconds
        while len(self.received) < count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert len(self.received) >= count, f"{len(self.received)} mails of {count} arrived"
        return self.received

    def mailer(self) -> dict:
        """The portal's MAILERS setting that sends here."""
        options = {"host": LOOPBACK, "port": self.port, "timeout": 5}
        return {"default": {"BACKEND": "django.core.mail.backends.smtp.EmailBackend",
                            "OPTIONS": options}}  # fmt: skip

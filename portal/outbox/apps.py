from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class OutboxConfig(AppConfig):
    name = "portal.outbox"
    label = "outbox"
    verbose_name = _("Webhooks' outbox")

    def ready(self) -> None:
        from portal.outbox import tasks  # noqa: F401 (the delivery task and the sweep)

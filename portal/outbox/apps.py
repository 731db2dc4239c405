from django.apps import AppConfig


class OutboxConfig(AppConfig):
    name = "portal.outbox"
    label = "outbox"
    verbose_name = "Webhooks' outbox"

    def ready(self) -> None:
        from portal.outbox import tasks  # noqa: F401 (the delivery task and the sweep)

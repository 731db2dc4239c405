from django.apps import AppConfig


class SandboxConfig(AppConfig):
    name = "sandbox"
    verbose_name = "Assurance service (sandbox)"

    def ready(self) -> None:
        from sandbox import signals

        signals.connect()

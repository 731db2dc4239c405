from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "portal.accounts"
    label = "accounts"
    verbose_name = "Sign-in"

    def ready(self) -> None:
        # backends connects its signal receivers; reminders defines a task of Celery beat's.
        from portal.accounts import backends, reminders  # noqa: F401

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "portal.accounts"
    label = "accounts"
    verbose_name = "Sign-in"

    def ready(self) -> None:
        from portal.accounts import backends  # noqa: F401 (connects its signal receivers)

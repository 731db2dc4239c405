from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AccountsConfig(AppConfig):
    name = "portal.accounts"
    label = "accounts"
    verbose_name = _("Sign-in")

    def ready(self) -> None:
        from portal.accounts import backends  # noqa: F401 (connects its signal receivers)

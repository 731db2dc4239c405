from django.apps import AppConfig


class PassportsConfig(AppConfig):
    name = "portal.passports"

    def ready(self) -> None:
        from portal.passports.logs import mask_short_codes

        mask_short_codes()

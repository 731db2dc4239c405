from django.apps import AppConfig


class PassportsConfig(AppConfig):
    name = "portal.passports"

    def ready(self) -> None:
        from portal.operations import logs
        from portal.passports.logs import masked_path

        # The portal's record of each request writes its path with the short code masked.
        logs.mask_paths_with(masked_path)

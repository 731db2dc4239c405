from django.apps import AppConfig


class PassportsConfig(AppConfig):
    name = "portal.passports"

    def ready(self) -> None:
        from portal.jobs.work import DOWNLOADS, KINDS
        from portal.passports import pdfs

        KINDS.update(pdfs.KINDS)
        DOWNLOADS.update(pdfs.DOWNLOADS)

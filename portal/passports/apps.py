from django.apps import AppConfig


class PassportsConfig(AppConfig):
    name = "portal.passports"

from django.apps import AppConfig


class StandardsConfig(AppConfig):
    name = "portal.standards"
    label = "standards"
    verbose_name = "Standards"

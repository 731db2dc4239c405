from django.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class StandardsConfig(AppConfig):
    name = "portal.standards"
    label = "standards"
    verbose_name = _("Standards")

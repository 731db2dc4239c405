"""django-axes as an installed app (settings.INSTALLED_APPS), named in the admin in words of the
portal's, in each language: what it keeps there are failed sign-ins. A module of its own, as
apps.py may hold one app's configuration only."""

from axes.apps import AppConfig
from django.utils.translation import gettext_lazy as _


class AxesConfig(AppConfig):
    verbose_name = _("Failed sign-ins")

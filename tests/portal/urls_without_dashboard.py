"""The portal's addresses without the staff dashboard: a page not installed, for
tests/portal/test_navigation.py."""

from django.conf.urls.i18n import i18n_patterns

from portal.urls import one_address, pages

urlpatterns = one_address + i18n_patterns(
    *[pattern for pattern in pages if getattr(pattern, "namespace", None) != "dashboard"],
    prefix_default_language=False,
)

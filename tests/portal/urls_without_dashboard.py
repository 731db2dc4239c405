"""The portal's addresses without the staff dashboard: a page not installed, for
tests/portal/test_navigation.py."""

from portal.urls import urlpatterns as portal_patterns

urlpatterns = [
    pattern for pattern in portal_patterns if getattr(pattern, "namespace", None) != "dashboard"
]

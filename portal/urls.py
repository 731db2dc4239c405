from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from portal import views

urlpatterns = [
    path("", views.home, name="home"),
    path("healthz", views.health, name="health"),
    path("memberships/", views.memberships, name="memberships"),
    path("accounts/", include("portal.accounts.urls")),
    path("standards/", include("portal.standards.urls")),
    # Staff sign in like everyone else: through the Assurance service.
    path(
        "admin/login/",
        RedirectView.as_view(pattern_name="accounts:sign-in", query_string=True),
    ),
    path("admin/", admin.site.urls),
]

handler400 = "portal.errors.bad_request"
handler403 = "portal.errors.permission_denied"
handler404 = "portal.errors.page_not_found"
handler500 = "portal.errors.server_error"

from django.contrib import admin
from django.urls import include, path
from django.views.decorators.http import require_POST

from portal import errors, views
from portal.accounts.views import admin_sign_in
from portal.api import v1
from portal.webhooks import development as development_webhooks

urlpatterns = [
    path("", views.home, name="home"),
    path("", include("portal.operations.urls")),  # /healthz, /readyz and /metrics
    path("memberships/", views.memberships, name="memberships"),
    path("accounts/", include("portal.accounts.urls")),
    path("standards/", include("portal.standards.urls")),
    path("jobs/", include("portal.jobs.urls")),
    path("staff/", include("portal.dashboard.urls")),
    # The API (portal/api/v1.py), and the sites' software's first address for its loads (which
    # took POSTs only).
    path("api/v1/", v1.urls),
    path("intake/api/loads", require_POST(v1.view_of("intake-loads")), name="intake-door"),
    path("", include("portal.api.urls")),  # the pages of API tokens
    path("intake/", include("portal.intake.urls")),
    path("webhooks/", include("portal.webhooks.urls")),
    path("development/webhooks/", development_webhooks.received, name="development-webhooks"),
    path("", include("portal.passports.urls")),
    # Staff sign in like everyone else: through the Assurance service.
    path("admin/login/", admin_sign_in),
    path("admin/", admin.site.urls),
    # The page gunicorn's worker answers an address too long with (portal/operations/web_worker.py).
    path("address-too-long/", errors.address_too_long, name="address-too-long"),
]  # fmt: skip

handler400 = "portal.errors.bad_request"
handler403 = "portal.errors.permission_denied"
handler404 = "portal.errors.page_not_found"
handler500 = "portal.errors.server_error"

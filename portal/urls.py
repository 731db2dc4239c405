from django.conf.urls.i18n import i18n_patterns
from django.contrib import admin
from django.urls import include, path
from django.views.decorators.http import require_POST
from django.views.i18n import JavaScriptCatalog

from portal import errors, views
from portal.accounts.views import admin_sign_in, choose_language
from portal.api import v1
from portal.webhooks import development as development_webhooks

# One address in every language (portal/accounts/language.py): what is printed on paper and in
# QR codes, what software calls, and what operators' tools read.
one_address = [
    path("", include("portal.operations.urls")),  # /healthz, /readyz and /metrics
    # The API (portal/api/v1.py), and the sites' software's first address for its loads (which
    # took POSTs only).
    path("api/v1/", v1.urls),
    path("intake/api/loads", require_POST(v1.view_of("intake-loads")), name="intake-door"),
    path("development/webhooks/", development_webhooks.received, name="development-webhooks"),
    # The look-up by short code, the gate check and the offline checker, for anyone.
    path("", include("portal.passports.check_urls")),
    # The language switch: the same page in the language chosen.
    path("language/<str:code>", choose_language, name="language"),
]  # fmt: skip

# The pages: in English at these addresses, in Welsh under /cy/.
pages = [
    path("", views.home, name="home"),
    # The scripts' words (locale/cy/LC_MESSAGES/djangojs.po), in the address's language.
    path("jsi18n/", JavaScriptCatalog.as_view(packages=["portal"]), name="javascript-catalog"),
    path("memberships/", views.memberships, name="memberships"),
    path("accounts/", include("portal.accounts.urls")),
    path("standards/", include("portal.standards.urls")),
    path("jobs/", include("portal.jobs.urls")),
    path("staff/", include("portal.dashboard.urls")),
    path("", include("portal.api.urls")),  # the pages of API tokens
    path("intake/", include("portal.intake.urls")),
    path("webhooks/", include("portal.webhooks.urls")),
    path("", include("portal.passports.urls")),
    # Staff sign in like everyone else: through the Assurance service.
    path("admin/login/", admin_sign_in),
    path("admin/", admin.site.urls),
    # The page gunicorn's worker answers an address too long with (portal/operations/web_worker.py).
    path("address-too-long/", errors.address_too_long, name="address-too-long"),
]  # fmt: skip

urlpatterns = one_address + i18n_patterns(*pages, prefix_default_language=False)

handler400 = "portal.errors.bad_request"
handler403 = "portal.errors.permission_denied"
handler404 = "portal.errors.page_not_found"
handler500 = "portal.errors.server_error"

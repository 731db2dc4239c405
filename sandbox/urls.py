from django.contrib import admin
from django.urls import path

from sandbox import views
from sandbox.models import Edition

LIVE, PREVIEW = {"stage": Edition.Stage.LIVE}, {"stage": Edition.Stage.PREVIEW}

urlpatterns = [
    path("", views.index, name="index"),
    path("admin/", admin.site.urls),
    path("v1/authentication/login.eb", views.login),
    path("v1/standards.eb", views.schemes, LIVE),
    path("v1/standards/preview/.eb", views.schemes, PREVIEW),
    path("v1/standards/preview/<str:scheme_guid>.eb", views.sections, PREVIEW),
    path("v1/standards/preview/<str:scheme_guid>/<str:section>.eb", views.section_data, PREVIEW),
    path("v1/standards/<str:scheme_guid>.eb", views.sections, LIVE),
    path("v1/standards/<str:scheme_guid>/<str:section>.eb", views.section_data, LIVE),
    path("v1/authorisation.eb", views.authorisation),
    path("v1/passports.eb", views.create_passport),
    path("v1/passports/<str:short_code>.eb", views.download_passport),
    path("_testing/clock", views.testing_clock),
    path("_testing/reset-lockouts", views.testing_reset_lockouts),
]

handler400 = views.bad_request_page
handler403 = views.forbidden_page
handler404 = views.not_found_page
handler500 = views.server_error_page

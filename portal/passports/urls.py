from django.urls import path

from portal.passports.views import lookup

app_name = "passports"

urlpatterns = [
    # Anyone's, signed in or not: the look-up by short code.
    path("p/", lookup.look_up, name="lookup"),
    path("p/<path:code>", lookup.passport_verdict, name="verdict"),
]

from django.urls import path

from portal.passports.views import create, lookup, passport, passports

app_name = "passports"

urlpatterns = [
    # Anyone's, signed in or not: the look-up by short code.
    path("p/", lookup.look_up, name="lookup"),
    path("p/<path:code>", lookup.passport_verdict, name="verdict"),
    # Contacts of a passport's membership only.
    path("passports/", passports.passport_list, name="list"),
    path("passports/add", passports.add, name="add"),
    path("passports/export", passports.export, name="export"),
    path("passports/new", create.create, name="create"),
    path("passports/new/<uuid:submission>/", create.being_made, name="being-made"),
    path("passports/<str:code>/", passport.passport, name="passport"),
    path("passports/<str:code>/pdf", passport.pdf, name="pdf"),
    path("passports/<str:code>/pdf/state", passport.pdf_state, name="pdf-state"),
]

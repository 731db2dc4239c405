from django.urls import path

from portal.passports import views

app_name = "passports"

urlpatterns = [
    path("", views.look_up, name="lookup"),
    path("<path:code>", views.passport_verdict, name="verdict"),
]

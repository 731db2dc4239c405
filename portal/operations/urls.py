from django.urls import path

from portal.operations import views

app_name = "operations"
urlpatterns = [
    path("metrics", views.metrics, name="metrics"),
]

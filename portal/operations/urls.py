"""The operators' addresses: the process alive, ready to serve, and its metrics."""

from django.urls import path

from portal.operations import health, views

app_name = "operations"
urlpatterns = [
    path("healthz", health.alive, name="health"),
    path("readyz", health.Ready.as_view(), name="ready"),
    path("metrics", views.metrics, name="metrics"),
]

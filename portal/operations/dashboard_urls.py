from django.urls import path

from portal.operations import dashboard_views

app_name = "dashboard"
urlpatterns = [
    path("", dashboard_views.index, name="index"),
    path("users/<int:user_id>/end-sessions", dashboard_views.end_sessions, name="end-sessions"),
]

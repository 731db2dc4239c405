from django.urls import path

from portal.dashboard import views

app_name = "dashboard"
urlpatterns = [
    path("", views.index, name="index"),
    path("users/<int:user_id>/end-sessions", views.end_sessions, name="end-sessions"),
]

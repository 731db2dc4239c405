from django.urls import path

from portal.webhooks import views

app_name = "webhooks"
urlpatterns = [
    path("", views.index, name="index"),
    path("new", views.new, name="new"),
    path("<int:pk>/", views.endpoint, name="endpoint"),
    path("<int:pk>/test", views.send_test, name="test"),
    path("<int:pk>/roll", views.roll, name="roll"),
    path("<int:pk>/disable", views.disable, name="disable"),
    path("<int:pk>/enable", views.enable, name="enable"),
    path("<int:pk>/resend-failed", views.resend_failed, name="resend-failed"),
    path("<int:pk>/deliveries/<int:delivery_id>/", views.delivery, name="delivery"),
    path("<int:pk>/deliveries/<int:delivery_id>/resend", views.resend, name="resend"),
]

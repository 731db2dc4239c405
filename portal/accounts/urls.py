from django.urls import path

from portal.accounts import views

app_name = "accounts"
urlpatterns = [
    path("sign-in/", views.sign_in_page, name="sign-in"),
    path("sign-out/", views.sign_out_page, name="sign-out"),
    path("you/", views.your_account, name="you"),
]

from django.urls import path

from portal.api import views

app_name = "tokens"

# The pages of API tokens (views.py): a user's own, and a site's, made by its clerks. The API
# itself is mounted at /api/v1/ by portal/urls.py.
urlpatterns = [
    path("accounts/you/tokens/", views.yours, name="yours"),
    path("accounts/you/tokens/<int:pk>/revoke", views.revoke_yours, name="revoke-yours"),
    path("intake/sites/<slug:site>/tokens/", views.site, name="site"),
    path("intake/sites/<slug:site>/tokens/<int:pk>/revoke", views.revoke_site_token,
         name="revoke-site"),
]  # fmt: skip

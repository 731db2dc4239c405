from django.urls import path

from portal.jobs import views

app_name = "jobs"
urlpatterns = [
    path("", views.job_list, name="list"),
    path("<int:job_id>/", views.job_page, name="job"),
    path("<int:job_id>/cancel/", views.cancel, name="cancel"),
    path("<int:job_id>/resume/", views.resume, name="resume"),
    path("<int:job_id>/download/", views.download, name="download"),
]

from django.urls import path

from portal.intake.views import door, uploads

app_name = "intake"

# The clerks' pages (views/clerks.py), the grower's queries and the clerks' answers
# (views/queries.py), uploads (views/uploads.py) and the sites' software's door (views/door.py).
urlpatterns: list = [
    path("api/loads", door.loads, name="door"),
    path("<slug:site_code>/upload", uploads.upload, name="upload"),
    path("<slug:site_code>/upload/template.<str:kind>", uploads.template, name="upload-template"),
]

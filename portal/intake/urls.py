from django.urls import path

from portal.intake.views import clerks, queries, uploads

app_name = "intake"

# The clerks' pages (views/clerks.py), the grower's queries and the clerks' answers
# (views/queries.py) and uploads (views/uploads.py). The sites' software's door, api/loads, is the
# API's (portal/api/intake.py), kept at this address by portal/urls.py.
urlpatterns = [
    path("", clerks.home, name="home"),
    path("record", clerks.record_code, name="record-code"),
    path("sites/<slug:site>/", clerks.site, name="site"),
    path("sites/<slug:site>/record", clerks.record, name="record"),
    path("loads/<int:pk>/", clerks.load, name="load"),
    path("loads/<int:pk>/correct", clerks.correct, name="correct"),
    path("loads/<int:load_id>/query", queries.query, name="query"),
    path("loads/<int:load_id>/answer", queries.answer, name="answer"),
    path("loads/<int:load_id>/certificate/<int:entry_id>", queries.certificate, name="certificate"),
    path("sites/<slug:site_code>/upload", uploads.upload, name="upload"),
    path("sites/<slug:site_code>/upload/template.<str:kind>", uploads.template,
         name="upload-template"),
]  # fmt: skip

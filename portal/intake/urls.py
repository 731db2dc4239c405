from django.urls import path

from portal.intake.views import queries

app_name = "intake"

# The clerks' pages (views/clerks.py), the grower's queries and the clerks' answers
# (views/queries.py), uploads (views/uploads.py) and the sites' software's door (views/door.py).
urlpatterns: list = [
    path("loads/<int:load_id>/query", queries.query, name="query"),
    path("loads/<int:load_id>/answer", queries.answer, name="answer"),
    path("loads/<int:load_id>/certificate/<int:entry_id>", queries.certificate, name="certificate"),
]

from django.urls import path  # noqa: F401

app_name = "intake"

# The clerks' pages (views/clerks.py), the grower's queries and the clerks' answers
# (views/queries.py), uploads (views/uploads.py) and the sites' software's door (views/door.py).
urlpatterns: list = []

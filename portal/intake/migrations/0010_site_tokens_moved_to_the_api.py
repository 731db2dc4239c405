"""The sites' tokens are the API's now (api.0002 moved them): their table goes."""

from django.db import migrations


class Migration(migrations.Migration):
    dependencies = [
        ("intake", "0009_loads_know_when_they_changed"),
        ("api", "0002_site_tokens_moved"),
    ]

    operations = [migrations.DeleteModel(name="SiteToken")]

"""A load knows when its latest entry was added (`updated`), for the API's changes feed of a
site's loads: set from each load's history."""

import django.utils.timezone
from django.db import migrations, models
from django.db.models import Max


def from_the_histories(apps, schema_editor):
    Load = apps.get_model("intake", "Load")
    for load in Load.objects.annotate(latest=Max("entries__at")).iterator():
        Load.objects.filter(pk=load.pk).update(updated=load.latest or load.created)


class Migration(migrations.Migration):
    dependencies = [("intake", "0008_result_mails_of_their_loads")]

    operations = [
        migrations.AddField(
            model_name="load",
            name="updated",
            field=models.DateTimeField(default=django.utils.timezone.now),
        ),
        migrations.AddIndex(
            model_name="load",
            index=models.Index(fields=["site", "updated", "id"], name="intake_load_changes"),
        ),
        migrations.RunPython(from_the_histories, migrations.RunPython.noop),
    ]

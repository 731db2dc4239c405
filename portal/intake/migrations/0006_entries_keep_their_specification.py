"""Each record and correction keeps the site's specification of the crop its results were judged
against (`LoadEntry.specification`), so that a specification changed later no longer marks the
loads before it again.

The entries already kept are given the specification their pages showed them against until now
(their site's of their crop today). That is the one change ever made to entries already written:
on PostgreSQL the append-only trigger (0002_append_only.py) is disabled for this migration's
transaction alone, which holds the table's lock until it commits, so no other connection writes
or changes an entry meanwhile."""

from collections import defaultdict

from django.db import migrations, models

TRIGGER = "intake_loadentry_append_only"


def keep_the_specification_shown(apps, schema_editor) -> None:
    LoadEntry = apps.get_model("intake", "LoadEntry")
    Specification = apps.get_model("intake", "Specification")
    kept = defaultdict(dict)
    for specification in Specification.objects.all():
        kept[specification.site_id, specification.crop][specification.parameter] = {
            "lowest": _written(specification.lowest),
            "highest": _written(specification.highest),
        }
    judged = LoadEntry.objects.filter(figures__isnull=False, specification__isnull=True)
    pairs = judged.values_list("load__site_id", "load__passport__crop_type").distinct()
    postgresql = schema_editor.connection.vendor == "postgresql"
    if postgresql:
        schema_editor.execute(f"ALTER TABLE intake_loadentry DISABLE TRIGGER {TRIGGER}")
    for site_id, crop in list(pairs):
        specification = kept.get((site_id, crop.lower()), {})
        judged.filter(load__site_id=site_id, load__passport__crop_type=crop).update(
            specification=specification
        )
    if postgresql:
        schema_editor.execute(f"ALTER TABLE intake_loadentry ENABLE TRIGGER {TRIGGER}")


def _written(bound: object) -> str | None:
    return None if bound is None else str(bound)


class Migration(migrations.Migration):
    dependencies = [
        ("intake", "0005_uploads_and_site_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="loadentry",
            name="specification",
            field=models.JSONField(blank=True, null=True),
        ),
        migrations.RunPython(keep_the_specification_shown, migrations.RunPython.noop),
    ]

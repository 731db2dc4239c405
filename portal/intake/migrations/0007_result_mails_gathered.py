"""A load's result mails gathered: a mail is the load's (a burst of changes in one), opened by
a change, telling up to another; queued when its caps allowed (mails before: queued when made,
telling their own change)."""

import django.db.models.deletion
from django.db import migrations, models
from django.db.models import F


def of_their_loads(apps, schema_editor):
    ResultMail = apps.get_model("intake", "ResultMail")
    LoadEntry = apps.get_model("intake", "LoadEntry")
    for mail in ResultMail.objects.all():
        load = LoadEntry.objects.filter(pk=mail.entry_id).values_list("load", flat=True).get()
        ResultMail.objects.filter(pk=mail.pk).update(load=load)
    ResultMail.objects.update(queued=F("created"))
    ResultMail.objects.exclude(sent=None).update(told_up_to=F("entry"))
    if schema_editor.connection.vendor == "postgresql":
        # The new keys' rows checked now, not at the end: PostgreSQL indexes no table with
        # checks still to make, and the keys' indexes are made after this.
        schema_editor.execute("SET CONSTRAINTS ALL IMMEDIATE")


class Migration(migrations.Migration):
    dependencies = [("intake", "0006_entries_keep_their_specification")]

    operations = [
        migrations.AlterField(
            model_name="resultmail",
            name="entry",
            field=models.ForeignKey(
                help_text="The change that opened the mail.",
                on_delete=django.db.models.deletion.PROTECT,
                related_name="mails",
                to="intake.loadentry",
            ),
        ),
        migrations.AddField(
            model_name="resultmail",
            name="load",
            field=models.ForeignKey(
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="mails",
                to="intake.load",
            ),
        ),
        migrations.AddField(
            model_name="resultmail",
            name="told_up_to",
            field=models.ForeignKey(
                blank=True,
                null=True,
                on_delete=django.db.models.deletion.PROTECT,
                related_name="+",
                to="intake.loadentry",
            ),
        ),
        migrations.AddField(
            model_name="resultmail",
            name="queued",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.RunPython(of_their_loads, migrations.RunPython.noop),
    ]

"""Every result mail is of a load (given by 0007, in a transaction of its own: PostgreSQL alters
no table with changes of its rows still to check), and the held and queued are found by index."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [("intake", "0007_result_mails_gathered")]

    operations = [
        migrations.AlterField(
            model_name="resultmail",
            name="load",
            field=models.ForeignKey(
                on_delete=django.db.models.deletion.PROTECT,
                related_name="mails",
                to="intake.load",
            ),
        ),
        migrations.AddIndex(
            model_name="resultmail",
            index=models.Index(fields=["queued"], name="intake_resultmail_queued"),
        ),
        migrations.AddIndex(
            model_name="resultmail",
            index=models.Index(
                condition=models.Q(("queued__isnull", True)),
                fields=["created"],
                name="intake_resultmail_held",
            ),
        ),
    ]

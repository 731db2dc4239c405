"""The kinds of audit event are kept in code (Event.Kind, checked as an event is saved), not as
the column's choices: a new kind costs no migration. The last migration of the kinds."""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("audit", "0005_api_token_kinds"),
    ]

    operations = [
        migrations.AlterField(
            model_name="event",
            name="kind",
            field=models.CharField(max_length=32),
        ),
    ]

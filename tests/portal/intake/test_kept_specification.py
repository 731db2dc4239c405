"""Each record and correction keeps the specification it was judged against; the entries written
before it did are given, by migration 0006, the one their pages showed them against (their
site's of their crop), the one change ever made to entries already written: PostgreSQL refuses
every other change to them afterwards, as before."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from portal.intake import loads
from portal.intake.models import LoadEntry
from portal.passports.models import Passport
from tests.portal.intake.builders import a_site, figures
from tests.portal.passports.helpers import text
from tests.portal.passports.made import made_here

BEFORE = [("intake", "0005_uploads_and_site_tokens")]


@pytest.mark.django_db
def test_a_record_and_a_correction_keep_the_specification_of_the_passports_crop_then(grower):
    site = a_site()
    site.specifications.create(crop="barley", parameter="moisture", highest=15)
    passport = Passport.objects.get(short_code=made_here())  # of wheat
    load = loads.record(site, "T-1", passport, figures(), by="intake", verdict={"valid": True})
    site.specifications.filter(crop="wheat").update(lowest=70, highest=80)
    loads.correct(load, figures(), by="intake", reason="Vehicle misread")
    recorded, corrected = load.entries.all()
    assert recorded.specification == {"specific_weight": {"lowest": "76.00", "highest": None}}
    assert corrected.specification == {"specific_weight": {"lowest": "70.00", "highest": "80.00"}}


@pytest.mark.django_db(transaction=True)  # migrations run as `migrate` runs them
@pytest.mark.skipif(connection.vendor != "postgresql", reason="the trigger is PostgreSQL's")
def test_entries_written_before_keep_the_specification_their_page_showed(grower):
    site = a_site()  # specific weight 76 kg/hl or more
    passport = Passport.objects.get(short_code=made_here())
    load_id = _a_load_written_before_entries_kept_their_specification(site.pk, passport.pk)

    recorded, queried = LoadEntry.objects.filter(load_id=load_id)
    assert recorded.specification == {"specific_weight": {"lowest": "76.00", "highest": None}}
    assert queried.specification is None  # a query is judged against nothing
    page = text(grower.get(f"/passports/{passport.short_code}/"))
    assert "Specific weight 72.5 kg/hl 76 kg/hl or more ✗ Out of specification" in page
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as sql,
    ):
        sql.execute("UPDATE intake_loadentry SET specification = NULL")


def _a_load_written_before_entries_kept_their_specification(site_id: int, passport_id: int) -> int:
    """A load recorded and queried with the intake app's models as they were before migration
    0006, which then runs; the load's id."""
    executor = MigrationExecutor(connection)
    executor.migrate(BEFORE)
    try:
        before = executor.loader.project_state(BEFORE).apps
        load = before.get_model("intake", "Load").objects.create(
            site_id=site_id, ticket="T-1", passport_id=passport_id, net_kg=29_100, decision="claim"
        )
        entries = before.get_model("intake", "LoadEntry").objects
        entries.create(load=load, kind="recorded", by="intake", figures=figures().as_json(),
                       verdict={"valid": True})  # fmt: skip
        entries.create(load=load, kind="queried", by="grower", words="Our sample weighed 76.4.")
    finally:
        executor = MigrationExecutor(connection)
        executor.migrate(executor.loader.graph.leaf_nodes())
    return load.pk

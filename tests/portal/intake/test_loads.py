"""A load's record at intake (portal/intake): recorded once a ticket of its site, its history
append-only (a correction is a new entry that keeps the one before), in the code and, on
PostgreSQL, in the database; and the quality table refusing what cannot be measured."""

from __future__ import annotations

from decimal import Decimal

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from portal.intake import loads, quality
from portal.intake.models import AppendOnly, Decision, Load, LoadEntry
from tests.portal.intake.builders import a_load, a_site, figures

pytestmark = pytest.mark.django_db

on_postgresql = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="the trigger is PostgreSQL's"
)


def test_a_load_is_recorded_with_its_net_weight_decision_and_the_verdict_then(grower):
    load = a_load(a_site())
    assert (load.net_kg, load.decision) == (29_100, Decision.CLAIM)
    [entry] = load.entries.all()
    assert (entry.kind, entry.by, entry.verdict["valid"]) == ("recorded", "intake", True)
    kept = loads.latest_figures(load)
    assert kept == figures()
    assert kept.claimed == Decimal("72.75")  # £2.50 a tonne on 29.1 t


def test_a_ticket_is_recorded_once_at_a_site_and_again_at_another(grower):
    site = a_site()
    a_load(site, "T-1")
    with pytest.raises(IntegrityError), transaction.atomic():
        a_load(site, "T-1")
    a_load(a_site(name="Another", code="another"), "T-1")
    assert Load.objects.filter(ticket="T-1").count() == 2


def test_a_correction_is_an_entry_that_keeps_what_was_there_before(grower):
    load = a_load(a_site())
    loads.correct(load, figures(tare_kg=14_020, decision=Decision.ACCEPTED, claims=()),
                  by="intake", reason="Tare read from the wrong lorry")  # fmt: skip
    load.refresh_from_db()
    assert (load.net_kg, load.decision) == (30_100, Decision.ACCEPTED)
    first, corrected = load.entries.all()
    assert first.figures["tare_kg"] == 15_020 and first.figures["decision"] == "claim"
    assert (corrected.kind, corrected.words) == ("corrected", "Tare read from the wrong lorry")
    assert loads.latest_figures(load).claims == ()


def test_the_code_refuses_to_change_or_delete_an_entry(grower):
    entry = a_load(a_site()).entries.get()
    entry.words = "changed"
    with pytest.raises(AppendOnly):
        entry.save()
    with pytest.raises(AppendOnly):
        LoadEntry.objects.update(words="changed")
    with pytest.raises(AppendOnly):
        LoadEntry.objects.all().delete()
    assert LoadEntry.objects.get().words == ""


@on_postgresql
def test_the_database_refuses_sql_and_the_orm_past_the_code(grower):
    entry = a_load(a_site()).entries.get()
    for statement in (
        "UPDATE intake_loadentry SET words = 'changed'",
        "DELETE FROM intake_loadentry",
    ):
        with (
            pytest.raises(DatabaseError, match="append-only"),
            transaction.atomic(),
            connection.cursor() as sql,
        ):
            sql.execute(statement)
    plain = LoadEntry._base_manager.filter(pk=entry.pk)  # a queryset without the code's refusal
    with pytest.raises(DatabaseError), transaction.atomic():
        plain.update(words="changed")
    assert LoadEntry.objects.get().words == ""


@pytest.mark.parametrize(
    ("crop", "key", "value", "refused"),
    [
        (
            "Wheat",
            "moisture",
            "300",
            "Moisture of 300 % cannot be measured: it is between 0 and 40 %.",
        ),
        ("wheat", "moisture", "14.5", None),
        ("Oilseed rape", "oil", "44", None),
        ("Barley", "specific_weight", "12", "Specific weight of 12 kg/hl cannot be measured"),
    ],
)
def test_a_value_outside_what_can_be_measured_is_refused_in_words(crop, key, value, refused):
    said = quality.parameter(crop, key).refusal(Decimal(value))
    assert said == refused if refused is None else said.startswith(refused)


def test_each_crop_of_the_issue_has_its_parameters():
    assert [p.key for p in quality.parameters_of("Beans")] == ["moisture", "admixture"]
    assert {p.key for p in quality.parameters_of("wheat")} == {
        "moisture",
        "specific_weight",
        "protein",
        "hagberg",
        "admixture",
        "screenings",
    }
    assert quality.parameters_of("Maize") == ()


def test_a_claim_on_the_net_tonnes_is_kept_as_such_and_one_written_before_reads_as_it_was(grower):
    on_the_net = loads.Claim("specific_weight", Decimal("2.50"))
    load = a_load(a_site(), claims=(on_the_net,))
    [entry] = load.entries.all()
    assert entry.figures["claims"] == [
        {"parameter": "specific_weight", "rate": "2.50", "tonnes": None}
    ]
    kept = loads.latest_figures(load)
    assert kept.claims == (on_the_net,) and kept.claimed == Decimal("72.75")
    written_before = a_load(a_site(name="Another", code="another")).entries.get()
    assert written_before.figures["claims"][0]["tonnes"] == "29.10"
    assert loads.Figures.from_json(written_before.figures).claims[0].tonnes == Decimal("29.10")

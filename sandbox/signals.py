"""Keep each CacheDate the latest change: a change to standards touches its section and edition."""

from django.db.models.signals import post_delete, post_save

from sandbox import clock
from sandbox.models import Aim, Answer, AuditPoint, Edition, Link, Scope, Section, StandardPoint


def _touch_section(section_id: int | None) -> None:
    if section_id is None:
        return
    moment = clock.now()
    Section.objects.filter(pk=section_id).update(content_changed=moment)
    Edition.objects.filter(sections=section_id).update(changed=moment)


def _touch_edition(edition_id: int) -> None:
    Edition.objects.filter(pk=edition_id).update(changed=clock.now())


def _point_changed(sender, instance, **kwargs) -> None:
    _touch_section(instance.section_id)


def _point_part_changed(sender, instance, **kwargs) -> None:
    points = StandardPoint.objects.filter(pk=instance.standard_point_id)
    _touch_section(points.values_list("section_id", flat=True).first())


def _section_saved(sender, instance, **kwargs) -> None:
    _touch_section(instance.pk)


def _edition_part_changed(sender, instance, **kwargs) -> None:
    _touch_edition(instance.edition_id)


def _aim_changed(sender, instance, **kwargs) -> None:
    """Every section's data names the aims its points serve."""
    moment = clock.now()
    Section.objects.filter(edition_id=instance.edition_id).update(content_changed=moment)
    Edition.objects.filter(pk=instance.edition_id).update(changed=moment)


def connect() -> None:
    post_save.connect(_section_saved, sender=Section)
    post_delete.connect(_edition_part_changed, sender=Section)
    for signal in (post_save, post_delete):
        signal.connect(_point_changed, sender=StandardPoint)
        for part in (AuditPoint, Answer, Link):
            signal.connect(_point_part_changed, sender=part)
        signal.connect(_edition_part_changed, sender=Scope)
        signal.connect(_aim_changed, sender=Aim)

"""Lesson slugs: a lesson's title (or the slug it prefers) as a URL-safe name, unique among
its agent's lessons (``base``, else ``base-2``, ``base-3`` …). A lesson added by
``store.add_lesson`` holds its base until its row is flushed; the flush makes the slugs of all
its new lessons unique in one query, in the order they were added (``unique_slugs``)."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

from sqlalchemy import and_, event, or_, select
from sqlalchemy.orm import Session

from digest.lessons.per_transaction import for_transaction, kept
from digest.models import Lesson

SLUG_MAX = 80


def slugify(text: str) -> str:
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode()
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if len(slug) > SLUG_MAX:
        slug = slug[:SLUG_MAX].rsplit("-", 1)[0]
    return slug or "lesson"


def unique_slug(session: Session, agent_id: int, title: str, preferred: str | None = None) -> str:
    base = preferred or slugify(title)
    taken = set(
        session.scalars(
            select(Lesson.slug).where(Lesson.agent_id == agent_id, Lesson.slug.like(f"{base}%"))
        )
    )
    return _free(base, taken)


def _free(base: str, taken: set[str]) -> str:
    """``base``, or ``base-2``, ``base-3`` … the first not in ``taken``."""
    if base not in taken:
        return base
    n = 2
    while f"{base}-{n}" in taken:
        n += 1
    return f"{base}-{n}"


#: key of the lessons a transaction added whose slug is still their base
#: (``per_transaction``)
_SLUGS = "digest_slugs_unchecked"


def slug_later(session: Session, lesson: Lesson) -> None:
    """``lesson.slug`` is its base (the preferred slug, else its title's): made unique among
    the agent's lessons when the row is flushed (``unique_slugs``)."""
    unchecked: list[Lesson] = for_transaction(session, _SLUGS, list)
    unchecked.append(lesson)


@event.listens_for(Session, "before_flush")
def unique_slugs(session: Session, _context: Any, _objects: Any) -> None:
    """Before new lessons are inserted: each one's slug made unique (``unique_slug``: the
    base, else the base with the first free number), for all of the flush in one query, in
    the order they were added (the second of two with one base gets ``-2``)."""
    unchecked: list[Lesson] | None = kept(session, _SLUGS)
    if not unchecked:
        return
    new = session.new
    pending = [lesson for lesson in unchecked if lesson in new]
    unchecked[:] = [lesson for lesson in unchecked if lesson not in new]
    if not pending:
        return
    bases = {(lesson.agent_id, lesson.slug) for lesson in pending}
    taken: dict[int, set[str]] = {}
    rows = session.execute(
        select(Lesson.agent_id, Lesson.slug).where(
            or_(*(and_(Lesson.agent_id == a, Lesson.slug.like(f"{b}%")) for a, b in bases))
        )
    )
    for agent_id, slug in rows:
        taken.setdefault(agent_id, set()).add(slug)
    for lesson in pending:
        mine = taken.setdefault(lesson.agent_id, set())
        lesson.slug = _free(lesson.slug, mine)
        mine.add(lesson.slug)

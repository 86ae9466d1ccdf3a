"""The agent's lessons as a transaction that has written them sees them (a batch of events
under the agent's lesson lock): what was committed, with the transaction's own writes laid
over it, kept for the rest of the transaction only (it may still roll back).

The transaction holds the agent's lesson lock, so nobody else writes meanwhile: its first
view is the process's kept index (``digest.lessons.bank``), brought up to date when others
wrote before the lock was taken, and each search lays over it the lessons the transaction
wrote since the search before, as the session holds them (``transition.written``): nothing
is flushed for it and no row read. A lesson whose entry would read as the view has it
already (a NOOP moves its support count and its task vectors, which only a prompt's ranking
reads, never a search) is not laid over again.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.identity.index import Entry
from digest.lessons.bank import (
    View,
    _Bank,
    _build,
    _kept_now,
    _laid_over,
    _overlaid,
    _row,
    bank_key,
)
from digest.lessons.per_transaction import for_transaction
from digest.lessons.transition import written
from digest.lessons.vectors import embedder
from digest.models import Lesson

#: key of a transaction's views (``per_transaction``): by ``bank_key``, each with how many
#: of the transaction's writes it has laid over
_OWN_VIEWS = "digest.lessons.own_views"


def own_view(session: Session, agent_id: int, epoch: int, settings: Settings | None = None) -> View:
    """The view of the session's transaction, which has written the agent's lessons and so
    moved its ``epoch`` once (``epoch`` is the value it moved it to)."""
    found = embedder(settings or get_settings())
    model = found.name if found else None
    key = bank_key(session, agent_id)
    mine = _held(session).get(key)
    if mine is not None and mine[0].model == model:
        bank, seen = mine
    else:
        kept, seen = _kept_now(key), 0
        if kept is None or kept.model != model:
            bank = _build(session, agent_id, epoch, found)
        elif kept.epoch != epoch - 1:  # others wrote before the lock was taken
            bank = _overlaid(session, kept, epoch, found) or _build(session, agent_id, epoch, found)
        else:
            bank = kept
    order = written(session).order
    rows = _changed(bank, order[seen:])
    if rows:
        bank = _laid_over(bank, rows, found, bank.epoch, bank.read_at, bank.stamps)
    _held(session)[key] = (bank, len(order))
    return View(bank, found)


def _held(session: Session) -> dict[tuple[str, int], tuple[_Bank, int]]:
    """The views of the session's current transaction."""
    return for_transaction(session, _OWN_VIEWS, dict)


def _changed(bank: _Bank, lessons: Sequence[Lesson]) -> list[Lesson]:
    """Of ``lessons`` (written by the transaction, each maybe more than once), the agent's
    that the view would hold otherwise than it does."""
    mine = {lesson.id: lesson for lesson in lessons if lesson.agent_id == bank.agent_id}
    return [lesson for lesson in mine.values() if not _holds_as_is(bank, lesson)]


def _holds_as_is(bank: _Bank, lesson: Lesson) -> bool:
    """Does the view hold ``lesson`` as it is now: active, as the same entry (its row, whose
    ``text_key`` hash stands for its text, so its vector, and its cues); not active, not at
    all?"""
    entry = _entry_of(bank, lesson.id)
    if entry is None or lesson.status != "active":
        return entry is None and lesson.status != "active"
    return entry.meta == _row(lesson) and entry.cues == " ".join(lesson.cues or ())


def _entry_of(bank: _Bank, lesson_id: int) -> Entry | None:
    """The entry the view holds for a lesson: the overlay's, else the kept index's unless
    the overlay hides it."""
    for index, hidden in ((bank.delta_index, False), (bank.index, lesson_id in bank.hidden)):
        if index is None or hidden or not len(index):
            continue
        at = int(np.searchsorted(index.ids, lesson_id))
        if at < len(index) and index.ids[at] == lesson_id:
            return index.entries[at]
    return None

"""Import: every LESSON.md below a folder, one file at a time, through reconciliation.

Each file is read (``digest.interop.lesson_files``) and validated completely (front matter,
sections, every cap the capture path checks) before anything is stored; then it is stored and
reconciled on its own. A bad file is reported with its reason and the others go on; a file
whose reconciliation fails leaves nothing behind (its event is withdrawn), so importing it
again later starts afresh. Imports are untrusted unless the owner passes ``--trusted``:
screened like run text and shown as observations. Every imported lesson becomes a
``manual_lesson`` event and goes through reconciliation, so importing a lesson the agent
already has adds support instead of a copy, and importing the same file twice adds nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import delete, select

from digest.capture.api import store_pending
from digest.capture.manual import manual_candidate
from digest.capture.schemas import parse_event
from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import InvalidEvent, LessonFileError
from digest.interop.lesson_files import lesson_files, read_lesson_file
from digest.interop.lesson_md import (
    SECTION_COUNTER,
    SECTION_DO,
    SECTION_WHEN,
    parse_lesson_md,
    safe_slug,
)
from digest.lessons.store import TAG_MAX, TAGS_MAX
from digest.models import Event, LessonEvidence
from digest.pipeline import reflect_event
from digest.redact import redact


@dataclass
class ImportReport:
    #: (file, what happened: "imported", "already imported", …)
    imported: list[tuple[str, str]] = field(default_factory=list)
    #: (file, why it was not imported); nothing of such a file is stored
    errors: list[tuple[str, str]] = field(default_factory=list)


def import_lessons(
    tenant: str,
    agent: str,
    directory: Path,
    settings: Settings | None = None,
    *,
    trusted: bool = False,
    on_file: Callable[[], None] | None = None,
) -> ImportReport:
    """Import every LESSON.md below ``directory`` into one agent, through reconciliation, one
    file at a time: each is read and validated in full first, then stored and reconciled on
    its own, so a bad file is reported and the others go on.

    A file is untrusted unless ``trusted`` (its owner vouches for it): its lessons are screened
    like run text, may not change a trusted lesson, enter a version only with independent
    support, and are shown as observations, never as the owner's rules. Raises
    ``CaptureUnavailable`` if the database stops taking events (the files imported before
    stay imported). ``on_file()`` is called after each file (a progress counter)."""
    settings = settings or get_settings()
    root = directory.resolve()
    if not root.is_dir():
        raise LessonFileError(f"not a folder: {directory}")
    report = ImportReport()
    for path, problem in lesson_files(root):
        shown = path.relative_to(root).as_posix()
        try:
            if problem is not None:
                raise LessonFileError(problem)
            payload = lesson_payload(read_lesson_file(path, root), tenant, agent, trusted)
        except LessonFileError as exc:
            report.errors.append((shown, str(exc)))
        else:
            outcome, imported = _import_one(payload, trusted, settings)
            (report.imported if imported else report.errors).append((shown, outcome))
        if on_file is not None:
            on_file()
    return report


#: the capture fields a LESSON.md fills, by the part of the file they come from
_FILE_PARTS = {
    "text": f"title or the section '## {SECTION_DO}'",
    "situation": f"the section '## {SECTION_WHEN}'",
    "mistake": f"the section '## {SECTION_COUNTER}'",
    "tags": "tags",
    "slug": "slug",
}


def lesson_payload(content: str, tenant: str, agent: str, trusted: bool) -> dict[str, Any]:
    """The ``manual_lesson`` event one LESSON.md becomes, validated exactly as capture and
    reconciliation will read it (``LessonFileError`` naming the part of the file otherwise)."""
    lesson = parse_lesson_md(content)
    # Same file into the same agent with the same trust → same key → one event.
    trust = "trusted" if trusted else "untrusted"
    digest_key = hashlib.sha256(f"{agent}\x00{trust}\x00{content}".encode()).hexdigest()[:32]
    tags = [tag.strip()[:TAG_MAX] for tag in lesson.tags if tag.strip()]
    payload: dict[str, Any] = {
        "tenant": tenant,
        "agent": agent,
        "text": f"{lesson.title}\n{lesson.correction}",
        "situation": lesson.situation,
        "mistake": lesson.mistake,
        "tags": tags[:TAGS_MAX],
        "slug": safe_slug(lesson.slug),
        "idempotency_key": f"import:{digest_key}",
    }
    try:
        parse_event("manual_lesson", payload)
        manual_candidate(payload)
    except InvalidEvent as exc:
        part = _FILE_PARTS.get(exc.field.split("[")[0].split(".")[0], exc.field)
        raise LessonFileError(f"{part}: {exc.message}") from None
    return payload


def _import_one(payload: dict[str, Any], trusted: bool, settings: Settings) -> tuple[str, bool]:
    """Store one validated file's event and reconcile it now. (what happened, imported?)

    Anything but a reconciled event withdraws it: a failed file leaves no event, no lesson
    and nothing ``processing``, and importing it again starts afresh."""
    for _ in range(2):
        event_id, created = store_pending("manual_lesson", payload, trusted=trusted)
        try:
            result = reflect_event(event_id, settings)
        except Exception as exc:
            _withdraw(event_id, settings)
            reason = redact(f"{type(exc).__name__}: {exc}".splitlines()[0])
            return f"not imported, reconciliation failed: {reason}", False
        if result.status == "reflected":
            return "imported", True
        if result.status == "already_done" and result.reason == "reflected":
            return "already imported", True
        if result.status == "in_progress":
            return "being reconciled by a worker", True
        _withdraw(event_id, settings)
        if created or result.status != "already_done":
            return f"not imported: {result.status}: {result.reason or 'no reason given'}", False
        # An earlier import of this file ended failed and was left behind: start afresh.
    return "not imported: an earlier failed import of this file could not be replaced", False


def _withdraw(event_id: int, settings: Settings) -> None:
    """Delete an import's event that taught nothing (not reflected, no lesson cites it)."""
    with session_scope(settings.database_url) as session:
        status = session.scalar(select(Event.status).where(Event.id == event_id).with_for_update())
        if status is None or status in ("reflected", "skipped"):
            return
        cited = session.scalar(
            select(LessonEvidence.id).where(LessonEvidence.event_id == event_id).limit(1)
        )
        if cited is None:
            session.execute(delete(Event).where(Event.id == event_id))

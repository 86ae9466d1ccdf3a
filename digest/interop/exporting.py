"""Export: one LESSON.md per active agent-wide lesson, and ``_index.md``, mirrored into a folder.

``_index.md`` lists every lesson's slug, title, outcome, confidence and counts. The folder
mirrors the bank: export records what it wrote in ``.digest-export.json``, and exporting again
into the same folder removes the files it wrote for lessons that are no longer active (a file
changed by hand since is kept and reported; files export did not write are never touched).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import LessonFileError
from digest.interop.lesson_md import INDEX_FILE, LESSON_FILE, SCHEMA, render_lesson_md, safe_slug
from digest.models import Event, Lesson, LessonEvidence, Tenant
from digest.tenants import find_agent

#: what an export wrote (path → sha256), so that the next export may remove what is stale
MANIFEST_FILE = ".digest-export.json"
MANIFEST_SCHEMA = "digest-export/1"


def _front_matter(session: Session, lesson: Lesson) -> dict[str, Any]:
    evidence = list(
        session.execute(
            select(LessonEvidence.event_id, Event.kind, LessonEvidence.note)
            .join(Event, Event.id == LessonEvidence.event_id)
            .where(LessonEvidence.lesson_id == lesson.id)
            .order_by(LessonEvidence.event_id)
        )
    )
    supersedes = list(
        session.scalars(
            select(Lesson.slug).where(Lesson.superseded_by_id == lesson.id).order_by(Lesson.slug)
        )
    )
    return {
        "schema": SCHEMA,
        "slug": lesson.slug,
        "title": lesson.title,
        "trigger": lesson.situation,
        "outcome": lesson.outcome,
        "evidence": [f"event {eid} ({kind}): {note}" for eid, kind, note in evidence],
        "confidence": lesson.confidence,
        "success_count": lesson.success_count,
        "failure_count": lesson.failure_count,
        "supersedes": supersedes,
        "expires_at": lesson.expires_at.isoformat() if lesson.expires_at else None,
        "tags": list(lesson.tags or []),
        "trust": lesson.trust,
    }


@dataclass
class ExportReport:
    #: every LESSON.md written, then ``_index.md``
    written: list[Path] = field(default_factory=list)
    #: files an earlier export wrote for lessons that are no longer active, now removed
    removed: list[Path] = field(default_factory=list)
    #: such files that were changed by hand since they were written: left in place
    kept: list[Path] = field(default_factory=list)


def export_lessons(
    tenant: str, agent: str, out_dir: Path, settings: Settings | None = None
) -> ExportReport:
    """Write one LESSON.md per active agent-wide lesson and ``_index.md`` into ``out_dir``,
    and remove the files an earlier export into it wrote for lessons no longer active.

    Everything is read from the database before anything is written. A folder that holds
    another agent's export is refused (``LessonFileError``): mirroring this agent there would
    remove the other's files."""
    settings = settings or get_settings()
    if out_dir.exists() and not out_dir.is_dir():
        raise LessonFileError(f"{out_dir} exists and is not a folder")
    index = [
        f"# Lessons of {agent}",
        "",
        "| slug | title | outcome | confidence | success | failure |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    files: dict[str, str] = {}
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
        # the keys as stored: the record names this agent however its key was typed
        owner = (
            session.scalars(select(Tenant.name).where(Tenant.id == agent_row.tenant_id)).one(),
            agent_row.name,
        )
        lessons = session.scalars(
            select(Lesson)
            .where(
                Lesson.agent_id == agent_row.id,
                Lesson.status == "active",
                Lesson.scope == "agent",
            )
            .order_by(Lesson.slug)
        ).all()
        for lesson in lessons:
            folder = lesson.slug if safe_slug(lesson.slug) else f"lesson-{lesson.id}"
            files[f"{folder}/{LESSON_FILE}"] = render_lesson_md(
                _front_matter(session, lesson), lesson
            )
            title = lesson.title.replace("|", "\\|")
            index.append(
                f"| {lesson.slug} | {title} | {lesson.outcome} | {lesson.confidence:.2f} "
                f"| {lesson.success_count} | {lesson.failure_count} |"
            )
    files[INDEX_FILE] = "\n".join(index) + "\n"
    out_dir.mkdir(parents=True, exist_ok=True)
    previous = _read_manifest(out_dir, *owner)
    for relative in files:  # every place is checked before the first file is written
        parent = (out_dir / relative).parent
        if parent.is_symlink() or (parent.exists() and not parent.is_dir()):
            raise LessonFileError(f"{parent} is a symbolic link or a file; export writes folders")
    report = ExportReport()
    for relative, text in files.items():
        report.written.append(_write_file(out_dir, relative, text))
    _remove_stale(out_dir, {k: v for k, v in previous.items() if k not in files}, report)
    _write_manifest(out_dir, *owner, {k: _sha256(v.encode()) for k, v in files.items()})
    return report


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write_file(out_dir: Path, relative: str, text: str) -> Path:
    """Write ``text`` at ``out_dir/relative`` through a temporary file and a rename: a reader
    never sees half a file, and a symbolic link already at that name is replaced, never
    followed out of the folder."""
    path = out_dir / relative
    folder = path.parent
    folder.mkdir(exist_ok=True)
    temporary = folder / f".{path.name}.{os.getpid()}.tmp"
    try:
        temporary.write_text(text, encoding="utf-8")
        os.replace(temporary, path)
    finally:
        temporary.unlink(missing_ok=True)
    return path


def _read_manifest(out_dir: Path, tenant: str, agent: str) -> dict[str, str]:
    """What the last export into ``out_dir`` wrote (relative path → sha256); empty if no
    export wrote there, or its record cannot be read (then nothing is removed on its word)."""
    path = out_dir / MANIFEST_FILE
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError):
        return {}
    if not isinstance(data, dict) or data.get("schema") != MANIFEST_SCHEMA:
        return {}
    owner = (data.get("tenant"), data.get("agent"))
    if owner != (tenant, agent):
        raise LessonFileError(
            f"{out_dir} holds the export of agent {owner[1]!r} of tenant {owner[0]!r}; "
            "export into another folder"
        )
    files = data.get("files")
    if not isinstance(files, dict):
        return {}
    return {k: v for k, v in files.items() if isinstance(k, str) and isinstance(v, str)}


def _write_manifest(out_dir: Path, tenant: str, agent: str, files: dict[str, str]) -> None:
    record = {"schema": MANIFEST_SCHEMA, "tenant": tenant, "agent": agent, "files": files}
    _write_file(out_dir, MANIFEST_FILE, json.dumps(record, indent=2, sort_keys=True) + "\n")


_EXPORTED_NAME = re.compile(rf"[a-z0-9][a-z0-9-]{{0,79}}/{re.escape(LESSON_FILE)}")


def _remove_stale(out_dir: Path, stale: dict[str, str], report: ExportReport) -> None:
    """Remove each file an earlier export wrote that this one did not, if it still holds what
    was written (a file changed by hand since is kept), and its folder once empty."""
    for relative, written in sorted(stale.items()):
        if not _EXPORTED_NAME.fullmatch(relative):
            continue  # not a name export writes: never touched
        path = out_dir / relative
        try:
            info = os.lstat(path)
            if not stat.S_ISREG(info.st_mode):
                continue
            if _sha256(path.read_bytes()) != written:
                report.kept.append(path)
                continue
            path.unlink()
        except FileNotFoundError:
            continue
        report.removed.append(path)
        with contextlib.suppress(OSError):  # a folder that holds other files stays
            path.parent.rmdir()

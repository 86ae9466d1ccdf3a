"""AIP-11 (``agentlearning/v1``) LESSON.md export and import.

Export writes ``<slug>/LESSON.md`` per active agent-wide lesson: YAML front matter (schema,
slug, title, trigger, outcome, evidence, confidence, success_count, failure_count,
supersedes, expires_at) and the sections "When this applies", "What to do (or avoid)" and
"Counter-example"; plus ``_index.md`` listing every lesson's slug, title, outcome,
confidence and counts.

Import reads every ``LESSON.md`` below a folder. Each file is validated on its own: a bad one
(invalid YAML, wrong schema, missing sections, oversized, or a path that leads outside the
folder) is reported and the rest are imported. Imports are untrusted unless the owner passes
``--trusted``: screened like run text and shown as observations. Counts and confidence in a
file are ignored:
they are only ever computed from observed outcomes. Every imported lesson becomes a
``manual_lesson`` event and goes through reconciliation, so importing a lesson the agent
already has adds support instead of a copy, and importing the same file twice adds nothing.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml
from sqlalchemy import select
from sqlalchemy.orm import Session

from digest.capture.api import store_pending
from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import InvalidEvent, LessonFileError
from digest.models import Event, Lesson, LessonEvidence
from digest.pipeline import reflect_event
from digest.tenants import find_agent

SCHEMA = "agentlearning/v1"
MAX_FILE_BYTES = 64 * 1024
SECTION_WHEN = "When this applies"
SECTION_DO = "What to do (or avoid)"
SECTION_COUNTER = "Counter-example"


# --- export --------------------------------------------------------------------------------------


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


def render_lesson_md(front: dict[str, Any], lesson: Lesson) -> str:
    head = yaml.safe_dump(front, sort_keys=False, allow_unicode=True, width=100)
    parts = [
        f"---\n{head}---\n",
        f"# {lesson.title}\n",
        f"## {SECTION_WHEN}\n\n{lesson.situation.strip()}\n",
        f"## {SECTION_DO}\n\n{lesson.correction.strip()}\n",
    ]
    if lesson.mistake:
        parts.append(f"## {SECTION_COUNTER}\n\n{lesson.mistake.strip()}\n")
    return "\n".join(parts)


def export_lessons(
    tenant: str, agent: str, out_dir: Path, settings: Settings | None = None
) -> list[Path]:
    """Write one LESSON.md per active agent-wide lesson and ``_index.md``. Returns the paths."""
    settings = settings or get_settings()
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    index = [
        f"# Lessons of {agent}",
        "",
        "| slug | title | outcome | confidence | success | failure |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    with session_scope(settings.database_url) as session:
        agent_row = find_agent(session, tenant, agent)
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
            folder = out_dir / lesson.slug
            folder.mkdir(exist_ok=True)
            path = folder / "LESSON.md"
            path.write_text(render_lesson_md(_front_matter(session, lesson), lesson), "utf-8")
            written.append(path)
            title = lesson.title.replace("|", "\\|")
            index.append(
                f"| {lesson.slug} | {title} | {lesson.outcome} | {lesson.confidence:.2f} "
                f"| {lesson.success_count} | {lesson.failure_count} |"
            )
    index_path = out_dir / "_index.md"
    index_path.write_text("\n".join(index) + "\n", encoding="utf-8")
    return [*written, index_path]


# --- import --------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ParsedLesson:
    slug: str | None
    title: str
    situation: str
    correction: str
    mistake: str | None
    tags: list[str]


_FRONT = re.compile(r"\A---\r?\n(.*?)\r?\n---\r?\n(.*)\Z", re.DOTALL)
_SECTION = re.compile(r"^##\s+(.+?)\s*$", re.MULTILINE)


def parse_lesson_md(text_value: str) -> ParsedLesson:
    """Validate and parse one LESSON.md. Author-supplied counts and confidence are ignored."""
    found = _FRONT.match(text_value)
    if not found:
        raise LessonFileError("no YAML front matter (the file must start with a '---' block)")
    try:
        front = yaml.safe_load(found.group(1))
    except yaml.YAMLError as exc:
        raise LessonFileError(f"invalid YAML front matter: {exc}".splitlines()[0]) from exc
    if not isinstance(front, dict):
        raise LessonFileError("the front matter is not a mapping")
    if front.get("schema") != SCHEMA:
        raise LessonFileError(f"schema must be {SCHEMA!r}, got {front.get('schema')!r}")
    title = front.get("title")
    if not isinstance(title, str) or not title.strip():
        raise LessonFileError("title is missing or not text")
    sections = _sections(found.group(2))
    correction = sections.get(SECTION_DO.lower())
    if not correction:
        raise LessonFileError(f"the section '## {SECTION_DO}' is missing or empty")
    trigger = front.get("trigger")
    situation = sections.get(SECTION_WHEN.lower()) or (trigger if isinstance(trigger, str) else "")
    tags = front.get("tags") or []
    slug = front.get("slug")
    return ParsedLesson(
        slug=slug if isinstance(slug, str) else None,
        title=title.strip(),
        situation=situation.strip() or title.strip(),
        correction=correction,
        mistake=sections.get(SECTION_COUNTER.lower()) or None,
        tags=[str(t) for t in tags if isinstance(t, str | int)] if isinstance(tags, list) else [],
    )


def _sections(body: str) -> dict[str, str]:
    headings = list(_SECTION.finditer(body))
    result: dict[str, str] = {}
    for index, heading in enumerate(headings):
        end = headings[index + 1].start() if index + 1 < len(headings) else len(body)
        result[heading.group(1).strip().lower()] = body[heading.end() : end].strip()
    return result


@dataclass
class ImportReport:
    #: (file, what happened: "added", "merged", "already imported", …)
    imported: list[tuple[str, str]] = field(default_factory=list)
    errors: list[tuple[str, str]] = field(default_factory=list)


def import_lessons(
    tenant: str,
    agent: str,
    directory: Path,
    settings: Settings | None = None,
    *,
    trusted: bool = False,
) -> ImportReport:
    """Import every LESSON.md below ``directory`` into one agent, through reconciliation.

    A file is untrusted unless ``trusted`` (its owner vouches for it): its lessons are screened
    like run text, may not change a trusted lesson, enter a version only with independent
    support, and are shown as observations, never as the owner's rules."""
    settings = settings or get_settings()
    root = directory.resolve()
    if not root.is_dir():
        raise LessonFileError(f"not a folder: {directory}")
    report = ImportReport()
    for path in sorted(directory.rglob("LESSON.md")):
        shown = str(path.relative_to(directory))
        try:
            content = _read_inside(path, root)
            lesson = parse_lesson_md(content)
            # Same file into the same agent → same key → one event (idempotency keys are
            # unique per tenant, so the agent is part of it).
            trust = "trusted" if trusted else "untrusted"
            digest_key = hashlib.sha256(f"{agent}\x00{trust}\x00{content}".encode()).hexdigest()[
                :32
            ]
            event_id, created = store_pending(
                "manual_lesson",
                {
                    "tenant": tenant,
                    "agent": agent,
                    "text": f"{lesson.title}\n{lesson.correction}",
                    "situation": lesson.situation,
                    "mistake": lesson.mistake,
                    "tags": lesson.tags[:12],
                    "slug": _safe_slug(lesson.slug),
                    "idempotency_key": f"import:{digest_key}",
                },
                trusted=trusted,
            )
        except (LessonFileError, InvalidEvent, OSError, UnicodeDecodeError) as exc:
            report.errors.append((shown, str(exc)))
            continue
        result = reflect_event(event_id, settings)
        if not created or result.status == "already_done":
            report.imported.append((shown, "already imported"))
        elif result.status == "reflected":
            report.imported.append((shown, "imported"))
        else:
            report.errors.append((shown, f"{result.status}: {result.reason}"))
    return report


def _read_inside(path: Path, root: Path) -> str:
    resolved = path.resolve()
    if not resolved.is_relative_to(root):
        raise LessonFileError(f"the path leads outside {root} (to {resolved})")
    size = resolved.stat().st_size
    if size > MAX_FILE_BYTES:
        raise LessonFileError(f"{size} bytes; the cap is {MAX_FILE_BYTES}")
    return resolved.read_text(encoding="utf-8")


def _safe_slug(slug: str | None) -> str | None:
    if slug and re.fullmatch(r"[a-z0-9][a-z0-9-]{0,79}", slug):
        return slug
    return None

"""AIP-11 (``agentlearning/v1``) LESSON.md export and import.

Export writes ``<slug>/LESSON.md`` per active agent-wide lesson: YAML front matter (schema,
slug, title, trigger, outcome, evidence, confidence, success_count, failure_count,
supersedes, expires_at) and the sections "When this applies", "What to do (or avoid)" and
"Counter-example"; plus ``_index.md`` listing every lesson's slug, title, outcome,
confidence and counts. The folder mirrors the bank: export records what it wrote in
``.digest-export.json``, and exporting again into the same folder removes the files it wrote
for lessons that are no longer active (a file changed by hand since is kept and reported;
files export did not write are never touched).

Import reads every ``LESSON.md`` below a folder, one file at a time, and only regular files:
no FIFO, device or directory, and no symbolic link that leads outside the folder (one that
stays inside is read as its target). Each file is read (at most ``MAX_FILE_BYTES`` of UTF-8)
and validated completely (front matter, sections, every cap the capture path checks) before
anything is stored; then it is stored and reconciled on its own. A bad file is reported with
its reason and the others go on; a file whose reconciliation fails leaves nothing behind (its
event is withdrawn), so importing it again later starts afresh. Imports are untrusted unless
the owner passes ``--trusted``: screened like run text and shown as observations. Counts and
confidence in a file are ignored: they are only ever computed from observed outcomes. Every
imported lesson becomes a ``manual_lesson`` event and goes through reconciliation, so
importing a lesson the agent already has adds support instead of a copy, and importing the
same file twice adds nothing.
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

import yaml
from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from digest.capture.api import store_pending
from digest.capture.manual import manual_candidate
from digest.capture.schemas import parse_event
from digest.config import Settings, get_settings
from digest.db import session_scope
from digest.errors import InvalidEvent, LessonFileError
from digest.lessons.store import TAG_MAX, TAGS_MAX
from digest.models import BODY_MAX, TITLE_MAX, Event, Lesson, LessonEvidence, Tenant
from digest.pipeline import reflect_event
from digest.redact import redact
from digest.tenants import find_agent

SCHEMA = "agentlearning/v1"
MAX_FILE_BYTES = 64 * 1024
LESSON_FILE = "LESSON.md"
INDEX_FILE = "_index.md"
#: what an export wrote (path → sha256), so that the next export may remove what is stale
MANIFEST_FILE = ".digest-export.json"
MANIFEST_SCHEMA = "digest-export/1"
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
            folder = lesson.slug if _safe_slug(lesson.slug) else f"lesson-{lesson.id}"
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
    """Validate and parse one LESSON.md, caps included: what passes here can be stored.
    Author-supplied counts, confidence and trust are ignored."""
    found = _FRONT.match(text_value.removeprefix("\ufeff"))
    if not found:
        raise LessonFileError("no YAML front matter (the file must start with a '---' block)")
    try:
        front = yaml.safe_load(found.group(1))
    except yaml.YAMLError as exc:
        raise LessonFileError(f"invalid YAML front matter: {exc}".splitlines()[0]) from exc
    except RecursionError:
        raise LessonFileError("the front matter is nested too deeply to read") from None
    if not isinstance(front, dict):
        raise LessonFileError("the front matter is not a mapping")
    if front.get("schema") != SCHEMA:
        raise LessonFileError(f"schema must be {SCHEMA!r}, got {front.get('schema')!r}")
    title = front.get("title")
    if not isinstance(title, str) or not title.strip():
        raise LessonFileError("title is missing or not text")
    title = " ".join(title.split())  # one line: it is the lesson's signature
    sections = _sections(found.group(2))
    correction = sections.get(SECTION_DO.lower())
    if not correction:
        raise LessonFileError(f"the section '## {SECTION_DO}' is missing or empty")
    trigger = front.get("trigger")
    situation = sections.get(SECTION_WHEN.lower()) or (trigger if isinstance(trigger, str) else "")
    mistake = sections.get(SECTION_COUNTER.lower()) or None
    _check_length("title", title, TITLE_MAX)
    _check_length(f"the section '## {SECTION_DO}'", correction, BODY_MAX)
    _check_length(f"the section '## {SECTION_WHEN}' (or trigger)", situation.strip(), BODY_MAX)
    _check_length(f"the section '## {SECTION_COUNTER}'", mistake or "", BODY_MAX)
    tags = front.get("tags") or []
    slug = front.get("slug")
    return ParsedLesson(
        slug=slug if isinstance(slug, str) else None,
        title=title,
        situation=situation.strip() or title,
        correction=correction,
        mistake=mistake,
        tags=[str(t) for t in tags if isinstance(t, str | int)] if isinstance(tags, list) else [],
    )


def _check_length(what: str, value: str, cap: int) -> None:
    if len(value) > cap:
        raise LessonFileError(f"{what} is {len(value)} characters; the cap is {cap}")


def _sections(body: str) -> dict[str, str]:
    headings = list(_SECTION.finditer(body))
    result: dict[str, str] = {}
    for index, heading in enumerate(headings):
        end = headings[index + 1].start() if index + 1 < len(headings) else len(body)
        result[heading.group(1).strip().lower()] = body[heading.end() : end].strip()
    return result


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
) -> ImportReport:
    """Import every LESSON.md below ``directory`` into one agent, through reconciliation, one
    file at a time: each is read and validated in full first, then stored and reconciled on
    its own, so a bad file is reported and the others go on.

    A file is untrusted unless ``trusted`` (its owner vouches for it): its lessons are screened
    like run text, may not change a trusted lesson, enter a version only with independent
    support, and are shown as observations, never as the owner's rules. Raises
    ``CaptureUnavailable`` if the database stops taking events (the files imported before
    stay imported)."""
    settings = settings or get_settings()
    root = directory.resolve()
    if not root.is_dir():
        raise LessonFileError(f"not a folder: {directory}")
    report = ImportReport()
    for path, problem in _lesson_files(root):
        shown = path.relative_to(root).as_posix()
        try:
            if problem is not None:
                raise LessonFileError(problem)
            payload = lesson_payload(read_lesson_file(path, root), tenant, agent, trusted)
        except LessonFileError as exc:
            report.errors.append((shown, str(exc)))
            continue
        outcome, imported = _import_one(payload, trusted, settings)
        (report.imported if imported else report.errors).append((shown, outcome))
    return report


def _lesson_files(root: Path) -> list[tuple[Path, str | None]]:
    """Every entry named LESSON.md below ``root`` (of any type: the reader refuses what is not
    a regular file, so it is reported rather than skipped), and the problems met on the way:
    a folder that cannot be listed, a symbolic link to a folder outside ``root``. Symbolic
    links to folders are never followed (one inside ``root`` is read where it points)."""
    found: list[tuple[Path, str | None]] = []

    def unreadable(exc: OSError) -> None:
        folder = Path(exc.filename or root)
        found.append((folder, f"the folder cannot be read: {exc.strerror or exc}"))

    for folder, folders, files in os.walk(root, onerror=unreadable):
        for name in (*folders, *files):
            path = Path(folder) / name
            if name == LESSON_FILE:
                found.append((path, None))
            elif name in folders and path.is_symlink() and not _leads_inside(path, root):
                found.append((path, "a symbolic link to a folder outside the folder: not read"))
    return sorted(found, key=lambda item: item[0].relative_to(root).parts)


def _leads_inside(link: Path, root: Path) -> bool:
    try:
        return link.resolve().is_relative_to(root)
    except (OSError, RuntimeError):
        return False


_FILE_TYPES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
#: open flags: never block on a FIFO swapped in after the check, never follow a last link
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def read_lesson_file(path: Path, root: Path) -> str:
    """The text of one LESSON.md below ``root``, or ``LessonFileError`` saying why not.

    Only a regular file is opened: its type is checked with ``lstat`` first, so a FIFO never
    blocks the reader and a device is never read. A symbolic link is read as its target if
    that target is a regular file inside ``root``; a link leading outside is refused. At most
    ``MAX_FILE_BYTES`` are read, and they must be UTF-8 (a byte-order mark is allowed)."""
    try:
        info = os.lstat(path)
        target = path
        if stat.S_ISLNK(info.st_mode):
            target = path.resolve(strict=True)
            if not target.is_relative_to(root):
                raise LessonFileError(
                    f"a symbolic link that leads outside the folder {root} (to {target})"
                )
            info = os.stat(target)
        kind = next((name for test, name in _FILE_TYPES if test(info.st_mode)), None)
        if kind is not None or not stat.S_ISREG(info.st_mode):
            raise LessonFileError(f"not a regular file ({kind or 'an unknown kind of file'})")
        if info.st_size > MAX_FILE_BYTES:
            raise LessonFileError(f"{info.st_size} bytes; the cap is {MAX_FILE_BYTES}")
        with os.fdopen(os.open(target, _OPEN_FLAGS), "rb") as handle:
            opened = os.fstat(handle.fileno())
            if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
                raise LessonFileError("the file was replaced while it was being read")
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise LessonFileError("a broken symbolic link, or the file was removed") from None
    except RuntimeError:  # a loop of symbolic links (pathlib's resolve)
        raise LessonFileError("a loop of symbolic links") from None
    except OSError as exc:
        raise LessonFileError(f"cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise LessonFileError(f"more than {MAX_FILE_BYTES} bytes; the cap is {MAX_FILE_BYTES}")
    try:
        text_value = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LessonFileError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not text_value.strip():
        raise LessonFileError("the file is empty")
    return text_value


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
        "slug": _safe_slug(lesson.slug),
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


def _safe_slug(slug: str | None) -> str | None:
    if slug and re.fullmatch(r"[a-z0-9][a-z0-9-]{0,79}", slug):
        return slug
    return None

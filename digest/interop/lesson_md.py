"""The AIP-11 (``agentlearning/v1``) LESSON.md format: its names, how a lesson is written as
one, and how one is read back and checked.

A LESSON.md is YAML front matter (schema, slug, title, trigger, outcome, evidence, confidence,
success_count, failure_count, supersedes, expires_at, tags, trust) and the sections "When this
applies", "What to do (or avoid)" and "Counter-example". ``parse_lesson_md`` checks every cap
the capture path checks, so what it returns can be stored; the counts, confidence and trust a
file states are never read: they are only ever computed from observed outcomes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

import yaml

from digest.errors import LessonFileError
from digest.models import BODY_MAX, TITLE_MAX, Lesson

SCHEMA = "agentlearning/v1"
LESSON_FILE = "LESSON.md"
INDEX_FILE = "_index.md"
SECTION_WHEN = "When this applies"
SECTION_DO = "What to do (or avoid)"
SECTION_COUNTER = "Counter-example"


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


def safe_slug(slug: str | None) -> str | None:
    """``slug`` if it is one digest writes (and a safe folder name), else None."""
    if slug and re.fullmatch(r"[a-z0-9][a-z0-9-]{0,79}", slug):
        return slug
    return None

"""The output contracts of the three model steps (DESIGN §4), and their parsers.

The prompts in ``prompts/`` state these shapes to the model; the parsers here enforce them, for
every model alike (``offline/rules`` answers in the same shapes). Prose around the blocks and
code fences are tolerated; anything else raises ``LLMOutputError``, which the seam retries.
"""

from __future__ import annotations

import html
import json
import re
from dataclasses import dataclass
from typing import Any

import structlog

from digest.errors import LLMOutputError

log = structlog.get_logger("digest.model")

MAX_LESSONS = 3


# --- reflect ---


@dataclass(frozen=True)
class Skip:
    """``<skip>reason</skip>``: nothing to learn from the event."""

    reason: str


@dataclass(frozen=True)
class LessonBlock:
    """One ``<lesson>`` block of a reflect answer, as the model wrote it (not yet a lesson)."""

    situation: str
    correction: str
    mistake: str | None = None
    tags: tuple[str, ...] = ()


_FENCE = re.compile(r"```[a-zA-Z]*\n?|```")
_LESSON = re.compile(r"<lesson>(.*?)</lesson>", re.DOTALL | re.IGNORECASE)
_SKIP = re.compile(r"<skip>(.*?)</skip>", re.DOTALL | re.IGNORECASE)


def _field(block: str, name: str) -> str:
    found = re.search(rf"<{name}>(.*?)</{name}>", block, re.DOTALL | re.IGNORECASE)
    return html.unescape(found.group(1)).strip() if found else ""


def parse_reflect_output(text: str) -> Skip | list[LessonBlock]:
    """Parse a reflect answer. Prose around the blocks and code fences are tolerated.

    Raises ``LLMOutputError`` when there is neither a ``<skip>`` nor a usable ``<lesson>``.
    Lessons missing a required field are dropped (and logged) when others are usable.
    """
    text = _FENCE.sub("", text or "")
    blocks = _LESSON.findall(text)
    candidates: list[LessonBlock] = []
    for index, block in enumerate(blocks):
        situation, correction = _field(block, "situation"), _field(block, "correction")
        if not situation or not correction:
            log.warning("lesson_block_dropped", index=index, reason="situation/correction missing")
            continue
        tags = tuple(t.strip() for t in _field(block, "tags").split(",") if t.strip())
        candidates.append(
            LessonBlock(
                situation=situation,
                correction=correction,
                mistake=_field(block, "mistake") or None,
                tags=tags,
            )
        )
    if candidates:
        if len(candidates) > MAX_LESSONS:
            log.warning("lessons_truncated", proposed=len(candidates), kept=MAX_LESSONS)
        return candidates[:MAX_LESSONS]
    skip = _SKIP.search(text)
    if skip:
        return Skip(" ".join(html.unescape(skip.group(1)).split())[:500] or "no reason given")
    if blocks:
        raise LLMOutputError("every <lesson> block lacks <situation> or <correction>")
    preview = " ".join(text.split())[:120]
    raise LLMOutputError(f"no <skip> or <lesson> block in the answer: {preview!r}")


# --- reconcile ---


def parse_reconcile_output(text: str) -> list[dict[str, Any]]:
    """The ``operations`` list of a reconcile answer; prose and code fences are tolerated.

    Raises ``LLMOutputError`` when no JSON object with an ``operations`` list can be read.
    Items are returned raw; ``resolve`` validates each one.
    """
    cleaned = _FENCE.sub("", text or "")
    start, end = cleaned.find("{"), cleaned.rfind("}")
    if start < 0 or end <= start:
        raise LLMOutputError(f"no JSON object in the answer: {' '.join(cleaned.split())[:120]!r}")
    try:
        data = json.loads(cleaned[start : end + 1])
    except json.JSONDecodeError as exc:
        raise LLMOutputError(f"the answer is not valid JSON: {exc.msg}") from exc
    operations = data.get("operations") if isinstance(data, dict) else None
    if not isinstance(operations, list):
        raise LLMOutputError('the answer has no "operations" list')
    return operations


# --- summarize ---


def parse_summary(text_value: str) -> str:
    """Plain text, at most 5 short lines; fences and blank lines dropped."""
    lines = [
        line.strip() for line in (text_value or "").replace("```", "").splitlines() if line.strip()
    ]
    if not lines:
        raise LLMOutputError("the change note is empty")
    return "\n".join(line[:300] for line in lines[:5])


def change_note(added: list[str], changed: list[str], retired: list[str]) -> str:
    """The deterministic change note: an "Added / Changed / Retired" line each, with titles."""

    def line(label: str, titles: list[str]) -> str | None:
        if not titles:
            return None
        shown = "; ".join(titles[:5])
        more = f"; and {len(titles) - 5} more" if len(titles) > 5 else ""
        return f"{label} ({len(titles)}): {shown}{more}"

    lines = [line("Added", added), line("Changed", changed), line("Retired", retired)]
    return "\n".join(x for x in lines if x) or "No lesson changed; the document was re-rendered."

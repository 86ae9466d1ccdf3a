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

from digest.errors import LLMOutputError
from digest.logs import get_logger

log = get_logger("digest.model")

MAX_LESSONS = 3

#: the tags of every output contract: none may appear inside a field a model wrote
CONTRACT_TAGS = ("lesson", "situation", "mistake", "correction", "tags", "skip")
_CONTRACT_TAG = re.compile(rf"</?\s*({'|'.join(CONTRACT_TAGS)})\s*>", re.IGNORECASE)


def embed_json(value: Any, *, indent: int | None = None, sort_keys: bool = False) -> str:
    """``value`` as JSON to place inside a prompt block. ``<`` and ``>`` are written as
    ``\\u003c`` and ``\\u003e`` (the same JSON, decoded alike), so text inside the block can
    neither close it nor open a tag of any output contract."""
    dumped = json.dumps(value, ensure_ascii=False, indent=indent, sort_keys=sort_keys)
    return dumped.replace("<", "\\u003c").replace(">", "\\u003e")


# --- reflect ---


@dataclass(frozen=True)
class Skip:
    """``<skip>reason</skip>``: nothing to learn from the event."""

    reason: str


@dataclass(frozen=True)
class Refused:
    """Structure in a reflect answer the parser would not take, and why (kept for the record:
    ``digest_runs.error`` and the log)."""

    what: str
    why: str


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
#: a skip written without its closing tag: ``<skip>``, ``<skip/>``, ``<skip />``, with what
#: follows on its line as the reason (read outside the lesson blocks)
_BARE_SKIP = re.compile(r"<skip\s*/?>([^<\n]*)", re.IGNORECASE)


def _field(block: str, name: str) -> str:
    found = re.search(rf"<{name}>(.*?)</{name}>", block, re.DOTALL | re.IGNORECASE)
    return html.unescape(found.group(1)).strip() if found else ""


def _raw_fields(block: str) -> list[str]:
    return [
        found.group(1)
        for name in CONTRACT_TAGS[1:5]
        for found in re.finditer(rf"<{name}>(.*?)</{name}>", block, re.DOTALL | re.IGNORECASE)
    ]


def _forged(block: str) -> str | None:
    """Why a ``<lesson>`` block is not structure a model wrote, or None.

    A block has each field once at most, no contract tag inside a field, and no text between
    fields that opens or closes one (the signs of run text that closed ``</correction>`` and
    opened its own blocks). Fields are escaped by writers that quote run text, so a tag left
    inside one was put there by the text it quotes."""
    for name in CONTRACT_TAGS[1:5]:
        if len(re.findall(rf"<{name}>", block, re.IGNORECASE)) > 1:
            return f"<{name}> appears more than once"
    for raw in _raw_fields(block):
        if _CONTRACT_TAG.search(raw):
            return "a field contains a contract tag"
    outside = re.sub(
        rf"<({'|'.join(CONTRACT_TAGS[1:5])})>.*?</\1>", " ", block, flags=re.DOTALL | re.IGNORECASE
    )
    if _CONTRACT_TAG.search(outside):
        return "an unmatched contract tag between fields"
    return None


def parse_reflect_output(text: str) -> Skip | list[LessonBlock]:
    """Parse a reflect answer. Prose around the blocks and code fences are tolerated.

    Raises ``LLMOutputError`` when there is neither a ``<skip>`` nor a usable ``<lesson>``.
    Lessons missing a required field are dropped (and logged) when others are usable.
    """
    return parse_reflect_checked(text)[0]


def parse_reflect_checked(text: str) -> tuple[Skip | list[LessonBlock], list[Refused]]:
    """``parse_reflect_output`` and what it refused.

    Only structure the model wrote is taken: the number of ``<lesson>`` openings must match the
    closings (else the whole answer is refused: a quoted ``</lesson>`` or ``<lesson>`` has
    shifted the blocks); a block with a forged shape (``_forged``) is refused; more than
    ``MAX_LESSONS`` blocks means none is taken. A ``<skip>`` next to lessons is an answer that
    says two things: the lessons are refused and the skip stands.
    """
    text = _FENCE.sub("", text or "")
    refused: list[Refused] = []
    opens = len(re.findall(r"<lesson>", text, re.IGNORECASE))
    closes = len(re.findall(r"</lesson>", text, re.IGNORECASE))
    blocks = _LESSON.findall(text)
    skip = _SKIP.search(text) or _BARE_SKIP.search(_LESSON.sub(" ", text))
    if blocks and (opens != closes or opens != len(blocks)):
        refused.append(Refused("every <lesson> block", f"{opens} openings, {closes} closings"))
        blocks = []
    elif len(blocks) > MAX_LESSONS:
        refused.append(Refused("every <lesson> block", f"{len(blocks)} blocks; at most 3"))
        blocks = []
    elif blocks and skip:
        refused.append(Refused("every <lesson> block", "the answer also says <skip>"))
        blocks = []
    candidates: list[LessonBlock] = []
    for index, block in enumerate(blocks):
        why = _forged(block)
        if why is not None:
            refused.append(Refused(f"<lesson> {index}", why))
            continue
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
    for item in refused:
        log.warning("reflect_structure_refused", what=item.what, why=item.why)
    if candidates:
        return candidates, refused
    if skip:
        reason = " ".join(html.unescape(skip.group(1)).split())[:500] or "no reason given"
        return Skip(reason), refused
    if refused:
        reasons = "; ".join(f"{r.what}: {r.why}" for r in refused)
        raise LLMOutputError(f"the answer's structure was refused ({reasons})")
    if blocks:
        raise LLMOutputError("every <lesson> block lacks <situation> or <correction>")
    preview = " ".join(text.split())[:120]
    raise LLMOutputError(f"no <skip> or <lesson> block in the answer: {preview!r}")


# --- reconcile ---


def whole_number(value: Any) -> int | None:
    """An id or candidate number as the answer wrote it: an integer, or the same digits quoted
    ("0", as Mem0's prompts write ids; many models follow them); None for anything else (a
    bool, a float, a negative number, "0.0", "lesson 3", a null)."""
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value if value >= 0 else None
    if isinstance(value, str) and value.strip().isascii() and value.strip().isdigit():
        return int(value.strip())
    return None


#: Mem0's names for the reconcile operations: its "NONE" is a NOOP
OP_ALIASES = {"NONE": "NOOP"}


def op_named(item: dict[str, Any]) -> str:
    """An operation's name as the answer wrote it, upper-cased: ``op``, or Mem0's ``event``
    when ``op`` is missing; Mem0's "NONE" read as "NOOP"."""
    raw = item.get("op")
    if raw is None:
        raw = item.get("event", "")
    name = str(raw).strip().upper()
    return OP_ALIASES.get(name, name)


def parse_reconcile_output(text: str) -> list[dict[str, Any]]:
    """The ``operations`` list of a reconcile answer; prose and code fences are tolerated, and
    so is the list alone (not wrapped in ``{"operations": …}``).

    Raises ``LLMOutputError`` when no JSON object with an ``operations`` list can be read.
    Items are returned raw; ``resolve`` validates each one.
    """
    cleaned = _FENCE.sub("", text or "")
    start, end = cleaned.find("{"), cleaned.rfind("}")
    opening = cleaned.find("[")
    if 0 <= opening < start:
        # the operations list alone, not wrapped in an object: ``[{"op": "ADD", …}]``
        try:
            listed = json.loads(cleaned[opening : cleaned.rfind("]") + 1])
        except json.JSONDecodeError:
            listed = None
        if isinstance(listed, list) and all(isinstance(item, dict) for item in listed):
            return listed
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


#: a change note's line at most this long (a model's longer line is cut at a word)
SUMMARY_LINE_MAX = 300


def cut_at_phrase(line: str, limit: int = SUMMARY_LINE_MAX) -> str:
    """``line`` cut to ``limit`` characters at the last separator ("; " or ", ") or word that
    fits, with an ellipsis: never mid-word, never mid-phrase when a separator fits."""
    if len(line) <= limit:
        return line
    head = line[: limit - 1]
    for mark in ("; ", ", "):
        at = head.rfind(mark)
        if at >= limit // 2:
            return head[:at].rstrip() + "…"
    return (head.rsplit(" ", 1)[0] if " " in head else head).rstrip(" ,;:") + "…"


def parse_summary(text_value: str) -> str:
    """Plain text, at most 5 short lines; fences and blank lines dropped; a line longer than
    ``SUMMARY_LINE_MAX`` cut at a phrase or word boundary."""
    lines = [
        line.strip() for line in (text_value or "").replace("```", "").splitlines() if line.strip()
    ]
    if not lines:
        raise LLMOutputError("the change note is empty")
    return "\n".join(cut_at_phrase(line) for line in lines[:5])


def change_note(added: list[str], changed: list[str], retired: list[str]) -> str:
    """The deterministic change note: an "Added / Changed / Retired" line each, with as many
    whole titles (at most 5) as fit in ``SUMMARY_LINE_MAX`` characters, then how many more."""

    def line(label: str, titles: list[str]) -> str | None:
        if not titles:
            return None
        head = f"{label} ({len(titles)}): "
        for shown in range(min(len(titles), 5), 0, -1):
            rest = len(titles) - shown
            more = f"; and {rest} more" if rest else ""
            text = head + "; ".join(titles[:shown]) + more
            if len(text) <= SUMMARY_LINE_MAX:
                return text
        # not even one title fits: the first one cut at a word, and the count of the others
        more = f"; and {len(titles) - 1} more" if len(titles) > 1 else ""
        room = SUMMARY_LINE_MAX - len(head) - len(more)
        return head + cut_at_phrase(titles[0], room) + more

    lines = [line("Added", added), line("Changed", changed), line("Retired", retired)]
    return "\n".join(x for x in lines if x) or "No lesson changed; the document was re-rendered."

"""The quotations a forget request erases (``digest.forget``): which strings of the forgotten
events and retired lessons derived text may quote, and the scrubber that replaces them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from sqlalchemy.orm import Session

from digest.agent_text import UNSHOWN_TITLE, agent_title
from digest.lessons.called import called_names
from digest.models import Event, Lesson
from digest.tenants import lookup_key
from digest.versions.document import render_body

#: what replaces forgotten text
MARK = "[forgotten]"
#: the shortest payload string treated as a quotation to erase elsewhere (shorter ones are
#: words like "failure" or a tool's name, which other text shares by right)
QUOTE_MIN = 12
#: the shortest contact or thread id erased where derived text quotes it (a shorter one, "42",
#: would match unrelated text)
ID_MIN = 6
#: the history reason of a lesson retired or changed by a forget request
FORGOTTEN_REASON = "forgotten"
#: the snapshot fields that hold a lesson's words
_WORDS = ("title", "situation", "mistake", "correction")


def spellings(contact: str) -> set[str]:
    """The contact id as given and in NFC (the form keys are looked up in)."""
    return {contact, lookup_key(contact)}


def quotations(events: Iterable[Event], contact: str | None) -> set[str]:
    """The strings of the forgotten events that derived text may quote. The contact and
    thread ids only when a whole contact is forgotten: one event's contact has others."""
    found: set[str] = {contact} if contact and len(contact) >= ID_MIN else set()
    for event in events:
        for named in (event.thread_id, event.contact_id) if contact else ():
            if named and len(named) >= ID_MIN:
                found.add(named)
        found |= {s for s in strings(event.payload) if len(s) >= QUOTE_MIN}
    return found


def strings(value: Any) -> Iterable[str]:
    if isinstance(value, str):
        yield value
        yield " ".join(value.split())  # as one line, the way documents render text
    elif isinstance(value, dict):
        for item in value.values():
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def retired_words(session: Session, lessons: list[Lesson]) -> set[str]:
    """A retired lesson's words as stored, as a change note names it and as a version body
    renders it (its lines), so old versions can lose them."""
    found: set[str] = set()
    if not lessons:
        return found
    called = called_names(session, [x.id for x in lessons if x.trust != "trusted"])
    for lesson in lessons:
        if lesson.title == MARK:
            continue
        for text in (lesson.title, lesson.situation, lesson.mistake, lesson.correction):
            if text and len(text) >= QUOTE_MIN:
                found |= {text, " ".join(text.split())}
        title = agent_title(lesson.title, lesson.trust)
        if title != UNSHOWN_TITLE and len(title) >= QUOTE_MIN:
            found.add(title)
        body = render_body(
            "-", [lesson], {lesson.id: called[lesson.id]} if lesson.id in called else None
        )
        for line in body.splitlines()[1:]:
            line = line.strip().removeprefix("- ").strip()
            if len(line) >= QUOTE_MIN and not line.startswith("#"):
                found.add(line)
    return found


class Scrubber:
    """Replaces every quotation (longest first) by ``MARK`` in text and in JSON values."""

    def __init__(self, quotes: Iterable[str]) -> None:
        self.quotes = sorted({q for q in quotes if q and q != MARK}, key=len, reverse=True)

    def text(self, value: str | None) -> str | None:
        if not value:
            return value
        for quote in self.quotes:
            if quote in value:
                value = value.replace(quote, MARK)
        return value

    def json(self, value: Any) -> Any:
        if isinstance(value, str):
            return self.text(value)
        if isinstance(value, dict):
            return {key: self.json(item) for key, item in value.items()}
        if isinstance(value, list):
            return [self.json(item) for item in value]
        return value


def snapshot(value: dict[str, Any] | None, scrub: Scrubber, gone: bool) -> dict[str, Any] | None:
    if value is None:
        return None
    if not gone:
        return dict(scrub.json(value))
    return {
        **value,
        **{key: MARK for key in _WORDS if value.get(key)},
        "tags": [],
    }

"""The quality benchmark's cases (``bench/quality.py``): scripted streams with their ground truth.

Cases live in ``bench/data/quality/<split>/<class>.jsonl`` (and in ``<class>_<tag>.jsonl``,
more cases kept in a file of their own so they can be reported apart: a set written later, or
one kept aside and never tuned on; a record of such a file may name another ``class``, so one
set can hold the look-alikes its class must keep apart), one JSON object per line
(``bench/data/quality/README.md`` describes a record). A case is a short stream of events for
one agent of its own, and what a right lesson bank holds afterwards, written as *rules*: each
rule is one lesson, named by the events it must cite (all of them, and no others); a rule may
be ``superseded_by`` another (a reversal: the old lesson ends ``superseded`` by the new one's);
``nothing`` lists events that must teach nothing (a transient fault, a routine success). Every
event is taught by at least one rule or is in ``nothing``, never both.

Splits: ``dev`` may be read while the judge is worked on; ``held-out`` was written at the same
time by the same hand and is only ever measured (never read to fix a case): a class fixed on
dev that still fails on held-out was fixed by example.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).resolve().parent / "data" / "quality"
SPLITS = ("dev", "held-out")
#: the classes of issue 24, in report order
CLASSES = ("contradiction", "two_rules", "alike_facts", "paraphrase", "transient", "multi_error")
#: the capture call's keyword arguments each event kind may carry
PAYLOAD_KEYS = {
    "run_outcome": frozenset(
        {"task", "outcome", "error", "tool_calls", "attempt_summary", "thread_id", "contact_id"}
    ),
    "operator_edit": frozenset({"original", "final", "context", "thread_id", "contact_id"}),
    "owner_answer": frozenset({"question", "answer", "context", "thread_id", "contact_id"}),
}
_CASE_KEYS = frozenset({"case", "class", "about", "events", "lessons", "nothing"})
_EVENT_KEYS = frozenset({"id", "kind", "payload"})
_RULE_KEYS = frozenset({"rule", "says", "events", "superseded_by"})


@dataclass(frozen=True)
class Event:
    """One event of a case: ``payload`` is the keyword arguments of its capture call."""

    id: str
    kind: str
    payload: dict[str, Any]


@dataclass(frozen=True)
class Rule:
    """One lesson a right bank holds: it cites exactly ``events``; ``says`` is for readers."""

    name: str
    says: str
    events: frozenset[str]
    superseded_by: str | None = None


@dataclass(frozen=True)
class Case:
    split: str
    cls: str
    name: str
    about: str
    events: tuple[Event, ...]
    rules: tuple[Rule, ...]
    nothing: frozenset[str] = frozenset()
    #: the stem of the file the case came from: its class, or ``<class>_<tag>``
    source: str = ""

    @property
    def key(self) -> str:
        """Unique across the corpus; the case's agent is named after it."""
        return f"{self.split}/{self.cls}/{self.name}"

    def rule(self, name: str) -> Rule:
        return next(r for r in self.rules if r.name == name)

    @classmethod
    def from_record(
        cls, record: Any, *, split: str, category: str, source: str | None = None
    ) -> Case:
        """A case from one line of a data file; a record that is not a well-formed case is a
        ``ValueError`` saying why. ``category`` is the file's class; a record of a tagged file
        may name its own (``"class"``), one of ``CLASSES``."""
        _fields(record, _CASE_KEYS, {"case", "about", "events", "lessons"}, "case")
        named = record.get("class", category)
        if named != category and (source in (None, category) or named not in CLASSES):
            raise ValueError(
                f"class {named!r}: a record names one of {CLASSES}, and only in a tagged file"
            )
        category = named
        events = tuple(_event(item) for item in _list(record["events"], "events"))
        ids = [e.id for e in events]
        if not ids or len(ids) != len(set(ids)):
            raise ValueError("a case needs events with distinct ids")
        rules = tuple(_rule(item, set(ids)) for item in _list(record["lessons"], "lessons"))
        names = [r.name for r in rules]
        if len(names) != len(set(names)):
            raise ValueError("two rules of one case share a name")
        nothing = frozenset(_strings(record.get("nothing", []), "nothing"))
        if nothing - set(ids):
            raise ValueError(f"nothing names unknown events: {sorted(nothing - set(ids))}")
        taught = set().union(*(r.events for r in rules)) if rules else set()
        if taught & nothing:
            raise ValueError(f"events both taught and in nothing: {sorted(taught & nothing)}")
        if set(ids) - taught - nothing:
            raise ValueError(f"events neither taught nor in nothing: {set(ids) - taught - nothing}")
        for r in rules:
            if r.superseded_by is None:
                continue
            if r.superseded_by not in names or r.superseded_by == r.name:
                raise ValueError(f"rule {r.name} is superseded by an unknown rule")
            if next(o for o in rules if o.name == r.superseded_by).superseded_by is not None:
                raise ValueError(f"rule {r.name} is superseded by a rule that is superseded")
        return cls(
            split=split, cls=category, name=_text(record["case"], "case"),
            about=_text(record["about"], "about"), events=events, rules=rules, nothing=nothing,
            source=source or category,
        )  # fmt: skip


def _fields(record: Any, allowed: frozenset[str], required: set[str], what: str) -> None:
    if not isinstance(record, dict):
        raise ValueError(f"a {what} is a JSON object")
    if set(record) - allowed:
        raise ValueError(f"unknown {what} fields: {sorted(set(record) - allowed)}")
    if required - set(record):
        raise ValueError(f"missing {what} fields: {sorted(required - set(record))}")


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise ValueError(f"{what} is a list")
    return value


def _text(value: Any, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} is a non-empty string")
    return value


def _strings(value: Any, what: str) -> list[str]:
    return [_text(item, what) for item in _list(value, what)]


def _event(item: Any) -> Event:
    _fields(item, _EVENT_KEYS, set(_EVENT_KEYS), "event")
    kind, payload = item["kind"], item["payload"]
    if kind not in PAYLOAD_KEYS:
        raise ValueError(f"unknown event kind {kind!r}")
    if not isinstance(payload, dict) or set(payload) - PAYLOAD_KEYS[kind]:
        raise ValueError(f"a {kind} payload takes only {sorted(PAYLOAD_KEYS[kind])}")
    return Event(_text(item["id"], "event id"), kind, payload)


def _rule(item: Any, ids: set[str]) -> Rule:
    _fields(item, _RULE_KEYS, {"rule", "says", "events"}, "rule")
    events = frozenset(_strings(item["events"], "rule events"))
    if not events or events - ids:
        raise ValueError(f"rule {item['rule']!r} cites no event or an unknown one")
    superseded_by = item.get("superseded_by")
    if superseded_by is not None:
        superseded_by = _text(superseded_by, "superseded_by")
    return Rule(_text(item["rule"], "rule"), _text(item["says"], "says"), events, superseded_by)


def class_of(stem: str) -> str | None:
    """The class a data file's stem belongs to: ``<class>`` or ``<class>_<tag>``; else None."""
    for category in sorted(CLASSES, key=len, reverse=True):
        if stem == category or (stem.startswith(category + "_") and len(stem) > len(category) + 1):
            return category
    return None


def load(
    split: str, classes: tuple[str, ...] = CLASSES, files: tuple[str, ...] | None = None
) -> tuple[Case, ...]:
    """Every case of ``split`` in ``classes`` (and, given ``files``, only from the files with
    those stems), file by file in the ``CLASSES`` order of their classes, the class's own file
    first and its tagged files by name, each file in its line order; a record naming another
    class (a tagged file's look-alikes) is kept when that class is asked for. A file that is
    not a class's, or a line that is not a case, is a ``ValueError`` naming the file and the
    line."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: one of {SPLITS}")
    folder = DATA / split
    stems = sorted(p.stem for p in folder.glob("*.jsonl"))
    strays = [f"{s}.jsonl" for s in stems if class_of(s) is None]
    if strays:
        raise ValueError(f"{folder}: not the file of a class: {', '.join(strays)}")
    cases: list[Case] = []
    for category in CLASSES:
        mine = [s for s in stems if class_of(s) == category]
        mine.sort(key=lambda s: (s != category, s))
        for stem in (s for s in mine if files is None or s in files):
            path = folder / f"{stem}.jsonl"
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if not line.strip():
                    continue
                try:
                    case = Case.from_record(
                        json.loads(line), split=split, category=category, source=stem
                    )
                except ValueError as exc:
                    raise ValueError(f"{path}:{number}: {exc}") from None
                if case.cls in classes:
                    cases.append(case)
    names = [c.key for c in cases]
    if len(names) != len(set(names)):
        raise ValueError(f"{folder}: two cases of one class share a name")
    return tuple(cases)

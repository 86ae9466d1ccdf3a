"""The names a lesson's runs called: what a lesson from run text may name (``digest.agent_text``).

A lesson distilled from run outcomes may say a tool's or an argument's name only when one of
its runs called that tool or passed that argument (its events' ``tool_calls``). Renderers read
these names with the lesson: the learning document from all of its runs, pitfalls (on the
agent's turn) from its few latest.

With the names come the runs' own words (``RunNames.said``, ``digest.run_words.run_words``):
what the judge may not copy as its own words, and where an error it quotes must come from.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from sqlalchemy import bindparam, func, select
from sqlalchemy.orm import Session

from digest.models import Event, LessonEvidence
from digest.run_words import RunWords, run_words


class RunNames(frozenset[str]):
    """The names a lesson's runs called or passed, ``tools``: those of them the runs called
    as tools (the rest are argument names), and ``said``: the words those runs carried
    (``digest.run_words.RunWords``), which a rendering of the lesson may not copy."""

    said: RunWords
    tools: frozenset[str] | None

    def __new__(cls, names: set[str], said: RunWords, tools: set[str] | None = None) -> RunNames:
        made = super().__new__(cls, names)
        made.said = said
        made.tools = None if tools is None else frozenset(tools)
        return made


def called_names(
    session: Session, lesson_ids: list[int], latest: int | None = None
) -> dict[int, frozenset[str]]:
    """Per lesson with run evidence: the tools its runs called and the argument names they
    passed (a ``RunNames``, with the words the runs carried); with ``latest``, read from that
    many of its newest runs only. A lesson without run evidence is absent (its names are
    unknown, not none)."""
    if not lesson_ids:
        return {}
    found: dict[int, set[str]] = defaultdict(set)
    tools: dict[int, set[str]] = defaultdict(set)
    payloads: dict[int, list[Any]] = defaultdict(list)
    if latest is None:
        rows = session.execute(_ALL, {"ids": list(lesson_ids)})
    else:
        rows = session.execute(_LATEST, {"ids": list(lesson_ids), "latest": latest})
    for lesson_id, payload in rows:
        found[lesson_id].update(_names(payload))
        tools[lesson_id].update(_names(payload, arguments=False))
        payloads[lesson_id].append(payload)
    return {
        lesson_id: RunNames(names, run_words(payloads[lesson_id]), tools[lesson_id])
        for lesson_id, names in found.items()
    }


# Built once (pitfalls reads them on an agent's turn): a statement made per call, its subquery
# named anew each time, costs more than the read's own work.
_ALL = (
    select(LessonEvidence.lesson_id, Event.payload)
    .join(Event, Event.id == LessonEvidence.event_id)
    .where(
        LessonEvidence.lesson_id.in_(bindparam("ids", expanding=True)),
        Event.kind == "run_outcome",
    )
)
_RANKED = _ALL.add_columns(
    func.row_number()
    .over(partition_by=LessonEvidence.lesson_id, order_by=Event.id.desc())
    .label("rank")
).subquery("ranked")
_LATEST = select(_RANKED.c.lesson_id, _RANKED.c.payload).where(
    _RANKED.c.rank <= bindparam("latest")
)


def _names(payload: Any, *, arguments: bool = True) -> set[str]:
    calls = payload.get("tool_calls") if isinstance(payload, dict) else None
    names: set[str] = set()
    for call in calls if isinstance(calls, list) else ():
        if isinstance(call, dict) and call.get("tool"):
            names.add(str(call["tool"]))
            args = call.get("args") if arguments else None
            names.update(str(key) for key in (args if isinstance(args, dict) else ()))
    return names

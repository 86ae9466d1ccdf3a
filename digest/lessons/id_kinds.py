"""The kinds of ids a task names, as retrieval terms: "INC-5531" is an incident, "SKU-55102" a
stock item, "LV-8841" a leave request, whatever the number.

A tool-using agent's tasks name the records they act on by the ids of the system the agent
works in, and a system gives each kind of record its own prefix. The number changes from one
task to the next ("ack INC-88" after "Acknowledge incident INC-5531"); the prefix does not, and
a short, terse first message ("merge 1290", "D-4410 won") often says nothing else. So the
number is masked away (``digest.lessons.cues``: ids never reach a cue) and the prefix is kept as
a term of its own: ``id`` + the prefix, lowercased, + ``0`` ("idinc0", "idsku0", "idd0"). The
form cannot be a word a user writes, and its closing ``0`` keeps one prefix from matching
another that begins with it (a prompt's keywords match the words they begin: "ids0" must not
match "idsku0").

A lesson's cues take the kinds its run's task names and those of the arguments its tool calls
passed (``event_cues``): "sign off on Priya's time off" names no id, its call passed "LV-9102".
A prompt's keywords take the kinds its text names (``digest.retrieve.prompt_keywords``). For
retrieval only: nothing renders a cue.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from typing import Any

#: at most this many kinds of one text are kept
MAX_KINDS = 4
#: how much of a text is read
READ_MAX = 1200
#: a prefix of one to six letters, a dash (or "#"), then two digits or more ("INC-5531",
#: "D-7781", "SKU-55102", "PR#1290"); or a capital prefix written against its number
#: ("INC5531", "PAY1182"). Not inside a longer token ("auth-svc-2", "2026-03-11", an
#: address's "x-12@…"), not a version ("v2.14.0": one digit), not a measure ("60x").
_ID = re.compile(
    r"(?<![\w.@/-])#?([A-Za-z]{1,6})(?:-|#|_)(\d{2,})(?![\w@]|-[A-Za-z])"
    r"|(?<![\w.@/-])([A-Z]{2,6})(\d{3,})(?![\w@])"
)
#: prefixes that are not a record's kind: units, protocols and the like
_NOT_KINDS = frozenset(
    "covid http https tcp udp utf iso mp gb mb kb tb km kg cm mm hz ghz mhz usb hdmi wifi".split()  # noqa: SIM905
)
#: the largest nesting of arguments read for ids
_DEPTH = 4


def id_kinds(text: str) -> list[str]:
    """The kinds of ids ``text`` names (its first ``READ_MAX`` characters), as terms
    (``id`` + prefix + ``0``), each once, in the order it names them, at most ``MAX_KINDS``."""
    kept: dict[str, None] = {}
    for match in _ID.finditer(str(text)[:READ_MAX]):
        prefix = (match.group(1) or match.group(3)).casefold()
        if prefix in _NOT_KINDS:
            continue
        kept[f"id{prefix}0"] = None
        if len(kept) == MAX_KINDS:
            break
    return list(kept)


def call_id_kinds(tool_calls: Any) -> list[str]:
    """The kinds of ids the arguments of a run's tool calls passed (string values, nested ones
    too), as ``id_kinds``."""
    if not isinstance(tool_calls, list):
        return []
    return id_kinds(
        " ".join(
            string_values(
                (call.get("args") for call in tool_calls if isinstance(call, dict)), _DEPTH
            )
        )
    )


def merged_kinds(*found: Iterable[str]) -> list[str]:
    """The kinds of each of ``found`` in turn, each once, at most ``MAX_KINDS``."""
    kept: dict[str, None] = {}
    for kinds in found:
        for kind in kinds:
            kept.setdefault(kind, None)
    return list(kept)[:MAX_KINDS]


def string_values(values: Iterable[Any], max_depth: int, depth: int = 0) -> Iterator[str]:
    """Every string among ``values`` and inside their dicts' values and their lists, down to
    ``max_depth`` levels (a call's arguments as text; keys left out)."""
    for value in values:
        if isinstance(value, str):
            yield value
        elif depth < max_depth and isinstance(value, dict):
            yield from string_values(value.values(), max_depth, depth + 1)
        elif depth < max_depth and isinstance(value, list | tuple):
            yield from string_values(value, max_depth, depth + 1)

"""The shapes of the adversarial corpus, and how a case is written in its data files.

A ``Case`` is one scenario under an agent of its own: optional trusted rules (owner lessons and
owner answers, created first), then one or more ``Run`` events (``digest.record_run`` keyword
arguments). An attack case names its class, where the payload sits, the ``markers`` that must
never reach an agent, and the lesson an obedient model would write for it.

Cases live in ``data/<split>/<class>.jsonl``, one JSON object per line (``Case.record``; the
loader is ``tests/adversarial/cases.py``, the layout is described in ``data/README.md``).
"""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: the attack classes of issue 12
CLASSES = (
    "paraphrase/policy",
    "multilingual",
    "markup",
    "obfuscation",
    "forged-structure",
    "campaign",
    "trust-override",
    "tool-name",
)
BENIGN_CLASS = "benign"
#: where an attacker can place a payload in a run report
PLACES = (
    "tool output",
    "tool error",
    "tool args",
    "tool name",
    "task",
    "attempt summary",
    "run error",
)
RECONCILE_OPS = ("UPDATE", "DELETE")
#: ``tuned``: cases the screen has been fixed for, the suite's gate; ``held-out``: a corpus
#: nobody has tuned on yet, measured but not gated (it joins ``tuned`` once its misses are
#: fixed by class, never by example)
SPLITS = ("tuned", "held-out")
#: who wrote a case: ``first`` with the screen, ``second`` by another hand independently of its
#: rules, ``third`` by a red-teamer who knew a screen existed (both held out at first)
CORPORA = ("first", "second", "third")

#: a lesson as a model writes it: (situation, correction)
Lesson = tuple[str, str]


@dataclass(frozen=True)
class Run:
    """One run outcome, as ``digest.record_run`` takes it."""

    task: str
    outcome: str = "failure"
    error: str | None = None
    tool_calls: tuple[dict[str, Any], ...] = ()
    attempt_summary: str | None = None
    thread_id: str | None = None
    contact_id: str | None = None
    #: what an obedient model writes for this event, when not the case's lesson (a campaign's
    #: benign opening runs)
    obedient: Lesson | None = None

    def kwargs(self) -> dict[str, Any]:
        """Keyword arguments of ``digest.record_run`` (after tenant and agent)."""
        given: dict[str, Any] = {"task": self.task, "outcome": self.outcome}
        if self.error is not None:
            given["error"] = self.error
        if self.tool_calls:
            given["tool_calls"] = [dict(call) for call in self.tool_calls]
        if self.attempt_summary is not None:
            given["attempt_summary"] = self.attempt_summary
        if self.thread_id is not None:
            given["thread_id"] = self.thread_id
        if self.contact_id is not None:
            given["contact_id"] = self.contact_id
        return given

    def key(self) -> str:
        """What identifies this run's content as a model sees it (its payload), whitespace
        folded: how a scripted model recognises the event it is asked about."""
        return content_key(
            {
                "task": self.task,
                "error": self.error,
                "attempt_summary": self.attempt_summary,
                "tool_calls": list(self.tool_calls),
            }
        )

    def tools(self) -> list[str]:
        return [str(call["tool"]) for call in self.tool_calls]

    def text(self) -> str:
        """Everything an attacker wrote into this run, as one string."""
        parts = [self.task, self.error or "", self.attempt_summary or ""]
        for call in self.tool_calls:
            parts += [str(call.get("tool", "")), str(call.get("error") or "")]
            parts += [str(call.get("output") or "")]
            parts.append(json.dumps(call.get("args") or {}, ensure_ascii=False))
        return "\n".join(parts)

    def record(self) -> dict[str, Any]:
        """This run as written in a data file: fields at their default left out."""
        found: dict[str, Any] = {"task": self.task}
        if self.outcome != "failure":
            found["outcome"] = self.outcome
        for key in ("error", "attempt_summary", "thread_id", "contact_id"):
            if getattr(self, key) is not None:
                found[key] = getattr(self, key)
        if self.tool_calls:
            found["tool_calls"] = [dict(call) for call in self.tool_calls]
        if self.obedient is not None:
            found["obedient"] = list(self.obedient)
        return found

    @classmethod
    def from_record(cls, record: dict[str, Any]) -> Run:
        fields = _fields(cls, record, required=("task",))
        if "tool_calls" in fields:
            fields["tool_calls"] = tuple(dict(call) for call in fields["tool_calls"])
        if "obedient" in fields:
            fields["obedient"] = _lesson(fields["obedient"])
        return cls(**fields)


def _fold(value: Any) -> str:
    return " ".join(str(value or "").split())


def content_key(payload: dict[str, Any]) -> str:
    """``Run.key`` of a run outcome's payload, as stored and shown to a model."""
    calls = [
        [_fold(c.get("tool")), _fold(c.get("error")), _fold(c.get("output"))]
        for c in payload.get("tool_calls") or []
    ]
    parts = [_fold(payload.get(k)) for k in ("task", "error", "attempt_summary")]
    return json.dumps([*parts, calls], ensure_ascii=False)


@dataclass(frozen=True)
class Case:
    """One attack or benign control, under an agent named after it."""

    name: str
    #: an attack class (``CLASSES``) or ``"benign"``
    category: str
    #: the payload's language (ISO 639-1), ``"mixed"`` for several
    language: str
    runs: tuple[Run, ...]
    #: what a model that follows the run text writes: (situation, correction)
    obedient: Lesson
    #: substrings that must never reach a pitfalls block, a version or an active lesson
    markers: tuple[str, ...] = ()
    #: where the payload sits (``PLACES``)
    where: tuple[str, ...] = ()
    #: owner rules created first: ``digest.record_lesson(tenant, agent, text)``
    trusted: tuple[str, ...] = ()
    #: owner answers created first: (question, answer)
    answers: tuple[tuple[str, str], ...] = ()
    #: how an obedient model reconciles the attack with the trusted lessons
    obedient_reconcile: str | None = None
    #: the obfuscation technique, for obfuscation cases
    technique: str | None = None
    #: who wrote it (``CORPORA``)
    corpus: str = "first"
    #: the data split it was loaded from (``SPLITS``; the directory, not a field of the record)
    split: str = "tuned"

    def record(self) -> dict[str, Any]:
        """This case as written in a data file (one JSON object per line), fields at their
        default left out, the split left to the directory."""
        found: dict[str, Any] = {
            "name": self.name,
            "category": self.category,
            "language": self.language,
            "corpus": self.corpus,
        }
        if self.where:
            found["where"] = list(self.where)
        if self.markers:
            found["markers"] = list(self.markers)
        if self.technique is not None:
            found["technique"] = self.technique
        if self.trusted:
            found["trusted"] = list(self.trusted)
        if self.answers:
            found["answers"] = [list(answer) for answer in self.answers]
        if self.obedient_reconcile is not None:
            found["obedient_reconcile"] = self.obedient_reconcile
        found["runs"] = [item.record() for item in self.runs]
        found["obedient"] = list(self.obedient)
        return found

    @classmethod
    def from_record(cls, record: dict[str, Any], split: str = "tuned") -> Case:
        required = ("name", "category", "language", "runs", "obedient")
        fields = _fields(cls, record, required=required, written_elsewhere=("split",))
        fields["runs"] = tuple(Run.from_record(item) for item in fields["runs"])
        fields["obedient"] = _lesson(fields["obedient"])
        for key in ("markers", "where", "trusted"):
            if key in fields:
                fields[key] = tuple(str(value) for value in fields[key])
        if "answers" in fields:
            fields["answers"] = tuple(_lesson(answer) for answer in fields["answers"])
        return cls(**fields, split=split)

    @property
    def attack(self) -> bool:
        return self.category != BENIGN_CLASS

    @property
    def has_trusted(self) -> bool:
        return bool(self.trusted or self.answers)


def _fields(
    shape: type[Any],
    record: dict[str, Any],
    *,
    required: tuple[str, ...],
    written_elsewhere: tuple[str, ...] = (),
) -> dict[str, Any]:
    """``record``'s fields, refused when one is unknown to ``shape`` or a required one is
    missing (a misspelt key must not silently become a default)."""
    known = {f.name for f in dataclasses.fields(shape)} - set(written_elsewhere)
    unknown = sorted(set(record) - known)
    missing = [key for key in required if key not in record]
    wrong = [f"unknown field(s) {', '.join(unknown)}"] if unknown else []
    wrong += [f"missing field(s) {', '.join(missing)}"] if missing else []
    if wrong:
        raise ValueError(f"{shape.__name__}: {'; '.join(wrong)}")
    return dict(record)


def _lesson(pair: Sequence[str]) -> Lesson:
    """(situation, correction), or (question, answer)."""
    if len(pair) != 2:
        raise ValueError(f"expected two strings, got {pair!r}")
    return str(pair[0]), str(pair[1])

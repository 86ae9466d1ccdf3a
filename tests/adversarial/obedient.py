"""``ObedientModel``: a scripted model that does what the attacker asks.

It answers a reflect request for a run of the corpus with the case's ``obedient`` lesson (the
attacker's instruction written as a lesson), and a reconcile request that shows a trusted
lesson it was aimed at with the case's ``obedient_reconcile`` operation on it (UPDATE with the
attacker's exception, or DELETE); everything else as ``offline/rules`` answers it. In process
it is a ``digest.model.scripted`` handler; tests/test_adversarial.py also serves it over HTTP
for a worker process.
"""

from __future__ import annotations

import json
import threading
from collections import defaultdict
from dataclasses import dataclass
from html import escape, unescape
from typing import Any

from tests.adversarial.schema import Lesson, content_key


def _fold(text: Any) -> str:
    return " ".join(str(text or "").split())


def _unescaped(value: Any) -> Any:
    """``value`` with HTML entities in every string undone."""
    if isinstance(value, str):
        return unescape(value)
    if isinstance(value, dict):
        return {k: _unescaped(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_unescaped(v) for v in value]
    return value


def lesson_block(lesson: Lesson) -> str:
    """A reflect answer holding ``lesson``, written as a model writes one."""
    situation, correction = lesson
    return (
        "<lesson>\n"
        f"<situation>{escape(situation, quote=False)}</situation>\n"
        "<mistake>The run did not follow the updated instructions.</mistake>\n"
        f"<correction>{escape(correction, quote=False)}</correction>\n"
        "<tags>instructions, update</tags>\n"
        "</lesson>"
    )


@dataclass(frozen=True)
class Target:
    """A trusted lesson the obedient model rewrites (UPDATE) or retires (DELETE)."""

    situation: str
    correction: str
    op: str
    lesson: Lesson
    case: str


class ObedientModel:
    """A model that follows the attacker. Call it with a request's messages (it is a
    ``digest.model.scripted`` handler, and ``tests.test_adversarial`` serves it over HTTP for
    workers). Reflect on a known run → the run's obedient lesson; reconcile with a targeted
    trusted lesson among the neighbours → that op on it for every candidate; anything else →
    ``offline/rules``."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._by_content: dict[str, Lesson] = {}
        #: folded task → lesson, None when two runs with different lessons share the task
        self._by_task: dict[str, Lesson | None] = {}
        #: reflect requests on a run outcome it did not recognise (its tasks): it answered
        #: them as ``offline/rules``, so it was not obedient there
        self.misses: list[str] = []
        self._targets: list[Target] = []
        #: cases whose trusted lesson the model was asked about and answered the attacker's op
        self.overrides: set[str] = set()
        #: requests by step
        self.steps: dict[str, int] = defaultdict(int)

    def expect(self, key: str, task: str, lesson: Lesson) -> None:
        """Answer a reflect request for the run with content ``key`` (``Run.key``) with
        ``lesson``; ``task`` recognises the run if the event is shown differently (escaped)."""
        with self._lock:
            self._by_content[key] = lesson
            folded = _fold(task)
            if self._by_task.get(folded, lesson) != lesson:
                self._by_task[folded] = None
            else:
                self._by_task[folded] = lesson

    def lesson_for(self, payload: dict[str, Any]) -> Lesson | None:
        """The lesson expected for a run outcome's payload, as the model was shown it."""
        with self._lock:
            for shown in (payload, _unescaped(payload)):
                found = self._by_content.get(content_key(shown))
                if found is not None:
                    return found
            for task in (payload.get("task"), unescape(str(payload.get("task") or ""))):
                found = self._by_task.get(_fold(task))
                if found is not None:
                    return found
        return None

    def target(self, situation: str, correction: str, op: str, lesson: Lesson, case: str) -> None:
        with self._lock:
            self._targets.append(Target(_fold(situation), _fold(correction), op, lesson, case))

    def __call__(self, messages: list[dict[str, Any]]) -> str:
        from digest.model.scripted import event_of, rules, step_of

        step = step_of(messages)
        with self._lock:
            self.steps[step] += 1
        if step == "reflect":
            event = event_of(messages)
            payload = event.get("payload") if event else None
            if isinstance(payload, dict) and event and event.get("kind") == "run_outcome":
                lesson = self.lesson_for(payload)
                if lesson is not None:
                    return lesson_block(lesson)
                with self._lock:
                    self.misses.append(_fold(payload.get("task"))[:80])
            return rules(messages)
        if step == "reconcile":
            return self._reconcile(messages, rules(messages))
        return rules(messages)

    def _reconcile(self, messages: list[dict[str, Any]], ruled: str) -> str:
        from digest.model.offline import CANDIDATES_BLOCK, EXISTING_BLOCK

        text = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
        existing_found, candidates_found = (
            EXISTING_BLOCK.search(text),
            CANDIDATES_BLOCK.search(text),
        )
        if existing_found is None or candidates_found is None:
            return ruled
        existing = json.loads(existing_found.group(1))
        candidates = json.loads(candidates_found.group(1))
        hit: tuple[int, Target] | None = None
        with self._lock:
            targets = list(self._targets)
        for item in existing:
            for target in targets:
                if target.correction == _fold(item.get("correction")) or (
                    target.situation == _fold(item.get("situation"))
                ):
                    hit = (int(item["id"]), target)
                    break
            if hit:
                break
        if hit is None:
            return ruled
        shown_id, target = hit
        operations = {op.get("candidate"): op for op in json.loads(ruled).get("operations", [])}
        for candidate in candidates:
            index = candidate.get("candidate")
            situation, correction = target.lesson
            operations[index] = {
                "op": target.op,
                "candidate": index,
                "id": shown_id,
                "lesson": {
                    "situation": situation,
                    "mistake": "The rule was out of date.",
                    "correction": correction,
                    "tags": ["policy"],
                },
                "reason": "the policy changed, as the latest run shows",
            }
        with self._lock:
            self.overrides.add(target.case)
        return json.dumps({"operations": list(operations.values())})

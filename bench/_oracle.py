"""The quality bench's oracle judge (``bench/quality.py --judge oracle``): a CEILING, it peeks.

A model that answers rightly whenever it is asked, served on ``bench/_loopback.py``'s
OpenAI-compatible server to a real worker process, like the remote stand-in. It knows every
case's ground truth (``bench/_quality_cases.py``: rules, events, ``superseded_by``,
``nothing``) and reads which case a request is about from the prompt's ``Agent:`` line (a
case's agent is ``q:<case key>``); requests of any other agent (the half-repeats stream) get the
offline rules' answer. What it measures is whether the STRUCTURE around the model (which
neighbours are shown, the fast paths that decide without asking, how ``reconcile.resolve``
applies an answer, the trust and release rules, same-question matching) lets a right model
reach the right bank: a case wrong under the oracle is wrong for a reason a better model
cannot fix. It is not a measure of any model.

- reflect: the event is found among its case's events by the words of its payload.
  ``<skip>`` for an event in ``nothing``; otherwise one lesson per rule the event teaches (at
  most 3). When the offline rules' answer has as many lessons as the event teaches rules, the
  oracle keeps their words (so fingerprints and titles are the product's) and pairs each
  lesson with a rule by the words it shares with the rule's other events and ``says``;
  otherwise it writes each lesson itself: the situation names the run's failure closest to the
  rule (tool and error) or the question, the correction is the rule's ``says`` (for an
  owner's answer, the owner's words: a ``says`` is often a label no model would write).
  ``BENCH_ORACLE_OWN_WORDS=1`` makes it write every lesson so: a right model that never words
  a lesson as the offline rules do (what the product makes of a model's own words and tags).
- reconcile: every lesson text it wrote is remembered with its rule (per agent); each
  candidate and each shown lesson is read back to its rule (exact words, else the remembered
  text sharing the most words). Per candidate: NOOP on a shown lesson of the same rule, DELETE
  (with a reason) on each shown lesson whose rule is ``superseded_by`` the candidate's, ADD
  otherwise. It never names an id it was not shown and never writes an UPDATE, unless told
  to answer as a model that "updates" might: ``BENCH_ORACLE_REVERSE_BY=update`` (a reversal
  as an UPDATE of the old lesson with the candidate's words and a reason naming the change;
  ``update-silent``: with no reason) and ``BENCH_ORACLE_SAME_BY=update`` (a repeat of a
  shown lesson's rule as an UPDATE with the candidate's words, not a NOOP): a right bank
  must come out the same. ``BENCH_ORACLE_SHAPE=quoted-ids`` writes ids and candidate numbers
  as strings ("0"), as Mem0's prompts do; ``mem0`` answers in Mem0's words throughout: quoted
  ids, ``event`` for ``op``, ``NONE`` for ``NOOP``, an UPDATE's lesson as ``text`` alone, and
  no ``candidate`` when one was shown. ``BENCH_ORACLE_LESSONS=bare`` writes each lesson with its
  situation and correction only (no mistake, no tags).
- same_question: the new and each open question are found among the case's owner answers; a
  match only when their events teach the same rule.
- summarize: the offline rules.
"""

from __future__ import annotations

import json
import os
import re
import threading
from collections import Counter
from itertools import permutations
from typing import Any

from _quality_cases import Case, Event, Rule

_WORD = re.compile(r"\w{3,}", re.UNICODE)
_AGENT = re.compile(r"^Agent: (.*)$", re.MULTILINE)
_BLOCK = {
    name: re.compile(rf"<{name}>\s*(.*?)\s*</{name}>", re.DOTALL)
    for name in ("event", "existing", "candidates", "question", "open_questions", "added")
}


def words(value: Any) -> set[str]:
    """The words (3+ letters, lower case) of every string inside ``value``."""
    if isinstance(value, dict):
        return set().union(*(words(v) for v in value.values())) if value else set()
    if isinstance(value, list):
        return set().union(*(words(v) for v in value)) if value else set()
    return {w.lower() for w in _WORD.findall(str(value))} if value is not None else set()


def _tokens(value: Any) -> set[str]:
    """Every word and figure of the strings inside ``value``, short ones included."""
    return {
        t.lower() for t in re.findall(r"\w+(?:[.,]\d+)?", json.dumps(value, ensure_ascii=False))
    }


def _figures(text: str) -> set[str]:
    """The figures of a text ("22.5", "300"): a rule's limit reads alike in every language."""
    return set(re.findall(r"\d+(?:[.,]\d+)?", text))


def _overlap(a: set[str], b: set[str]) -> float:
    return len(a & b) / (len(b) or 1)


def _text_key(situation: Any, correction: Any) -> str:
    # the product quotes a model's copy of a run's error as observed data («…»: issue 24,
    # ``digest.reflect.observations``): the text the oracle wrote, read back either way
    text = f"{situation} | {correction}".lower().replace("«", "").replace("»", "")
    return " ".join(text.split())


def _failures(event: Event) -> list[tuple[str, str]]:
    """(tool, error) of each failed call of a run, and the run's own error."""
    payload = event.payload
    found = [
        (str(c.get("tool") or ""), str(c.get("error") or ""))
        for c in payload.get("tool_calls") or []
        if isinstance(c, dict) and c.get("error")
    ]
    if payload.get("error"):
        found.append(("", str(payload["error"])))
    return found


def _mem0(op: dict[str, Any], *, names: bool) -> dict[str, Any]:
    """One operation as a model trained on Mem0's prompts may write it: ids and candidate
    numbers quoted; with ``names``, ``event`` for ``op``, ``NONE`` for ``NOOP`` and an
    UPDATE's lesson given as its correction's ``text`` alone."""
    out = {k: str(v) if k in ("id", "candidate") else v for k, v in op.items()}
    if not names:
        return out
    out["event"] = "NONE" if out["op"] == "NOOP" else out["op"]
    del out["op"]
    if "lesson" in out:
        out["text"] = out.pop("lesson").get("correction", "")
    return out


class Oracle:
    """Answers as a right model would for the cases it was given (thread-safe)."""

    def __init__(self, cases: list[Case]) -> None:
        from _quality_play import agent_of

        self.cases = {agent_of(c): c for c in cases}
        self._lock = threading.Lock()
        #: agent → lesson text key → the rules it was written for (latest last)
        self._texts: dict[str, dict[str, list[str]]] = {}
        self.asked: Counter[str] = Counter()
        self.unknown: Counter[str] = Counter()
        #: ``BENCH_ORACLE_TRACE=<path>``: every request's agent, kind and answer, a JSON line each
        self._trace = os.environ.get("BENCH_ORACLE_TRACE")
        #: ``BENCH_ORACLE_OWN_WORDS=1``: every lesson in the oracle's own words (a model that
        #: never words a lesson as the offline rules do: what the product makes of it)
        self.own_words = os.environ.get("BENCH_ORACLE_OWN_WORDS") == "1"
        #: ``BENCH_ORACLE_REVERSE_BY=update``: a reversal answered as an UPDATE of the old
        #: lesson with the candidate's words (the prompt asks for a DELETE; a model may still
        #: "update" a fact that changed): what the product makes of it; ``update-silent``: the
        #: same UPDATE with no reason given (only what the texts say tells it is a reversal)
        by = os.environ.get("BENCH_ORACLE_REVERSE_BY", "")
        same_by = os.environ.get("BENCH_ORACLE_SAME_BY", "")
        shape = os.environ.get("BENCH_ORACLE_SHAPE", "")
        if (
            by not in ("", "update", "update-silent") or same_by not in ("", "update")
            or shape not in ("", "quoted-ids", "mem0")
        ):  # fmt: skip
            raise ValueError(
                f"BENCH_ORACLE_REVERSE_BY={by!r} (update, update-silent or unset) / "
                f"BENCH_ORACLE_SAME_BY={same_by!r} (update or unset) / "
                f"BENCH_ORACLE_SHAPE={shape!r} (quoted-ids, mem0 or unset)"
            )
        #: ``BENCH_ORACLE_SHAPE``: ``quoted-ids`` writes ids and candidate numbers as strings
        #: ("0"), as Mem0's prompts write them; ``mem0`` all of Mem0's names (``_mem0``)
        self.shape = shape
        #: ``BENCH_ORACLE_LESSONS=bare``: lessons with a situation and a correction only (no
        #: mistake, no tags): what the structure makes of a terse model
        lessons = os.environ.get("BENCH_ORACLE_LESSONS", "")
        if lessons not in ("", "bare"):
            raise ValueError(f"BENCH_ORACLE_LESSONS={lessons!r} (bare or unset)")
        self.bare = lessons == "bare"
        self.reverse_by_update = by in ("update", "update-silent")
        self.reverse_reason = "" if by == "update-silent" else "updated: the requirement changed"
        #: ``BENCH_ORACLE_SAME_BY=update``: a repeat of a shown lesson's rule in other words
        #: answered as an UPDATE with the candidate's words, not a NOOP (a model that enriches)
        self.same_by_update = same_by == "update"

    def _note(self, agent: str, kind: str, **found: Any) -> None:
        if self._trace:
            with self._lock, open(self._trace, "a", encoding="utf-8") as out:
                out.write(json.dumps({"agent": agent, "kind": kind, **found}) + "\n")

    def answer(self, messages: list[dict[str, Any]]) -> str:
        from digest.model.offline import answer as offline

        text = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
        agent = _AGENT.search(text)
        case = self.cases.get(agent.group(1).strip()) if agent else None
        if case is None or _BLOCK["added"].search(text):
            return offline(messages)
        blocks = {k: b.search(text) for k, b in _BLOCK.items()}
        if blocks["existing"] and blocks["candidates"]:
            self._count("reconcile")
            existing = json.loads(blocks["existing"].group(1))
            candidates = json.loads(blocks["candidates"].group(1))
            said = self._reconcile(case, existing, candidates)
            self._note(
                case.key, "reconcile", said=said,
                existing=[(e, self._rule_of_text(case, e)) for e in existing],
                candidates=[(c, self._rule_of_text(case, c)) for c in candidates],
            )  # fmt: skip
            return said
        if blocks["question"] and blocks["open_questions"]:
            self._count("same_question")
            question = json.loads(blocks["question"].group(1))
            open_questions = json.loads(blocks["open_questions"].group(1))
            said = self._same_question(case, question, open_questions)
            self._note(case.key, "same_question", q=question, open=open_questions, said=said)
            return said
        if blocks["event"]:
            self._count("reflect")
            shown = json.loads(blocks["event"].group(1))
            said = self._reflect(case, shown, messages)
            self._note(case.key, "reflect", event=self._event_of(case, shown.get("payload")).id,
                       said=said)  # fmt: skip
            return said
        return offline(messages)

    def _count(self, kind: str) -> None:
        with self._lock:
            self.asked[kind] += 1

    # reflect -------------------------------------------------------------------------------

    def _event_of(self, case: Case, payload: Any) -> Event:
        """The case's event whose payload shares the most words with ``payload``."""
        seen, tokens = words(payload), _tokens(payload)
        # words first; then every token, short ones and figures too ("AC" / "DC", "0.39")
        return max(
            case.events,
            key=lambda e: (_overlap(seen, words(e.payload)), _overlap(tokens, _tokens(e.payload))),
        )

    def _rules_of(self, case: Case, event: Event) -> list[Rule]:
        return [r for r in case.rules if event.id in r.events][:3]

    def _rule_words(self, case: Case, rules: list[Rule], event: Event) -> dict[str, set[str]]:
        """What tells each of ``rules`` apart inside ``event``: its ``says`` and the words every
        other event of the rule shares in its failures or question (its error family), less
        the words another of ``rules`` has too."""
        found: dict[str, set[str]] = {}
        for rule in rules:
            others = [
                words(_failures(o) or o.payload)
                for o in case.events
                if o.id in rule.events and o.id != event.id
            ]
            family = set.intersection(*others) if others else set()
            found[rule.name] = words(rule.says) | (
                family or set().union(*others) if others else family
            )
        return {
            name: mine - set().union(*(w for n, w in found.items() if n != name))
            for name, mine in found.items()
        }

    def _reflect(self, case: Case, shown: dict[str, Any], messages: list[dict[str, Any]]) -> str:
        from digest.model.contracts import LessonBlock, parse_reflect_output
        from digest.model.offline import answer as offline

        event = self._event_of(case, shown.get("payload"))
        if event.id in case.nothing:
            return f"<skip>oracle: event {event.id} teaches nothing</skip>"
        rules = self._rules_of(case, event)
        try:
            theirs = parse_reflect_output(offline(messages))
        except Exception:  # the rules found nothing: write every lesson ourselves
            theirs = []
        blocks: list[tuple[Rule, LessonBlock]] = []
        if isinstance(theirs, list) and len(theirs) == len(rules) and not self.own_words:
            want = self._rule_words(case, rules, event)
            said = [words([b.situation, b.mistake, b.correction]) for b in theirs]
            # the pairing of lessons with rules that shares the most telling words
            best = max(
                permutations(range(len(theirs))),
                key=lambda order: sum(
                    len(want[r.name] & said[i]) for r, i in zip(rules, order, strict=True)
                ),
            )
            blocks = [(r, theirs[i]) for r, i in zip(rules, best, strict=True)]
        else:
            chosen = self._failures_of(case, rules, event)
            blocks = [
                (rule, self._write(case, rule, event, chosen.get(rule.name))) for rule in rules
            ]
        with self._lock:
            memory = self._texts.setdefault(f"q:{case.key}", {})
            for rule, block in blocks:
                memory.setdefault(_text_key(block.situation, block.correction), []).append(
                    rule.name
                )
        return "\n".join(_render(block, self.bare) for _, block in blocks)

    def _failures_of(
        self, case: Case, rules: list[Rule], event: Event
    ) -> dict[str, tuple[str, str]]:
        """Which failure of ``event`` each of ``rules`` is about, one failure per rule while
        there are enough: a failure whose error template (the product's key) recurs in the
        rule's other events first, then the telling words and figures it shares with them (a
        right model quotes the error its lesson is about, in any language)."""
        from digest import fingerprint as fp

        failures = _failures(event)
        if not failures:
            return {}

        def key(failure: tuple[str, str]) -> str:
            tool, error = failure
            return fp.tool_key(tool, error) if tool else fp.run_key("failure", error)

        want = self._rule_words(case, rules, event)
        scores: dict[tuple[str, int], tuple[int, int, int, int]] = {}
        for rule in rules:
            others = [o for o in case.events if o.id in rule.events and o.id != event.id]
            other_keys = [{key(f) for f in _failures(o)} for o in others]
            other_tools = [{f[0] for f in _failures(o)} for o in others]
            figures = _figures(rule.says)
            for i, failure in enumerate(failures):
                recurs = sum(key(failure) in keys for keys in other_keys)
                # the same tool failing in the rule's other events: one API may word one error
                # in two shapes (a JSON body, an SDK's exception), whose words mislead
                tool = sum(failure[0] in tools for tools in other_tools)
                shared = len(want[rule.name] & words(list(failure)))
                shared += len(figures & _figures(failure[1]))
                # a rule that names the failing tool is about that tool's failure first
                named = int(bool(failure[0]) and failure[0].lower() in rule.says.lower())
                scores[(rule.name, i)] = (named, recurs, tool, shared)
        if len(failures) >= len(rules):
            best = max(
                permutations(range(len(failures)), len(rules)),
                key=lambda order: tuple(
                    sum(scores[(r.name, i)][n] for r, i in zip(rules, order, strict=True))
                    for n in range(4)
                ),
            )
            return {r.name: failures[i] for r, i in zip(rules, best, strict=True)}
        return {
            r.name: failures[max(range(len(failures)), key=lambda i: scores[(r.name, i)])]
            for r in rules
        }

    def _write(
        self, case: Case, rule: Rule, event: Event, failure: tuple[str, str] | None = None
    ) -> Any:
        from digest.model.contracts import LessonBlock

        failures = _failures(event)
        says = rule.says
        if failures:
            want = self._rule_words(case, [rule], event)[rule.name]
            tool, error = failure or max(failures, key=lambda f: _overlap(want, words(list(f))))
            named = f"`{tool}` fails" if tool else "The run fails"
            situation = f"{named} with: {error[:200]}"
        elif event.kind == "owner_answer":
            situation = f"Asked: {event.payload.get('question', '')}"[:240]
            # a model restates the owner's answer; a rule's ``says`` is often a label
            # ("hund-ja") no model would write
            says = str(event.payload.get("answer") or says)
        else:
            situation = f"Drafting a reply like: {str(event.payload.get('original', ''))[:160]}"
        return LessonBlock(_safe(situation), _safe(says), None, (event.kind,))

    # reconcile -----------------------------------------------------------------------------

    def _rule_of_text(self, case: Case, item: dict[str, Any]) -> str | None:
        memory = self._texts.get(f"q:{case.key}", {})
        key = _text_key(item.get("situation"), item.get("correction"))
        if key in memory:
            return memory[key][-1]
        # the product may rewrite what a lesson observed (a run's error quoted, its values
        # masked): the correction, which it never rewrites, is the oracle's own rule's words
        said = _text_key("", item.get("correction")).removeprefix(" | ").removeprefix("| ")
        ruled = {m[-1] for k, m in memory.items() if k.partition(" | ")[2] == said}
        if len(ruled) == 1:
            return ruled.pop()
        seen = words([item.get("situation"), item.get("correction")])
        figures = set(re.findall(r"\d+", key))
        # words first; a text's figures tell two limits apart ("at most 10" / "at most 5")
        scored = [
            (_overlap(words(k), seen), len(figures & set(re.findall(r"\d+", k))), k) for k in memory
        ]
        if not scored:
            return None
        score, _, best = max(scored)
        if score < 0.6:
            with self._lock:
                self.unknown["text"] += 1
            return None
        return memory[best][-1]

    def _reconcile(
        self, case: Case, existing: list[dict[str, Any]], candidates: list[dict[str, Any]]
    ) -> str:
        ops: list[dict[str, Any]] = []
        shown = {int(e["id"]): self._rule_of_text(case, e) for e in existing}
        for c in candidates:
            number = int(c["candidate"])
            rule = self._rule_of_text(case, c)
            same = [i for i, r in shown.items() if rule is not None and r == rule]
            if same and self.same_by_update:
                lesson = {k: c[k] for k in ("situation", "correction", "tags") if k in c}
                ops.append({"op": "UPDATE", "candidate": number, "id": same[0], "lesson": lesson})
                continue
            if same:
                ops.append({"op": "NOOP", "candidate": number, "id": same[0]})
                continue
            old = [
                i
                for i, r in shown.items()
                if r is not None and rule is not None and case.rule(r).superseded_by == rule
            ]
            for i in old:
                if self.reverse_by_update:
                    lesson = {k: c[k] for k in ("situation", "correction", "tags") if k in c}
                    ops.append({
                        "op": "UPDATE", "candidate": number, "id": i, "lesson": lesson,
                        **({"reason": self.reverse_reason} if self.reverse_reason else {}),
                    })  # fmt: skip
                    continue
                ops.append({
                    "op": "DELETE", "candidate": number, "id": i,
                    "reason": "the new lesson reverses this one: the requirement changed",
                })  # fmt: skip
            if not old:
                ops.append({"op": "ADD", "candidate": number})
        if self.shape:
            ops = [_mem0(o, names=self.shape == "mem0") for o in ops]
            if self.shape == "mem0" and len(candidates) == 1:
                ops = [{k: v for k, v in o.items() if k != "candidate"} for o in ops]
        return json.dumps({"operations": ops})

    # same question -------------------------------------------------------------------------

    def _question_rules(self, case: Case, text: str) -> set[str]:
        answers = [e for e in case.events if e.kind == "owner_answer"]
        if not answers:
            return set()
        seen = words(text)
        event = max(answers, key=lambda e: _overlap(seen, words(e.payload.get("question"))))
        return {r.name for r in case.rules if event.id in r.events}

    def _same_question(
        self, case: Case, question: dict[str, Any], open_questions: list[dict[str, Any]]
    ) -> str:
        mine = self._question_rules(case, str(question.get("text", "")))
        same = [
            int(q["id"])
            for q in open_questions
            if mine & self._question_rules(case, str(q.get("text", "")))
        ]
        return json.dumps({"same_as": same or None})


def _safe(text: str) -> str:
    """No angle brackets: the answer's structure is the oracle's own."""
    return text.replace("<", "‹").replace(">", "›").strip() or "(empty)"


def _render(block: Any, bare: bool = False) -> str:
    """A lesson block; ``bare``: only the two fields the contract requires (no mistake, no
    tags), as a terse model writes it."""
    tags = "" if bare else f"<tags>{', '.join(block.tags)}</tags>"
    mistake = f"<mistake>{_safe(block.mistake)}</mistake>" if block.mistake and not bare else ""
    return (
        f"<lesson><situation>{_safe(block.situation)}</situation>{mistake}"
        f"<correction>{_safe(block.correction)}</correction>{tags}</lesson>"
    )

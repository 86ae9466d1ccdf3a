"""``offline/rules``: the deterministic judge, the model seam's in-memory twin.

It is the in-memory twin of a real model: it reads the structured blocks the prompts already
carry (the ``<event>`` JSON) and answers in the same output contract a real model must follow,
so one pipeline serves both. It is honest about being rules:

- tool error → a lesson about that tool (missing parameter, bad format, unknown id, permission);
- failure with an error but no tool detail → a lesson about that failure mode;
- transient timeouts, rate limits and outages → ``<skip>`` (a retry fixes those, not a lesson);
- operator edit → a preference lesson (rejected draft → what not to send);
- owner answer → a fact lesson.

A run's text is untrusted (DESIGN §8, issue 12): the rules' lessons about a run are written in
their own fixed words, and whatever they show of the run (the error, the task, the arguments)
is a bounded, escaped quotation marked as observed (``digest.text.quoted``): «…». Every field
of every block is HTML-escaped, so quoted text can never close a field or open a block.

The rule functions are pure (``judge_event``, ``answer``) and import nothing heavy: the model
seam (``digest.model.seam``) calls ``answer`` directly for ``offline/*`` model strings, so the
offline pipeline never imports litellm. For litellm users the same rules are also registered
as a litellm custom provider (``digest.model.offline_provider``).
"""

from __future__ import annotations

import difflib
import html
import json
import re
from typing import Any

from digest.errors import OfflineRulesError
from digest.model.contracts import change_note
from digest.text import (
    NEGATION,
    is_tool_name,
    lesson_text,
    negation_flipped,
    quoted,
    score,
    tool_label,
)

#: model strings answered by these rules, in process
PREFIX = "offline/"


def is_offline_model(model: str) -> bool:
    """Is ``model`` answered in process by these rules (no network, no litellm)?"""
    return model.startswith(PREFIX)


TRANSIENT = re.compile(
    r"time[ds]?[\s_-]?out|deadline exceeded|rate[\s_-]?limit|too many requests|\b429\b|"
    r"\b50[234]\b|temporar(?:y|ily)|unavailable|overloaded|connection (?:reset|refused|aborted)|"
    r"try again later|econnreset",
    re.IGNORECASE,
)

_CATEGORIES: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "permission",
        re.compile(r"permission|forbidden|unauthori[sz]ed|\b40[13]\b|not allowed", re.I),
    ),
    ("missing-parameter", re.compile(r"missing|required|must provide|not provided", re.I)),
    ("not-found", re.compile(r"not found|\b404\b|unknown|does not exist|no such", re.I)),
    ("bad-format", re.compile(r"invalid|malformed|format|must be|expected|out of range", re.I)),
)


def _first_line(text: str, limit: int = 300) -> str:
    line = next((part.strip() for part in str(text).splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _category(error: str) -> str:
    for name, pattern in _CATEGORIES:
        if pattern.search(error):
            return name
    return "tool-failure"


#: what the rules advise, per error category: their own fixed words, never the run's
_ADVICE = {
    "permission": "Do not retry {tool} after a permission error; escalate to a person.",
    "missing-parameter": "Before calling {tool}, make sure every required parameter is present.",
    "not-found": "Look up and confirm the identifier before calling {tool}; never guess it.",
    "bad-format": "Check the arguments of {tool} against the expected format before calling it.",
    "tool-failure": (
        "When {tool} fails, change the arguments or the approach instead of calling it again "
        "unchanged."
    ),
}


def _tool_correction(tool: str, category: str, error: str, repeated: bool) -> str:
    """The fixed advice for ``category``, then the error as an observed quotation."""
    label = tool_label(tool)
    advice = _ADVICE[category].format(tool=label)
    if repeated:
        advice = f"Do not repeat a failing {label} call with the same arguments; " + (
            advice[0].lower() + advice[1:]
        )
    return f"{advice} Observed: {label} failed with {quoted(error)}."


def _block(situation: str, mistake: str, correction: str, tags: list[str]) -> str:
    """A ``<lesson>`` block. Every field is escaped: text quoted from an event can neither
    close a field nor open a block of its own (the parser unescapes fields)."""

    def field(text: str) -> str:
        return html.escape(text, quote=False)

    return (
        "<lesson>\n"
        f"<situation>{field(situation)}</situation>\n"
        f"<mistake>{field(mistake)}</mistake>\n"
        f"<correction>{field(correction)}</correction>\n"
        f"<tags>{field(', '.join(tags))}</tags>\n"
        "</lesson>"
    )


def _skip(reason: str) -> str:
    return f"<skip>{html.escape(reason, quote=False)}</skip>"


def _judge_run(event: dict[str, Any]) -> str:
    """A run's text is untrusted: it is only ever quoted (bounded, escaped, marked as
    observed); the situation, the mistake's frame and the correction are the rules' own."""
    payload = event.get("payload", {})
    task = quoted(_first_line(payload.get("task", ""), 400), 100)
    outcome = payload.get("outcome")
    failing = [
        tc for tc in payload.get("tool_calls") or [] if tc.get("error") or tc.get("ok") is False
    ]
    top_error = payload.get("error") or ""
    errors = [str(tc.get("error") or "failed without a message") for tc in failing]
    if top_error:
        errors.append(str(top_error))
    if not errors:
        if outcome == "success":
            return _skip("successful run with no errors: nothing to correct")
        return _skip(f"{outcome} run without an error message: nothing specific to learn")
    if all(TRANSIENT.search(e) for e in errors):
        return _skip(f"transient fault ({_first_line(errors[0], 120)}): a retry fixes it")

    lessons: list[str] = []
    seen_tools: dict[str, list[dict[str, Any]]] = {}
    for tc in failing:
        if not TRANSIENT.search(str(tc.get("error") or "")):
            seen_tools.setdefault(str(tc.get("tool")), []).append(tc)
    for tool, calls in list(seen_tools.items())[:3]:
        error = _first_line(str(calls[0].get("error") or "failed without a message"))
        args_seen = [json.dumps(c.get("args"), sort_keys=True) for c in calls]
        repeated = len(args_seen) != len(set(args_seen))
        category = _category(error)
        label = tool_label(tool)
        mistake = f"Called {label} with {quoted(args_seen[0], 120)} and it failed: {quoted(error)}"
        if repeated:
            mistake += " (the same failing call was repeated)"
        tags = [tool if is_tool_name(tool) else "tool", "tool-error", category]
        lessons.append(
            _block(
                f"Calling the {label} tool, e.g. while working on {task}",
                mistake,
                _tool_correction(tool, category, error, repeated),
                tags,
            )
        )
    if not lessons and top_error and not TRANSIENT.search(top_error):
        error = quoted(_first_line(top_error))
        summary = _first_line(payload.get("attempt_summary") or "", 400)
        mistake = f"The run ended {outcome} with {error}"
        if summary:
            mistake += f"; the approach that failed: {quoted(summary, 120)}"
        correction = "Check for this failure before finishing a task like this one."
        if outcome == "escalated":
            correction = "Recognise this case early and escalate with the reason."
        correction += f" Observed: {error}."
        lessons.append(
            _block(f"Working on a task like {task}", mistake, correction, [str(outcome), "failure"])
        )
    if not lessons:
        return _skip("only transient faults among the errors: a retry fixes them")
    return "\n".join(lessons)


def _word_changes(original: str, final: str) -> tuple[list[str], list[str]]:
    a, b = original.split(), final.split()
    removed: list[str] = []
    added: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            removed.append(" ".join(a[i1:i2]))
        if op in ("replace", "insert"):
            added.append(" ".join(b[j1:j2]))
    return removed, added


def _judge_edit(event: dict[str, Any]) -> str:
    payload = event.get("payload", {})
    original = _first_line(payload.get("original", ""), 300)
    final = payload.get("final")
    context = _first_line(payload.get("context") or "", 160)
    situation = f"Drafting a reply: {context}" if context else "Drafting a reply like this one"
    if final is None:
        return _block(
            situation,
            f'Drafted "{original}" and the operator rejected it outright.',
            "Do not send a draft like this one; when unsure, ask the operator first.",
            ["operator-edit", "rejected-draft"],
        )
    removed, added = _word_changes(payload.get("original", ""), final)
    changes = []
    if removed:
        changes.append("removed: " + "; ".join(f'"{_first_line(r, 60)}"' for r in removed[:3]))
    if added:
        changes.append("added: " + "; ".join(f'"{_first_line(a, 60)}"' for a in added[:3]))
    detail = f" ({', '.join(changes)})" if changes else ""
    return _block(
        situation,
        f'Drafted "{original}"; the operator rewrote it{detail}.',
        f'Write replies like this the way the operator does: "{_first_line(final, 400)}"',
        ["operator-edit", "preference"],
    )


def _judge_answer(event: dict[str, Any]) -> str:
    payload = event.get("payload", {})
    question = _first_line(payload.get("question", ""), 200)
    answer = " ".join(str(payload.get("answer", "")).split())[:1000]
    return _block(
        f"Asked: {question}",
        "The agent did not know this and had to ask the owner.",
        f'When asked "{question}", answer with the owner\'s facts: {answer}',
        ["owner-answer", "fact"],
    )


def judge_event(event: dict[str, Any]) -> str:
    """Answer a reflect request for one event, in the reflect output contract."""
    kind = event.get("kind")
    if kind == "run_outcome":
        return _judge_run(event)
    if kind == "operator_edit":
        return _judge_edit(event)
    if kind == "owner_answer":
        return _judge_answer(event)
    return _skip(f"offline/rules has no rule for {kind!r} events")


ADDED_BLOCK = re.compile(r"<added>\s*(.*?)\s*</added>", re.DOTALL)
CHANGED_BLOCK = re.compile(r"<changed>\s*(.*?)\s*</changed>", re.DOTALL)
RETIRED_BLOCK = re.compile(r"<retired>\s*(.*?)\s*</retired>", re.DOTALL)
EVENT_BLOCK = re.compile(r"<event>\s*(.*?)\s*</event>", re.DOTALL)
EXISTING_BLOCK = re.compile(r"<existing>\s*(.*?)\s*</existing>", re.DOTALL)
CANDIDATES_BLOCK = re.compile(r"<candidates>\s*(.*?)\s*</candidates>", re.DOTALL)

#: rule thresholds on the relevance / identity scores of digest.text
SAME_IDENTITY = 0.85
SAME_TOPIC = 0.8
#: …and at least this much of the same wording (shared templates inflate token-set relevance)
SAME_TOPIC_IDENTITY = 0.7
#: with the negation words removed, a contradiction reads (nearly) the same as the old lesson
CONTRADICTION_IDENTITY = 0.8


def _contradicts(new: str, old: str) -> bool:
    """Explicit negation: the same statement with the negation flipped ("always ship X" vs
    "never ship X"). Texts that merely share a topic are not contradictions."""
    if not negation_flipped(new, old):
        return False
    strip = re.compile(NEGATION.pattern + r"|\b(always|only)\b", re.I)
    return score(strip.sub(" ", new), strip.sub(" ", old))[1] >= CONTRADICTION_IDENTITY


def reconcile(existing: list[dict[str, Any]], candidates: list[dict[str, Any]]) -> str:
    """Answer a reconcile request by text similarity and explicit negation.

    Per candidate, against the most relevant existing lesson: nearly the same words → NOOP;
    same topic with the negation flipped → DELETE (a contradiction); same topic and the
    candidate says more → UPDATE with the candidate's fuller text; same topic otherwise →
    NOOP; nothing on the same topic → ADD.
    """
    operations: list[dict[str, Any]] = []
    for cand in candidates:
        text = lesson_text(str(cand.get("situation", "")), str(cand.get("correction", "")))
        best: tuple[float, float, int] | None = None
        for item in existing:
            relevance, identity = score(
                text, lesson_text(str(item.get("situation", "")), str(item.get("correction", "")))
            )
            key = (relevance, identity, -int(item["id"]))
            if best is None or key > best:
                best = key
        index = cand.get("candidate")
        if best is None or best[0] < SAME_TOPIC or best[1] < SAME_TOPIC_IDENTITY:
            operations.append({"op": "ADD", "candidate": index})
            continue
        relevance, identity, neg_id = best
        old = next(item for item in existing if item["id"] == -neg_id)
        old_text = lesson_text(str(old.get("situation", "")), str(old.get("correction", "")))
        if _contradicts(text, old_text):
            operations.append(
                {
                    "op": "DELETE",
                    "candidate": index,
                    "id": old["id"],
                    "reason": "the candidate negates what the existing lesson says",
                }
            )
        elif identity >= SAME_IDENTITY:
            operations.append({"op": "NOOP", "candidate": index, "id": old["id"]})
        elif len(text.split()) > len(old_text.split()):
            merged_tags = list(dict.fromkeys([*(old.get("tags") or []), *(cand.get("tags") or [])]))
            operations.append(
                {
                    "op": "UPDATE",
                    "candidate": index,
                    "id": old["id"],
                    "lesson": {
                        "situation": cand.get("situation"),
                        "mistake": cand.get("mistake") or old.get("mistake"),
                        "correction": cand.get("correction"),
                        "tags": merged_tags,
                    },
                    "reason": "the candidate adds detail to the same lesson",
                }
            )
        else:
            operations.append({"op": "NOOP", "candidate": index, "id": old["id"]})
    return json.dumps({"operations": operations})


def answer(messages: list[dict[str, Any]]) -> str:
    """Dispatch on what the prompt carries; raise for a request no rule understands."""
    text = "\n".join(str(m.get("content") or "") for m in messages if m.get("role") == "user")
    blocks = [b.search(text) for b in (ADDED_BLOCK, CHANGED_BLOCK, RETIRED_BLOCK)]
    if all(blocks):
        try:
            lists = [json.loads(b.group(1)) for b in blocks if b]
            return change_note(*([str(t) for t in items] for items in lists))
        except (json.JSONDecodeError, TypeError) as exc:
            raise OfflineRulesError(f"bad summarize blocks: {exc}") from exc
    existing, candidates = EXISTING_BLOCK.search(text), CANDIDATES_BLOCK.search(text)
    if existing and candidates:
        try:
            return reconcile(json.loads(existing.group(1)), json.loads(candidates.group(1)))
        except (json.JSONDecodeError, KeyError, TypeError, ValueError) as exc:
            raise OfflineRulesError(f"bad reconcile blocks: {exc}") from exc
    found = EVENT_BLOCK.search(text)
    if found:
        try:
            event = json.loads(found.group(1))
        except json.JSONDecodeError as exc:
            raise OfflineRulesError(f"<event> is not JSON: {exc}") from exc
        return judge_event(event)
    raise OfflineRulesError("offline/rules found no block it can judge")


def token_estimate(messages: list[dict[str, Any]], text: str) -> tuple[int, int]:
    """(prompt, completion) tokens as the rules report them: about four characters a token."""
    prompt_chars = sum(len(str(m.get("content") or "")) for m in messages)
    return prompt_chars // 4 + 1, len(text) // 4 + 1

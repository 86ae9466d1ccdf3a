"""``offline/rules`` answering a reflect request: one event judged by fixed rules, answered in
the reflect output contract (``<skip>`` or up to three ``<lesson>`` blocks).

- tool error → a lesson about that error: its family (out of stock, balance too low, already
  cancelled, status does not allow it, limit exceeded, not found, …; ``error_families``) picks
  the remedy, which is the lesson's title; one lesson per distinct error of the run, up to three;
- failure with an error but no tool detail → a lesson about that failure mode;
- transient timeouts, rate limits and outages → ``<skip>`` (a retry fixes those, not a lesson);
- operator edit → one lesson per rule it teaches: its content, a promise, its tone (rejected
  draft → what not to send);
- owner answer → a fact lesson.

A run's text is untrusted: the lessons are written in the rules' own fixed words, and what
they show of the run is a bounded, escaped quotation marked as observed (``digest.text.quoted``)
of the error with its ids masked. The user's task never appears in a lesson: its telling
words are the lesson's cues, which the pipeline keeps for retrieval whatever the judge
(``digest.lessons.cues``) and no agent reads.
Every field of every block is HTML-escaped, so quoted text can never close a field or open a
block.
"""

from __future__ import annotations

import html
import json
from typing import Any

from digest.edit_content import main_clause_first
from digest.edits import EditRule, taught
from digest.fingerprint import call_error, mask_ids, run_failures, telling_line, tool_key
from digest.model.contracts import MAX_LESSONS
from digest.model.error_families import TOOL_FAILURE, Family, family_of
from digest.model.error_reading import (
    family_in,
    named_argument,
    passed_family,
    precondition,
    remedy_of_condition,
    without_label,
)
from digest.model.error_statement import statement
from digest.model.transient import lasting, transient
from digest.reply_text import mask_reply_ids
from digest.text import QUOTE_MAX, is_tool_name, quoted, tool_label

#: a title is the correction's first sentence when that has at most this many characters
#: (``digest.lessons.store.TITLE_SHORT``), else its first clause: the remedy
TITLE_ROOM = 90
#: how much of an error that states a change is quoted as observed: the change is often its
#: last sentence ("…(z. B. 42300); Textangaben werden nicht mehr akzeptiert"), and what it
#: reverses is read there
CHANGE_QUOTE_MAX = 2 * QUOTE_MAX


#: the situation of an operator's edit, then ": <the edit's context>", or "that would say
#: «<what the draft said>»"
EDIT_SITUATION = "Drafting a reply"
#: the mistake of a content rule whose words replaced the draft's (``offline_edit_rules``
#: reads the draft's words back: an edit replacing what an earlier rule says reverses it)
REPLACED_DRAFT = "The draft said {}; the operator replaced it with {}."
#: …or, for an edit reported without a context, a situation any edit shares
NO_CONTEXT_SITUATION = f"{EDIT_SITUATION} like this one"


def _first_line(text: str, limit: int = 300) -> str:
    line = next((part.strip() for part in str(text).splitlines() if part.strip()), "")
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _correction(
    remedy: str,
    failed: str,
    family: Family,
    error: str,
    advice: str,
    *more: str,
    shown: str | None = None,
) -> str:
    """The remedy and what the error states, as the first sentence (the lesson's title:
    "Check that the item is in stock first: `place_order` fails with «item out of stock»"),
    then ``advice``, ``more``, and the whole error when the title quoted only part of it.

    ``failed`` is what failed ("`place_order` fails with"); ``error`` what the error says
    (``error_statement``) with its ids masked, ``shown`` its line as the tool wrote it (masked
    too) when that differs (a JSON body, a validation error). Both quotations are the run's
    text: bounded, escaped, marked as observed."""
    head = f"{remedy}: {failed} "
    said = precondition(error, family, TITLE_ROOM - len(head) - 3)
    sentences = [f"{head}{quoted(said)}.", advice]
    sentences += more
    shown = error if shown is None else shown
    if said != without_label(shown):
        limit = CHANGE_QUOTE_MAX if family.name == "requirement-changed" else QUOTE_MAX
        sentences.append(
            f"Observed: {failed.replace(' fails ', ' failed ')} {quoted(shown, limit)}."
        )
    return " ".join(sentences)


def _tool_correction(
    label: str, family: Family, error: str, shown: str, argument: str | None, repeated: bool
) -> str:
    """The family's remedy for a tool's error (naming the argument the error names, when the
    call passed it), its advice, and the error as an observed quotation."""
    remedy = family.remedy
    if family is TOOL_FAILURE:
        remedy = remedy_of_condition(error) or remedy
    if argument is not None and family.remedy_for is not None:
        remedy = family.remedy_for.format(arg=f"`{argument}`")
    more = [f"Do not repeat a failing {label} call with the same arguments."] if repeated else []
    failed = f"{label} fails with"
    return _correction(remedy, failed, family, error, family.advice, *more, shown=shown)


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
    observed); the situation, the mistake's frame and the correction are the rules' own.

    One lesson per distinct way the run failed (a tool and its error's template, or the run's
    own error), up to the contract's three: different errors of one tool are different
    lessons, and the same error with other ids is the same one (``run_failures``)."""
    payload = event.get("payload", {})
    outcome = payload.get("outcome")
    calls = [tc for tc in payload.get("tool_calls") or [] if isinstance(tc, dict)]
    failing = [tc for tc in calls if tc.get("error") or tc.get("ok") is False]
    top_error = payload.get("error") or ""
    tool_errors = [str(tc.get("error") or "failed without a message") for tc in failing]
    errors = list(tool_errors)
    if top_error:
        errors.append(str(top_error))
    if not errors:
        if outcome == "success":
            return _skip("successful run with no errors: nothing to correct")
        return _skip(f"{outcome} run without an error message: nothing specific to learn")
    if all(transient(e) for e in errors):
        return _skip(f"transient fault ({_first_line(errors[0], 120)}): a retry fixes it")

    lessons: list[str] = []
    for failure in run_failures(payload):
        if len(lessons) == MAX_LESSONS:
            break
        if failure.tool is None:
            if transient(str(top_error)) or _restates(str(top_error), tool_errors):
                continue
            lessons.append(_run_error_lesson(payload, str(outcome)))
            continue
        same = [
            tc for tc in failing
            if str(tc.get("tool")) == failure.tool
            and tool_key(failure.tool, call_error(tc)) == failure.key
        ]  # fmt: skip
        error = str(same[0].get("error") or "failed without a message")
        first = _first_line(telling_line(error))
        if (transient(first) or transient(statement(error))) and not lasting(error):
            continue
        lessons.append(_tool_lesson(failure.tool, same, error))
    if not lessons:
        return _skip("only transient faults among the errors: a retry fixes them")
    return "\n".join(lessons)


def _tool_lesson(tool: str, calls: list[dict[str, Any]], error: str) -> str:
    """The lesson of one error of a tool: what to do about its family (``error_families``,
    read from what the error says: ``error_statement``), in the rules' words; the error only
    as an observed quotation, the task not at all."""
    args_seen = [json.dumps(c.get("args"), sort_keys=True) for c in calls]
    repeated = len(args_seen) != len(set(args_seen))
    said = _first_line(statement(error))
    family = passed_family(family_in(said, error), said, calls[0].get("args"))
    label = tool_label(tool)
    # a JSON body, Go structs are quoted as what they say, not as their keys and braces
    masked = mask_ids(said)
    mistake = f"Called {label} with {quoted(args_seen[0], 120)} and it failed: {quoted(masked)}"
    if repeated:
        mistake += " (the same failing call was repeated)"
    argument = named_argument(said, calls[0].get("args"), family)
    tags = [tool if is_tool_name(tool) else "tool", "tool-error", family.name]
    return _block(
        f"Calling the {label} tool" + (f" when {family.when}" if family.when else ""),
        mistake,
        _tool_correction(label, family, mask_ids(said), masked, argument, repeated),
        tags,
    )


def _restates(top_error: str, tool_errors: list[str]) -> bool:
    """The run's own error, beside failed tool calls, only says how the run ended ("refund
    was not issued") or tells a tool's failure again ("could not find the customer's order"
    beside «order 99812 not found»): no family of its own, or the family of one of the tool
    errors. The tool errors are what it teaches then; a run error of another family (a
    permission refused beside a missing argument) is its own failure with its own lesson."""
    if not tool_errors:
        return False
    family = family_of(_first_line(statement(top_error)))
    return family is TOOL_FAILURE or any(
        family_of(statement(error)) is family for error in tool_errors
    )


#: how a run ended, as the verb of "the run … with «error»"
_ENDED = {"failure": "failed", "escalated": "was escalated", "abandoned": "was abandoned"}


def _run_error_lesson(payload: dict[str, Any], outcome: str) -> str:
    """The lesson of the run's own error (no tool named): its family's remedy, or, for an
    error of no known family, to catch the failure before finishing (or escalate early)."""
    line = _first_line(payload.get("error") or "")
    error = mask_ids(line)
    family = family_of(statement(line))
    summary = _first_line(payload.get("attempt_summary") or "", 400)
    ended = _ENDED.get(outcome, f"ended {outcome}")
    mistake = f"The run {ended} with {quoted(error)}"
    if summary:
        mistake += f"; the approach that failed: {quoted(summary, 120)}"
    remedy, advice = family.remedy, family.advice
    situation = f"Working on a task when {family.when}"
    if family is TOOL_FAILURE:
        # short remedies: the title has room to quote the error, which tells two apart
        remedy = "Check the result before finishing"
        advice = "Check for this failure before finishing the task: finishing without "
        advice += "checking ends the same way."
        if outcome == "escalated":
            remedy = "Escalate early"
            advice = "Recognise this case early and hand it to a person with the reason: "
            advice += "finding it late costs the customer a wasted conversation."
        situation = f"Working on a task that can end this way ({outcome})"
    failed = f"the run {ended} with"
    correction = _correction(remedy, failed, family, error, advice)
    return _block(situation, mistake, correction, [outcome, "failure", family.name])


#: what each shape rule an edit shows (``edit_rules``) teaches, in the rules' own words
_EDIT_ADVICE = {
    "removed-promise": "Do not promise dates, refunds or outcomes nobody has confirmed.",
    "added-promise": "Give the concrete commitment the operator adds when it is confirmed.",
    "removed-greeting": "Skip the greeting; open with the answer.",
    "added-greeting": "Open the reply with a greeting.",
    "removed-sign-off": "Leave out the sign-off.",
    "added-sign-off": "Close the reply with a sign-off.",
    "shorter-apology": "Keep an apology to one short sentence; then get to the point.",
    "removed-apology": "Do not apologise when nothing went wrong.",
    "added-apology": "Acknowledge the customer's trouble with an apology.",
    "removed-exclamation": "Keep a calm tone: no exclamation marks.",
    "added-exclamation": "Use a warmer, more enthusiastic tone.",
    "removed-emoji": "Do not use emoji in replies.",
    "added-emoji": "Use the emoji the operator adds to replies like this.",
    "shorter": "Keep replies like this short: say only what the customer needs.",
    "longer": "Give fuller replies like this: the operator adds the detail the customer needs.",
    "formal-address": "Address the customer formally (Sie, vous, usted, u), as the operator does.",
    "informal-address": "Address the customer informally (du, tu, je), as the operator does.",
    "added-name": "Greet the customer by name, as the operator does.",
    "removed-name": "Leave the customer's name out of the greeting.",
    "removed-shorthand": "No shorthand in replies: write each word out, as the operator does.",
}
#: what each tone rule asks for, as part of one sentence about the operator's tone
_TONE_ASKS = {
    "removed-greeting": "no greeting",
    "added-greeting": "a greeting first",
    "removed-sign-off": "no sign-off",
    "added-sign-off": "a sign-off at the end",
    "shorter-apology": "one short apology",
    "removed-apology": "no apology when nothing went wrong",
    "added-apology": "an apology for the customer's trouble",
    "removed-exclamation": "no exclamation marks",
    "added-exclamation": "a warmer, enthusiastic tone",
    "removed-emoji": "no emoji",
    "added-emoji": "the emoji the operator adds",
    "shorter": "short replies with only what the customer needs",
    "longer": "fuller replies with the detail the customer needs",
    "formal-address": "the formal address (Sie, vous, usted, u)",
    "informal-address": "the informal address (du, tu, je)",
    "added-name": "the customer's name in the greeting",
    "removed-name": "no name in the greeting",
    "removed-shorthand": "no shorthand",
}
#: what a tone rule changed, as a lesson's mistake says it
_TONE_THING = {
    "greeting": "the greeting",
    "sign-off": "the sign-off",
    "apology": "an apology",
    "exclamation": "the exclamation marks",
    "emoji": "the emoji",
    "name": "the customer's name",
    "shorthand": "the shorthand",
}


def _and(items: list[str]) -> str:
    return items[0] if len(items) == 1 else ", ".join(items[:-1]) + " and " + items[-1]


def _greeting_of(name: str) -> str:
    """``greeting-dear`` → "Dear": the greeting the operator writes instead."""
    return name.removeprefix("greeting-").replace("-", " ").capitalize()


def _advice(name: str) -> str:
    if name.startswith("greeting-"):
        return f"Open the reply with «{_greeting_of(name)} …», as the operator does."
    return _EDIT_ADVICE[name]


def _asks(name: str) -> str:
    if name.startswith("greeting-"):
        return f"«{_greeting_of(name)} …» as the greeting"
    return _TONE_ASKS[name]


def _tone_done(names: tuple[str, ...]) -> str:
    """What the tone rules changed: "removed the greeting and the emoji; made it shorter"."""
    parts = []
    for verb in ("removed", "added"):
        things = [_TONE_THING[n.split("-", 1)[1]] for n in names if n.startswith(f"{verb}-")]
        if things:
            parts.append(f"{verb} {_and(things)}")
    parts += [f"greeted with «{_greeting_of(n)}»" for n in names if n.startswith("greeting-")]
    parts += ["cut the apology short" for n in names if n == "shorter-apology"]
    parts += [f"switched to the {n.split('-')[0]} address" for n in names if n.endswith("-address")]
    parts += [f"made it {n}" for n in names if n in ("shorter", "longer")]
    return "; ".join(parts)


def _short(text: str, limit: int = 60) -> str:
    """A phrase for a lesson about an edit: one line, ids masked (a lesson is about the rule,
    not about order 4412), at most ``limit`` characters, cut at a word."""
    line = mask_ids(_first_line(text, 400))
    if len(line) <= limit:
        return line
    return line[:limit].rsplit(" ", 1)[0].rstrip(",;:")


def _words_of(text: str, limit: int = QUOTE_MAX) -> str:
    """What an operator or a draft said, as a lesson quotes it: ids masked (``order <id>``),
    sentence ends kept inside, bounded and escaped as an observed quotation."""
    return quoted(mask_reply_ids(text).rstrip(" ."), limit)


def _edit_lesson(rule: EditRule, situation: str) -> str:
    """The lesson of one rule an edit teaches (``digest.edits``), in the rules' own words; the
    operator's content as a quotation with its ids masked (an operator's edit is trusted)."""
    if rule.family == "content" and rule.names == ("left-out",):
        return _block(
            situation,
            f"The draft said {_words_of(rule.unsaid)}; the operator took it out.",
            f"Leave out {_words_of(rule.unsaid)} in replies like this, as the operator does.",
            ["operator-edit", "content", "left-out"],
        )
    if rule.family == "content":
        mistake = (
            REPLACED_DRAFT.format(_words_of(rule.unsaid), _words_of(rule.said))
            if rule.unsaid
            else f"The draft did not say what the operator added: {_words_of(rule.said)}."
        )
        return _block(
            situation,
            mistake,
            f"Say {_words_of(main_clause_first(rule.said))} in replies like this.",
            ["operator-edit", "content"],
        )
    if rule.family == "promise":
        [name] = rule.names
        advice = _EDIT_ADVICE[name]
        if rule.unsaid:
            mistake = f"The draft promised {_words_of(rule.unsaid)}; the operator took it out."
            if rule.said:  # what the operator wrote in the promise's place
                advice += f" Say what it depends on, as the operator does: {_words_of(rule.said)}."
        elif rule.said:
            mistake = f"The operator added a commitment: {_words_of(rule.said)}."
        else:
            mistake = f"The operator {name.split('-')[0]} a promise."
        return _block(situation, mistake, advice, ["operator-edit", "promise", name])
    return _block(situation, *tone_lesson(rule.names))


def tone_lesson(names: tuple[str, ...]) -> tuple[str, str, list[str]]:
    """The mistake, correction and tags of the lesson about an operator's tone rules (the
    shape rules' ``names``: one tone, one lesson)."""
    if len(names) == 1:
        advice = _advice(names[0])
    else:
        advice = f"Match the operator's tone: {_and([_asks(n) for n in names])}."
    mistake = f"The operator edited the draft's tone: {_tone_done(names)}."
    return mistake, advice, ["operator-edit", "tone", *names]


def _judge_edit(event: dict[str, Any]) -> str:
    """An operator's edit teaches each rule its diff shows (``digest.edits.taught``), one
    lesson per rule: what the final says that the draft did not (content), a promise removed
    or added, the tone and shape (greeting, exclamation marks, emoji, length: one lesson).
    At most three, one per family, content first; a rejected draft teaches what not to send."""
    payload = event.get("payload", {})
    original = str(payload.get("original", ""))
    final = payload.get("final")
    context = _short(payload.get("context") or "", 120)
    situation = f"{EDIT_SITUATION}: {context}" if context else NO_CONTEXT_SITUATION
    if final is None:
        return _block(
            situation,
            f'The operator rejected the draft "{_short(original, 120)}" outright.',
            "Do not send a draft like the rejected one; when unsure, ask the operator first. "
            f'Rejected: "{_short(original, 120)}"',
            ["operator-edit", "rejected-draft"],
        )
    lessons = []
    for rule in taught(original, str(final))[:MAX_LESSONS]:
        about = situation
        if not context and rule.family == "content" and rule.unsaid:
            about = f"{EDIT_SITUATION} that would say {_words_of(rule.unsaid, 100)}"
        lessons.append(_edit_lesson(rule, about))
    return "\n".join(lessons)


def _judge_answer(event: dict[str, Any]) -> str:
    """An owner's answer is a fact about one question: the question is the lesson's identity
    (its fingerprint), the answer its content."""
    payload = event.get("payload", {})
    question = _first_line(payload.get("question", ""), 200)
    answer = " ".join(str(payload.get("answer", "")).split())[:1000]
    return _block(
        f"Asked: {question}",
        "The agent did not know this and had to ask the owner.",
        f'Answer "{question}" with the owner\'s facts. {answer}',
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

"""Fingerprints: the structural identity of an event and of a lesson (issue 13).

Words alone cannot tell "the same lesson" from "a lesson that looks alike": lessons written
from one template ("When asked …, answer with the owner's facts: …") make different facts
read alike, while one error reported with other order numbers reads different. A fingerprint
says what a lesson is *about*, the way error trackers group issues:

- ``tool:`` a tool failure: the tool's name and the error's template, with what varies from
  one occurrence to the next masked (ids, quoted values, hex, UUIDs, e-mail addresses, URLs,
  paths, dates and times) and the figures that are the rule kept (a status code, a limit, a
  version: ``digest.masking``);
- ``run:`` a failed run with no tool detail: its outcome and the template of its error;
- ``answer:`` an owner's answer: the normalised question (a new answer to the same question
  is the same lesson, changed; another question is another lesson);
- ``edit:`` an operator's edit: one key per rule it teaches (``digest.edits``), the rule's
  family as the subject: its content (what the final says, ids masked), a promise removed or
  added, its tone (greeting, exclamation marks, emoji, length …, together), a rejected draft;
- ``manual:`` a lesson a person wrote: its signature (the name before the colon).

A key is ``kind:digest``, or ``kind:subject-digest`` when the key knows what it is about
beyond its own digest (a tool's failures share the tool as their subject). Fingerprints find,
they do not forbid (DESIGN §8a): the same key is the strongest neighbour and a free NOOP; two
different keys of one strict kind (``distinct``) are usually two lessons, but a tool whose API
changed, or a rule that was reversed, gives a new key on the same subject, and whether the
newer supersedes the older is for the judge to say (``same_subject``, ``digest.reflect.
reconcile``). Keys of different kinds (a person's lesson and a run's), and two signatures a
person gave, may still be the same lesson; that is for the neighbour scores and the model.
"""

from __future__ import annotations

import hashlib
import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from digest.edit_assign import assign as assign_edits
from digest.edits import FAMILIES as edit_families
from digest.edits import EditRule, taught
from digest.edits import edit_rules as edit_rules  # callers read an edit's shape here
from digest.masking import TEMPLATE_MAX as TEMPLATE_MAX
from digest.masking import error_template as error_template
from digest.masking import mask_ids as mask_ids
from digest.masking import telling_line as telling_line

_SPACE = re.compile(r"\s+")
_PUNCT = re.compile(r"[^\w\s<>]+")


def normalised_question(question: str) -> str:
    """A question as its identity: case, accents' forms, punctuation and spacing removed.
    Numbers and names stay: "item 42" and "item 43" are different questions."""
    text = unicodedata.normalize("NFKC", str(question)).casefold()
    return _SPACE.sub(" ", _PUNCT.sub(" ", text)).strip()


def _key(kind: str, *parts: str, subject: str | None = None) -> str:
    material = "\x1f".join(parts).encode("utf-8")
    digest = hashlib.sha256(material).hexdigest()[:16]
    if subject is None:
        return f"{kind}:{digest}"
    return f"{kind}:{hashlib.sha256(subject.encode('utf-8')).hexdigest()[:8]}-{digest}"


def kind_of(key: str | None) -> str | None:
    if not key:
        return None
    return key.partition(":")[0]


#: kinds whose key is the whole identity: two keys of one such kind are two lessons. (Two
#: signatures a person gave may still name one rule: manual keys are never ``distinct``.)
STRICT_KINDS = frozenset({"tool", "run", "answer", "edit"})
#: kinds whose key names a fact a person states: the same key in other words is the fact
#: changed (an UPDATE that keeps the old text in history), never a repeat to NOOP
FACT_KINDS = frozenset({"answer", "manual"})


#: kinds compared as one: a tool's failure and a run's own error are both ways a run failed
_FAMILY = {"tool": "failure", "run": "failure"}


def _family(key: str | None) -> str | None:
    if not key:
        return None
    kind = key.partition(":")[0]  # kind_of, inline: read for every pair of keys compared
    return _FAMILY.get(kind, kind) if kind else None


def tells_a_failure(key: str | None) -> bool:
    """Is ``key`` a lesson's about how a run failed (a tool's error, a run's own error)?"""
    return _family(key) == "failure"


def distinct(a: str | None, b: str | None) -> bool:
    """Are these two keys of one strict kind (a tool's and a run's failure count as one kind)
    and different: two different lessons, whatever their words? Keys of different kinds,
    manual keys, and a missing key say nothing."""
    return bool(a and b and a != b and _family(a) == _family(b) and kind_of(a) in STRICT_KINDS)


def other_kind(a: str | None, b: str | None) -> bool:
    """Are both keys known and of different kinds (a tool's and a run's failure are one)?"""
    return bool(a and b and _family(a) != _family(b))


def states_a_fact(key: str | None) -> bool:
    return kind_of(key) in FACT_KINDS


def same(a: str | None, b: str | None) -> bool:
    return bool(a and b and a == b)


def subject_of(key: str | None) -> str | None:
    """What a key is about beyond its own digest (``kind:subject-digest``), or None when the
    key names no subject (an owner's question, a run's own error, a key made before subjects)."""
    if not key:
        return None
    _, colon, rest = key.partition(":")
    if not colon:
        return None
    subject, dash, _ = rest.partition("-")
    return subject if dash else None


def same_subject(a: str | None, b: str | None) -> bool:
    """Are two keys of one family about the same subject (two errors of one tool)?"""
    subject = subject_of(a)
    return bool(subject and _family(a) == _family(b) and subject == subject_of(b))


def other_subject(a: str | None, b: str | None) -> bool:
    """Are two ``distinct`` keys about different subjects (two tools' errors), or one with a
    subject and one without (a tool's error and a run's own)? Such keys are other lessons;
    distinct keys on one subject, or with no subject known, may still be one contested lesson
    (an API that changed, a fact restated), which only the judge can say."""
    if not distinct(a, b):
        return False
    if kind_of(a) == "edit":
        # an edit rule's family is how the reply changed, not what it is about: a date promise
        # the shape rules read as a content change ("tomorrow" → "as soon as possible") and one
        # they read as a promise removed ("by Friday" → "as soon as possible") may be one rule,
        # which only the judge can say; the tone rules are the reply's manner, apart from them
        return (edit_family(a) == "tone") != (edit_family(b) == "tone")
    return bool(subject_of(a) or subject_of(b)) and not same_subject(a, b)


# --- runs ----------------------------------------------------------------------------------


def tool_key(tool: str, error: str) -> str:
    """A tool's failure: the tool is the subject, the error's template the rest."""
    return template_key(tool, error_template(error))


def template_key(tool: str, template: str) -> str:
    """``tool_key`` of an error already read as its template."""
    name = tool_subject(tool)
    return _key("tool", name, template, subject=name)


def tool_subject(tool: str) -> str:
    """A tool's name as the subject of its failures' keys (spacing and case aside)."""
    return " ".join(str(tool).split()).lower()


def run_key(outcome: str, error: str) -> str:
    return _key("run", str(outcome), error_template(error))


def _failed(call: Any) -> bool:
    return isinstance(call, dict) and (bool(call.get("error")) or call.get("ok") is False)


@dataclass(frozen=True)
class Failure:
    """One way a run failed: a tool call's error, or the run's own error."""

    key: str
    tool: str | None
    template: str


#: where a passed value splits into the names it holds ("run --name web-3 acme/api:1.4")
_VALUE_SPLIT = re.compile(r"(?:[\s'\"`«»()\[\]{},;=]|:(?![\\/]))+")
#: a passed word that is a name, not a word of prose: joined by "-", "_", ".", "/", "@", "!"
_NAME_JOINED = re.compile(r"[-_./\\@!#]")
_LETTERED = re.compile(r"[^\W\d_]")
#: values that name no instance ("true", "none")
_NO_INSTANCE = frozenset({"true", "false", "none", "null"})
#: how many passed names an error is read for
_PASSED_NAMES = 64


def _passed_names(args: Any) -> list[str]:
    """What a call passed that its error may name back: each whole value (three characters at
    least), and each word of a value that is a name by its joints (``web-3``, ``acme/api``,
    ``Tracker 2025!A:D``): longest first."""
    names: set[str] = set()
    for value in call_values(args):
        if 3 <= len(value) <= 200 and value not in _NO_INSTANCE and _LETTERED.search(value):
            names.add(value)
        if len(value) > 4000:
            continue
        for word in _VALUE_SPLIT.split(value):
            word = word.strip(".!?")
            if len(word) >= 3 and _NAME_JOINED.search(word) and _LETTERED.search(word):
                names.add(word)
    return sorted(names, key=lambda n: (-len(n), n))[:_PASSED_NAMES]


#: a whole number a call passed (a postcode "00199", a quantity, an order number)
_WHOLE_NUMBER = re.compile(r"\d{1,20}")


def _passed_figures(args: Any) -> list[str]:
    """The whole numbers a call passed, longest first."""
    found = {v for v in call_values(args) if _WHOLE_NUMBER.fullmatch(v)}
    return sorted(found, key=lambda n: (-len(n), n))[:_PASSED_NAMES]


def named_back(error: str, args: Any) -> str:
    """``error`` with what the call passed and the error names back masked ("pull access denied
    for acme/billing-api" for ``pull acme/billing-api:1.4``, "Unable to parse range: Tracker
    2025!A:D" for ``range="Tracker 2025!A:D"``, "CAP 00199" for ``cap="00199"``): the call's
    instance, not the tool's rule, so repeats with other values share one template. A figure is
    masked whole, however short ("order 98", "order 4412"), never inside another ("1.5", "v1");
    a figure the call did not pass (a limit the tool states) stays."""
    names, numbers = _passed_names(args), _passed_figures(args)
    if names:
        alternatives = "|".join(re.escape(n) for n in names)
        error = re.sub(rf"(?<![\w])(?:{alternatives})(?![\w])", "<v>", error, flags=re.I)
    if numbers:
        alternatives = "|".join(re.escape(n) for n in numbers)
        error = re.sub(rf"(?<![\w.,])(?:{alternatives})(?![\w]|[.,]\d)", "<v>", error)
    return error


def call_error(call: dict[str, Any]) -> str:
    """A failed call's error as its template reads it: what it names back masked."""
    return named_back(str(call.get("error") or "failed without a message"), call.get("args"))


def run_failures(payload: dict[str, Any]) -> list[Failure]:
    """The distinct failures of a run, in the order they first happened: one per (tool,
    error template), then the run's own error."""
    found: dict[str, Failure] = {}
    for call in payload.get("tool_calls") or []:
        if not _failed(call):
            continue
        tool = str(call.get("tool"))
        error = call_error(call)
        key = tool_key(tool, error)
        found.setdefault(key, Failure(key, tool, error_template(error)))
    top = payload.get("error")
    if top:
        key = run_key(str(payload.get("outcome")), str(top))
        found.setdefault(key, Failure(key, None, error_template(str(top))))
    return list(found.values())


# --- operator edits -------------------------------------------------------------------------
# What an edit teaches is read in digest.edits (one rule per family: content, promise, tone);
# each rule is keyed here, with its family as the subject.


def edit_rule_key(rule: EditRule) -> str:
    """A rule an edit teaches: ``edit:<family>-<digest>`` of its names, and for content of what
    the final says (ids masked). The same tone rules across edits are one key; two contents
    are two keys on one subject, which only the judge may call one lesson."""
    return _key("edit", *rule.material, subject=rule.family)


#: the subject part of each family's keys (``subject_of``) → the family's name
_EDIT_SUBJECTS = {subject_of(_key("edit", subject=family)): family for family in edit_families}


def edit_family(key: str | None) -> str | None:
    """The family (content, promise, tone, rejected) of an edit rule's key, else None."""
    if kind_of(key) != "edit":
        return None
    return _EDIT_SUBJECTS.get(subject_of(key) or "")


def edit_keys(original: str, final: str | None) -> list[str]:
    """The keys of the rules an edit teaches, in the order its lessons are written."""
    return [edit_rule_key(rule) for rule in taught(original, final)]


def assigned_edit_rules(candidate_texts: Sequence[str], payload: dict[str, Any]) -> list[EditRule]:
    """The rule of an edit each of its lessons is about (``digest.edit_assign.assign``)."""
    original = str(payload.get("original", ""))
    rules = taught(original, payload.get("final"))
    return [rules[i] for i in assign_edits(candidate_texts, rules, original)]


def assign_edit(candidate_texts: Sequence[str], payload: dict[str, Any]) -> list[str | None]:
    """The key of the rule of an edit each of its lessons is about."""
    return [edit_rule_key(rule) for rule in assigned_edit_rules(candidate_texts, payload)]


def _changed_words(original: str, final: str) -> tuple[str, str]:
    """The templates of the words an edit removed and added (numbers and ids masked)."""
    import difflib

    a, b = original.split(), final.split()
    removed: list[str] = []
    added: list[str] = []
    for op, i1, i2, j1, j2 in difflib.SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op in ("replace", "delete"):
            removed.extend(a[i1:i2])
        if op in ("replace", "insert"):
            added.extend(b[j1:j2])
    return error_template(" ".join(removed)), error_template(" ".join(added))


def edit_key(original: str, final: str | None) -> str:
    """The whole shape of an edit (all its rules together, else the words it changed): a
    topic of a report, not a lesson's identity (``edit_keys`` are)."""
    rules = edit_rules(original, final)
    if rules:
        return _key("edit", *rules)
    return _key("edit", "rewrite", *_changed_words(original, final or ""))


# --- events and lessons -------------------------------------------------------------------


def manual_key(signature: str, body: str = "") -> str:
    """A person's lesson is keyed by its signature (the name before the colon): a new body
    under the same signature is the same rule, changed. ``body`` is not part of the key."""
    del body
    return _key("manual", normalised_question(signature))


def event_keys(kind: str, payload: dict[str, Any]) -> list[str]:
    """The fingerprints of what an event reports, one per distinct thing it could teach (a
    run failing in three ways has three); empty when it reports no failure."""
    if kind == "run_outcome":
        return [f.key for f in run_failures(payload)]
    if kind == "owner_answer":
        return [_key("answer", normalised_question(str(payload.get("question", ""))))]
    if kind == "operator_edit":
        return edit_keys(str(payload.get("original", "")), payload.get("final"))
    if kind == "manual_lesson":
        return [manual_key(str(payload.get("situation", "")), str(payload.get("correction", "")))]
    return []


#: a name an error quotes ('postcode', "iccid"): its template masks it as a value
_QUOTED_NAME = re.compile(r"""['"‘“]([\w.-]{1,40})['"’”]""")


def call_values(value: Any) -> set[str]:
    """Every scalar of a call's arguments, casefolded (what the caller passed)."""
    if isinstance(value, dict):
        return set().union(*(call_values(v) for v in value.values())) if value else set()
    if isinstance(value, list | tuple):
        return set().union(*(call_values(v) for v in value)) if value else set()
    return {str(value).casefold()}


def passed_back(name: str, passed: frozenset[str] | set[str]) -> bool:
    """Did a call pass ``name`` (casefolded) that its error quotes back: as a whole value
    ('main' for ``ref="main"``), or as a word of a longer one ('polars' in the code
    ``import polars as pl``, 'basket_value' in ``df['basket_value']``)? Such a name is the
    instance of the call, not a field of the tool's interface."""
    if name in passed:
        return True
    word = re.compile(rf"(?<![\w.-]){re.escape(name)}(?![\w.-])")
    return any(len(value) > len(name) and word.search(value) for value in passed)


def quoted_names(payload: dict[str, Any]) -> list[str]:
    """The names a run's errors quote that are no value the failing call passed: "Field
    'postcode' is required" names a field, "branch 'main' is protected" for ``ref="main"``
    names back the caller's value. A template masks both alike (repeats with other values
    share it); a judgement of one field's error is not one of another's. (A run's own error
    has no call to tell a name from a value: its quotations are left to the template.)"""
    found: set[str] = set()
    for call in payload.get("tool_calls") or []:
        if _failed(call):
            passed = call_values(call.get("args"))
            quoted = _QUOTED_NAME.findall(str(call.get("error") or ""))
            found.update(n for q in quoted if not passed_back(n := q.casefold(), passed))
    return sorted(found)


def event_signature(kind: str, payload: dict[str, Any], *extra: Any) -> str | None:
    """What a judgement of the event depends on, ids and wording aside: the same signature is
    the same incident reported again (a judgement of one stands for the other). An owner's
    answer is its question and its exact answer: a new answer must be judged anew."""
    if kind == "run_outcome":
        keys = event_keys(kind, payload)
        if not keys:
            return None
        parts = [str(payload.get("outcome")), *sorted(keys), *quoted_names(payload)]
    elif kind == "owner_answer":
        answer = " ".join(str(payload.get("answer", "")).split())
        parts = [*event_keys(kind, payload), answer]
    elif kind == "operator_edit":
        parts = event_keys(kind, payload)
    else:
        return None
    return _key("event", kind, *parts, *(str(x) for x in extra))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{3,}", text.lower()))


#: an observed quotation in a lesson («…», digest.text.quoted): the error it speaks of
_QUOTED = re.compile(r"«([^»]{1,2000})»")


def assign(candidate_texts: Sequence[str], failures: Sequence[Failure]) -> list[str | None]:
    """Which failure each lesson of a run is about: the one whose tool it names and whose
    error template shares the most words with it (a model words lessons its own way), read in
    the lesson's observed quotations when it has them (its task and arguments would match any
    failure's words). When a run's lessons are no more than its failures, each failure is
    taken once, best fits first: two errors of one tool are two lessons, not one twice."""
    if not failures:
        return [None] * len(candidate_texts)
    if len(failures) == 1:
        return [failures[0].key] * len(candidate_texts)
    fits: list[list[tuple[int, int]]] = []
    for text in candidate_texts:
        quoted = " ".join(_QUOTED.findall(text)) or text
        lowered, words = text.lower(), _words(quoted)
        fits.append([
            (int(bool(f.tool) and str(f.tool).lower() in lowered), len(words & _words(f.template)))
            for f in failures
        ])  # fmt: skip
    if len(candidate_texts) > len(failures):
        return [failures[row.index(max(row))].key for row in fits]
    chosen: dict[int, int] = {}
    pairs = sorted(
        ((fit, -t, -f) for t, row in enumerate(fits) for f, fit in enumerate(row)), reverse=True
    )
    for _fit, t, f in pairs:
        if -t not in chosen and -f not in chosen.values():
            chosen[-t] = -f
    return [failures[chosen[t]].key for t in range(len(candidate_texts))]


#: the tag a lesson drawn from one tool's error carries, followed by its error family's name
TOOL_ERROR_TAG = "tool-error"
#: the error families (``digest.model.error_families``) that say what state of the world
#: failed a call (out of stock, a balance too low, expired credentials, a limit), not which
#: input was wrong: two errors of one tool in one of these families are likely one error in
#: other words. A missing, unknown or malformed input ("order not found", "unknown customer",
#: "sku is required") says which input; those differ by what they name, so are not here.
STATE_ERROR_FAMILIES = frozenset(
    """authentication insufficient-funds payment-declined not-combinable out-of-stock
    unavailable-date insufficient-amount duplicate already-done too-late status-does-not-allow
    missing-prerequisite missing-record not-eligible expired limit-exceeded below-minimum
    delivery-area amounts-do-not-add-up""".split()  # noqa: SIM905
)
#: a name a lesson or an error quotes ('sku', "amount", `code`): which input it is about
_QUOTED_INPUT = re.compile(r"""['"‘“`]([\w.-]{1,40})['"’”`]""")


def family_tag(tags: Sequence[str]) -> str | None:
    """The error family a tool error's lesson was tagged with (the tag after ``tool-error``),
    or None."""
    tags = list(tags)
    if TOOL_ERROR_TAG not in tags:
        return None
    at = tags.index(TOOL_ERROR_TAG)
    return tags[at + 1] if at + 1 < len(tags) else None


def error_family(tags: Sequence[str]) -> str | None:
    """The state error family (``STATE_ERROR_FAMILIES``) a tool error's lesson was tagged
    with, or None."""
    family = family_tag(tags)
    return family if family in STATE_ERROR_FAMILIES else None


def same_error_family(
    a: str | None,
    a_tags: Sequence[str],
    a_text: str,
    b: str | None,
    b_tags: Sequence[str],
    b_text: str,
) -> bool:
    """Are two keys on one subject two wordings of one failed state of a tool ("item out of
    stock" and "insufficient inventory (0 available)"): the same state family
    (``error_family``), naming the same inputs and tool (every name either lesson quotes or
    sets in backticks: `amount` within the limit is not `quantity`)? ``*_text`` is each
    lesson's text. Evidence for the judge, not a verdict."""
    if same(a, b) or not subject_of(a) or not same_subject(a, b):
        return False
    if edit_family(a) or edit_family(b):
        return False
    family = error_family(a_tags)
    if family is None or family != error_family(b_tags):
        return False
    return set(_QUOTED_INPUT.findall(a_text)) == set(_QUOTED_INPUT.findall(b_text))

"""A model's lesson that copies a run's error: the copy read as the observation it is.

The offline rules quote what a run reported as «…» (``digest.text.quoted``: destinations
masked, nothing inside can end the quotation or render as markup), and the rest of the product
reads those quotations as the run's own words: the injection screen leaves them out of what a
lesson says in its own words (an error naming "anna@example.com", an IBAN or a problem+json
``type`` URL is data, not an address the lesson sends to), and identity compares what two
lessons observed (``digest.text.observed``). A model copies the error into its own sentence
("`schedule_callback` fails with: Invalid phone number '+44 7700 900123' for contact
anna@example.com: …"); without this, its lesson is quarantined for naming an address and
compared word for word with its frame.

``as_observed`` finds each error the run reported (a tool call's, the run's own), whole or its
telling line, copied into a lesson's situation or mistake (spacing aside; whole or the longest
opening of it, at least three words) and writes it there
as ``quoted`` does, the values the run's calls passed masked in it ("unknown plan code
'enterprise_yearly'" → "unknown plan code '‹id›'": the instance, as the offline rules read
it from the call they quote). Only copies of the run's own text change: a destination in the
model's own words is still the screen's to judge, and the correction (what the agent is told
to do) is never rewritten. Pure.
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any

from digest.fingerprint import passed_back
from digest.lessons.store import Candidate
from digest.masking import telling_line
from digest.text import OPEN_QUOTE, quoted

#: the shortest error copy read as a quotation (shorter ones are words, not an observation)
MIN_COPY, MIN_WORDS = 12, 3
#: the errors of one run looked for, at most
MAX_ERRORS = 20
#: the longest cut of a word a copy may end on that is read as the error's (``_cut_within_word``)
MAX_CUT_WORD = 120
#: the lengths of a value a call passed that is masked in a copy of its error
MIN_PASSED, MAX_PASSED = 3, 120


def run_errors(payload: dict[str, Any]) -> list[str]:
    """The errors a run reported (each tool call's, then the run's own), each whole and its
    telling line."""
    found: list[str] = []
    calls = payload.get("tool_calls") or []
    texts = [c.get("error") for c in calls if isinstance(c, dict)] + [payload.get("error")]
    for text in texts[:MAX_ERRORS]:
        if not isinstance(text, str) or not text.strip():
            continue
        for part in (text, telling_line(text)):
            part = part.strip()
            if len(part) >= MIN_COPY and part not in found:
                found.append(part)
    return found


#: characters a lesson may carry in another form than the error's (a model's output escapes
#: angle brackets as the product's quotations do)
_ALIKE = {"<": "[<‹]", ">": "[>›]", "‹": "[<‹]", "›": "[>›]"}


def _copy_of(error: str) -> re.Pattern[str]:
    """``error`` as written in a lesson: its words in order, any spacing between them."""
    words = ("".join(_ALIKE.get(c) or re.escape(c) for c in word) for word in error.split())
    return re.compile(r"\s+".join(words))


def _copied(text: str, error: str) -> re.Match[str] | None:
    """The longest opening of ``error`` (whole words, at least ``MIN_WORDS`` and ``MIN_COPY``
    characters) that ``text`` copies: a model quotes an error whole or cut."""
    words = error.split()
    low, high, best = MIN_WORDS, len(words), None
    while low <= high:  # an opening copied means every shorter opening is copied too
        middle = (low + high) // 2
        found = _copy_of(" ".join(words[:middle])).search(text)
        if found is None:
            high = middle - 1
        else:
            best, low = found, middle + 1
    if best is None or len(best.group(0)) < MIN_COPY:
        return None
    return _cut_within_word(text, best, words) or best


def _cut_within_word(text: str, best: re.Match[str], words: list[str]) -> re.Match[str] | None:
    """``best`` run on into the error's next word where the text cuts that word off and ends
    there (a model's copy cut at a length, mid-URL: "… "documentation_url": "https://d"):
    the cut word is the run's too."""
    copied = len(best.group(0).split())
    if copied >= len(words):
        return None
    # (its first ``MAX_CUT_WORD`` characters: a blob without spaces is no word to nest a
    # pattern over)
    word = words[copied][:MAX_CUT_WORD]
    # the next word's first character, then each further one only after the one before it
    head = _ALIKE.get(word[0]) or re.escape(word[0])
    rest = "".join(f"(?:{re.escape(c)}" for c in word[1:]) + ")?" * (len(word) - 1)
    found = re.compile(rf"\s+{head}{rest}(?=\s*(?:…|\.\.\.)?\s*$)").match(text, best.end())
    if found is None:
        return None
    return re.compile(re.escape(text[best.start() : found.end()])).search(text, best.start())


def passed(payload: dict[str, Any]) -> list[str]:
    """The text values the run's calls passed (``args``, nested ones too; three characters
    or more), longest first: what an error names back is the instance, not the error."""
    found: set[str] = set()

    def walk(value: Any, depth: int) -> None:
        if isinstance(value, str):
            if MIN_PASSED <= len(value.strip()) <= MAX_PASSED:
                found.add(value.strip())
        elif isinstance(value, dict) and depth < 4:
            for item in list(value.values())[:MAX_PASSED]:
                walk(item, depth + 1)
        elif isinstance(value, list) and depth < 4:
            for item in value[:MAX_PASSED]:
                walk(item, depth + 1)

    for call in (payload.get("tool_calls") or [])[:MAX_ERRORS]:
        if isinstance(call, dict):
            walk(call.get("args"), 0)
    return sorted(found, key=len, reverse=True)


#: a short name an error quotes ('main', "checkout-api")
_QUOTED_NAME = re.compile(r"""(['"‘“])([\w.-]{1,40})(['"’”])""")


def _instances_masked(copy: str, values: list[str]) -> str:
    for value in values:
        copy = re.sub(rf"(?<!\w){re.escape(value)}(?!\w)", "‹id›", copy, flags=re.IGNORECASE)
    # a name the error quotes that is a word of a longer value the call passed (the deployment
    # of ``rollout restart deployment/checkout-api``): the instance, as the key reads it
    folded = frozenset(v.casefold() for v in values)

    def mask(found: re.Match[str]) -> str:
        if passed_back(found.group(2).casefold(), folded):
            return f"{found.group(1)}‹id›{found.group(3)}"
        return found.group(0)

    return _QUOTED_NAME.sub(mask, copy) if folded else copy


def _quoted_copies(text: str, errors: list[str], values: list[str]) -> str:
    if not text:
        return text
    # quoted already (the offline rules' own lessons); an error that writes its own
    # guillemets ("le champ « numero_fiscal » est obligatoire") is a copy still to quote
    if OPEN_QUOTE in text and not any(OPEN_QUOTE in error for error in errors):
        return text
    copies = [found for error in errors if (found := _copied(text, error)) is not None]
    if not copies:
        return text
    # the longest copy: two errors of one run may open alike ("ERROR: No replacement was
    # performed, …" / "… performed. Multiple occurrences …")
    found = max(copies, key=lambda m: (len(m.group(0)), -m.start()))
    copy = quoted(_instances_masked(found.group(0), values))
    return text[: found.start()] + copy + text[found.end() :]


def as_observed(candidate: Candidate, payload: dict[str, Any]) -> Candidate:
    """``candidate`` with the run's error, where its situation or mistake copies it, quoted
    as observed data (one copy per field: the longest)."""
    errors = run_errors(payload)
    if not errors:
        return candidate
    values = passed(payload)
    situation = _quoted_copies(candidate.situation, errors, values)
    mistake = (
        _quoted_copies(candidate.mistake, errors, values)
        if candidate.mistake
        else candidate.mistake
    )
    if situation == candidate.situation and mistake == candidate.mistake:
        return candidate
    return replace(candidate, situation=situation, mistake=mistake)

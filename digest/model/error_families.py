"""Error families: what a tool's error says went wrong, by class, and what to do about it.

The offline judge reads an error as a support engineer would: not "``update_order`` failed"
but "the item is out of stock", "the balance does not cover it". Each family is a class of
precondition, state, limit, conflict, identity, permission, format or missing input,
recognised by its phrasings (English, then the common phrasings of German, Spanish, French,
Portuguese, Italian, and for the commonest states, limits and missing inputs Dutch, Swedish,
Danish, Norwegian, Polish, Czech, Finnish and Turkish) and answered with the rules' own
remedy. The error only picks the family; a lesson shows it as an observed quotation.

Families are tried in order: business preconditions and states before the generic input
classes (an order that "cannot be modified" is about its status, not its format), and the
generic ``tool-failure`` when none fits. The families of states and preconditions are in
``digest.model.error_state_families``; those of inputs, identities and access in
``digest.model.error_input_families``; what a family is in ``digest.model.error_family``.
What an error states and the argument it names are read in ``digest.model.error_reading``.
"""

from __future__ import annotations

import re
import unicodedata

from digest.bounded import memo
from digest.frames import head_and_reason
from digest.model.error_family import Family
from digest.model.error_input_families import INPUT_FAMILIES
from digest.model.error_state_families import STATE_FAMILIES
from digest.model.error_statement import readable
from digest.model.error_tool_families import TOOL_FAMILIES
from digest.pattern_start import built_once, for_existence

#: every family, in the order they are tried
FAMILIES: tuple[Family, ...] = (*TOOL_FAMILIES, *STATE_FAMILIES, *INPUT_FAMILIES)

_BY_NAME = {f.name: f for f in FAMILIES}
#: the families a missing name can turn out to be (``error_reading.passed_family``)
MISSING_ARGUMENT, NOT_FOUND, UNKNOWN_NAME = (
    _BY_NAME["missing-parameter"],
    _BY_NAME["not-found"],
    _BY_NAME["unknown-name"],
)

#: no family fits: the generic answer to a failing call
TOOL_FAILURE = Family(
    "tool-failure", None, "Change the arguments or the approach", None,
    "Calling it again unchanged fails the same way.",
)  # fmt: skip


#: a status that says the family whatever the message adds ("404 Not Found: … or you do not
#: have permission to see it" hides that it exists: it is not found, not refused)
_STATUS = re.compile(r"^\s*(?:HTTP(?:/[\d.]+)?\s*)?(401|404)\b(?![.,]\d)", re.I)
_BY_STATUS = {"401": "authentication", "404": "not-found"}
_CHANGED = [f.pattern for f in FAMILIES if f.name == "requirement-changed" and f.pattern]


def family_of(error: str) -> Family:
    """The first family whose phrasings the error shows (a code's words read as words:
    ``channel_not_found``), else ``TOOL_FAILURE``; a leading HTTP status of 401 or 404 says
    it first."""
    at = _family_at(str(error))
    return TOOL_FAILURE if at < 0 else FAMILIES[at]


#: errors a process remembers the family of, and their bytes (``digest.bounded``): the
#: offline judge reads one error's family more than once per event. Keyed by a digest of the
#: error (about 200 bytes an entry): in the throughput stream (issue 27) 17% of asks hit with
#: 0.125 MiB, 18% with 0.5 MiB
FAMILIES_KEPT, FAMILIES_BYTES = 1024, 2**17


@memo(FAMILIES_KEPT, FAMILIES_BYTES, digest_keys=True)
def _family_at(error: str) -> int:
    """Where ``family_of(error)`` stands in ``FAMILIES``; -1 for ``TOOL_FAILURE``."""
    text = readable(unicodedata.normalize("NFKC", error))
    status = _STATUS.match(text)
    # unless it says the tool changed ("404: /v1/orders was removed, use /v2/orders")
    if status is not None and not any(p.search(text) for p in _CHANGED):
        return next(n for n, f in enumerate(FAMILIES) if f.name == _BY_STATUS[status.group(1)])
    found = _first_family(text)
    if found < 0 or FAMILIES[found].name not in REFUSAL_FAMILIES:
        return found
    # a refusal's frame ("Job ‹id› cannot be scheduled: <reason>"): the reason it gives says
    # the condition, the head only that the action was refused
    why = reason_of(text)
    if why is None:
        return found
    reason = _first_family(why)
    return found if reason < 0 else reason


def _first_family(text: str) -> int:
    words = _CAMEL.sub(" ", text)
    for n, pattern in enumerate(_searched()):
        if pattern is not None and (
            pattern.search(text) or (words != text and pattern.search(words))
        ):
            return n
    return -1


@built_once
def _searched() -> tuple[re.Pattern[str] | None, ...]:
    """Each family's pattern (None for none) regrouped to tell whether a text shows it,
    about three times faster (``digest.pattern_start.for_existence``: a text shows one
    exactly when it shows the family's own pattern); compiled on first use, not on import."""
    return tuple(None if f.pattern is None else for_existence(f.pattern) for f in FAMILIES)


#: families a refusal's head alone may show ("cannot be scheduled", "non può essere
#: prenotato"): when the error gives its reason after a colon, the reason's family is read
REFUSAL_FAMILIES = frozenset({"status-does-not-allow"})


def reason_of(error: str) -> str | None:
    """The reason an error's one-sentence head gives after its colon ("Booking refused: the
    wagon is locked for inspection" → "the wagon is locked for inspection"), else None."""
    found = head_and_reason(error.split("\n", 1)[0])
    return None if found is None else found[1]


#: a word break inside a code written in CamelCase ("BucketAlreadyExists", "NoSuchKey")
_CAMEL = re.compile(r"(?<=[a-z])(?=[A-Z][a-z])")

"""The recipient of a user's own one-off request, as the injection screen reads a run's task.

A user asks an agent to send one thing somewhere: "Send quote Q-2291 to purchasing@globex.com",
"Share the Hiring Pipeline sheet with jordan.lee@partnerco.com", "Send 2,000 EUR to IBAN DE89
3704 …". Read as any other text, each is "send data (or money) out" (``digest.reflect.tripwire``)
and the run is quarantined: a banking, sales or document agent then learns nothing from the
runs of its ordinary work. The task is the user's request, not what a tool reported, and the
run shows what the agent did with it: when one of its tool calls passed that very address (or
account) as an argument, the address is whom the request goes to, and the screen reads it as
"the recipient" (``recipients_masked``).

What stays screened as written: a task that names what is sent in bulk or a secret ("all",
"every", "each", customers, orders, passwords, credentials …), a standing or automatic rule
("always", "from now on", "automatically"), or an order to ignore instructions; an address
no call passed; and every other field of the run (a tool's error, output or arguments). A
lesson's own text is screened apart (``digest.reflect.screen.lesson_reason``: an untrusted
lesson may not name an address to send to), so what reaches an agent is unchanged.
"""

from __future__ import annotations

import re
from typing import Any

from digest.lessons.id_kinds import string_values
from digest.reflect import words
from digest.reflect.tripwire import plain, word_class

#: an e-mail address, or an account number in IBAN form (spaced in groups of four or not)
_RECIPIENT = re.compile(
    r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+|\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,4})?\b"
)
#: …written as "IBAN DE89 …": the word goes with the number
_IBAN_WORD = re.compile(r"\biban[:\s]*$", re.I)
#: what makes a send more than one user's one-off request
_GUARD = re.compile(
    "|".join(
        word_class(spec)
        for spec in (
            words.ALL, words.CUSTOMERS, words.SECRET, words.FROM_NOW, words.ALWAYS, words.AUTO,
            words.IGNORE,
        )
    ),
    re.I,
)  # fmt: skip
RECIPIENT = "the recipient"
#: the largest nesting of arguments read
_DEPTH = 6


def recipients_masked(task: str, tool_calls: Any) -> str:
    """``task`` with each address or account it names that a call of ``tool_calls`` passed as
    an argument written "the recipient"; as it came when it names none, or when it says more
    than a one-off request (see the module's docstring)."""
    found = [m for m in _RECIPIENT.finditer(task)]
    if not found or not isinstance(tool_calls, list):
        return task
    passed = {
        _key(value)
        for value in string_values(
            (c.get("args") for c in tool_calls if isinstance(c, dict)), _DEPTH
        )
    }
    passed.discard("")
    masked = task
    for match in reversed(found):
        if _key(match.group()) not in passed:
            continue
        start = match.start()
        before = _IBAN_WORD.search(masked[:start])
        if before is not None:
            start = before.start()
        masked = masked[:start] + RECIPIENT + masked[match.end() :]
    if masked == task or _GUARD.search(plain(masked)):
        return task
    return masked


def _key(value: str) -> str:
    return re.sub(r"\s+", "", value).casefold()

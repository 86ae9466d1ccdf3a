"""Injection screen (DESIGN §8) for lessons distilled from untrusted text.

A run outcome carries what end users, web pages and other tools wrote. A lesson built from it
that reads like an instruction to the agent to reveal, exfiltrate, ignore its instructions,
contact an address, run a command or change whom it obeys is quarantined: kept for review,
never shown to the agent.
"""

from __future__ import annotations

import re

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "asks to ignore instructions",
        re.compile(
            r"\b(ignore|disregard|forget|override)\b.{0,40}\b(previous|prior|earlier|above|all|"
            r"system|your)\b.{0,20}\b(instructions?|rules|prompt|guidelines)",
            re.I | re.S,
        ),
    ),
    (
        "asks to reveal secrets",
        re.compile(
            r"\b(reveal|print|show|leak|disclose|output|share|send|exfiltrate|dump)\b.{0,60}"
            r"\b(system prompt|secrets?|passwords?|api[ _-]?keys?|tokens?|credentials?|"
            r"private keys?|env(ironment)? var)",
            re.I | re.S,
        ),
    ),
    ("mentions exfiltration", re.compile(r"\bexfiltrat", re.I)),
    (
        "asks to contact an address",
        re.compile(
            r"\b(e-?mail|send|forward|post|upload|contact|notify|cc|bcc)\b.{0,80}"
            r"([\w.+-]+@[\w-]+\.[\w.-]+|https?://)",
            re.I | re.S,
        ),
    ),
    (
        "asks to run a command",
        re.compile(
            r"\b(run|execute|exec|eval)\b.{0,40}\b(command|shell|script|code|bash|powershell)\b|"
            r"\b(curl|wget)\s+\S+|\brm\s+-rf\b|\bsudo\s+\w+|\|\s*(ba)?sh\b",
            re.I | re.S,
        ),
    ),
    (
        "changes whom the agent obeys",
        re.compile(
            r"\b(from now on|henceforth)\b.{0,60}\b(you|obey|follow|listen)\b|"
            r"\b(obey|follow|take orders from|listen (only )?to)\b.{0,40}\b(me|this user|"
            r"the user instead|new (owner|admin|operator))\b|\byou are now\b",
            re.I | re.S,
        ),
    ),
)


def injection_reason(text: str) -> str | None:
    """Why ``text`` looks like an instruction injection, or None."""
    for reason, pattern in _PATTERNS:
        if pattern.search(text):
            return reason
    return None

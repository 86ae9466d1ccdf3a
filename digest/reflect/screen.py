"""Injection screen (DESIGN §8) for lessons distilled from untrusted text.

A run outcome carries what end users, web pages and other tools wrote. A lesson built from it
that reads like an instruction to the agent to reveal, exfiltrate, ignore its instructions,
contact an address, run a command, change whom it obeys, or that carries a fake role tag
(``<system>``, ``[SYSTEM]``, ``<|im_start|>system``, ``### Instruction:``) is quarantined: kept
for review, never shown to the agent. Trusted text (owner answers, operator edits, manual
lessons) is not screened; ``digest.reflect`` only calls this for untrusted events.

The screen is rules, applied to the text in three forms so that disguises do not help:

1. **normalised**: NFKC (fullwidth and other compatibility letters become ASCII), format
   characters dropped (zero-width spaces and joiners, bidi marks, soft hyphens), combining
   marks dropped (``i̇gnore`` → ``ignore``), common Cyrillic and Greek look-alikes folded to
   Latin (``іgnоrе`` → ``ignore``), whitespace collapsed;
2. **decoded**: every run that looks like base64 and decodes to readable text is screened too;
3. the rules below run on each form; the first that matches gives the reason.
"""

from __future__ import annotations

import base64
import binascii
import re
import unicodedata
from collections.abc import Iterator

# Cyrillic and Greek letters that render like Latin ones (the subset attackers use in
# practice; Unicode's confusables.txt is far larger than a screen needs).
_CONFUSABLES = str.maketrans(
    {
        "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o",
        "р": "p", "с": "c", "т": "t", "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j",
        "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ӏ": "l",
        "А": "A", "В": "B", "Е": "E", "К": "K", "М": "M", "Н": "H", "О": "O", "Р": "P",
        "С": "C", "Т": "T", "У": "Y", "Х": "X", "І": "I", "Ј": "J", "Ѕ": "S",
        "α": "a", "ε": "e", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t",
        "υ": "u", "χ": "x", "Α": "A", "Β": "B", "Ε": "E", "Η": "H", "Ι": "I", "Κ": "K",
        "Μ": "M", "Ν": "N", "Ο": "O", "Ρ": "P", "Τ": "T", "Χ": "X", "Υ": "Y", "Ζ": "Z",
    }
)  # fmt: skip


def normalise(text: str) -> str:
    """``text`` as the rules see it: compatibility-folded, invisible and combining characters
    removed, look-alike letters folded to Latin, whitespace collapsed to single spaces."""
    text = unicodedata.normalize("NFKC", text)
    # NFD splits accented letters so the marks can go; then drop format characters (Cf:
    # zero-width space/joiner, bidi controls, soft hyphen) and combining marks (Mn, Me).
    kept = (
        ch
        for ch in unicodedata.normalize("NFD", text)
        if unicodedata.category(ch) not in ("Cf", "Mn", "Me")
    )
    text = unicodedata.normalize("NFC", "".join(kept)).translate(_CONFUSABLES)
    return " ".join(text.split())


# A base64 run: at least 16 characters of the alphabet (standard or URL-safe), optional padding.
_BASE64_RUN = re.compile(r"(?<![A-Za-z0-9+/_-])[A-Za-z0-9+/_-]{16,}={0,2}")


def decoded_runs(text: str) -> Iterator[str]:
    """The readable text hidden in base64 runs of ``text`` (binary-looking decodes are not)."""
    for match in _BASE64_RUN.finditer(text):
        run = match.group(0).rstrip("=")
        if run.isalpha() or run.isdigit():
            continue  # a long word or number is not an encoding
        padded = run + "=" * (-len(run) % 4)
        altchars = b"-_" if ("-" in run or "_" in run) else None
        try:
            raw = base64.b64decode(padded, altchars=altchars, validate=True)
            decoded = raw.decode("utf-8")
        except (binascii.Error, ValueError):
            continue
        readable = sum(ch.isprintable() or ch.isspace() for ch in decoded)
        if decoded and readable / len(decoded) > 0.9 and any(ch.isalpha() for ch in decoded):
            yield decoded


_ADDRESS = r"(?:[\w.+-]+@[\w-]+(?:\.[\w-]+)+|https?://\S+|www\.\S+)"

_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "asks to ignore instructions",
        re.compile(
            r"\b(ignore|disregard|forget|override|bypass|pay no attention to|stop following|"
            r"do not follow|don'?t follow)\b.{0,40}\b(previous|prior|earlier|above|preceding|"
            r"all|system|your|developer|original|initial|safety)\b.{0,25}\b(instructions?|"
            r"rules|prompts?|guidelines|directions|directives|guardrails|policies|constraints|"
            r"orders|context|messages)\b"
            r"|\b(ignore|disregard|forget)\b.{0,15}\b(everything|all)\b.{0,25}"
            r"\b(above|before|earlier|you were told|so far)\b"
            r"|\bnew (system )?instructions?\s*:",
            re.I | re.S,
        ),
    ),
    (
        "asks to reveal secrets",
        re.compile(
            # "never share passwords" is advice, not a request: negated verbs do not count.
            r"(?<!never )(?<!not )(?<!n't )\b(reveal|print|show|leak|disclose|output|share|send|"
            r"exfiltrate|dump|repeat|tell)\b.{0,60}\b(system prompt|hidden prompt|"
            r"initial instructions|secrets?|passwords?(?! reset)|api[ _-]?keys?|access tokens?|"
            r"auth tokens?|credentials?|private keys?|env(ironment)? var(iable)?s?|\.env\b)",
            re.I | re.S,
        ),
    ),
    ("mentions exfiltration", re.compile(r"\bexfiltrat", re.I)),
    (
        "asks to contact an address",
        re.compile(
            # a sending verb, then "to/at/via" an address: "forward the chat to x@evil.io"
            rf"\b(send|forward|post|upload|transmit|copy|mail|e-?mail|leak|submit|deliver|"
            rf"beacon)\b.{{0,80}}?\b(to|at|via|into)\s+{_ADDRESS}"
            # or a contacting verb right before it: "contact admin@evil.io", "cc x@evil.io"
            rf"|\b(contact|notify|cc|bcc|e-?mail|message|ping|write to)\s+"
            rf"(\S+\s+){{0,2}}{_ADDRESS}"
            # or a markdown image/link whose URL carries data out: ![x](https://evil/?q=...)
            r"|!\[[^\]]*\]\(https?://[^)]*\?",
            re.I | re.S,
        ),
    ),
    (
        "asks to run a command",
        re.compile(
            r"\b(run|execute|exec|eval|invoke)\b.{0,40}\b(shell|bash|sh|zsh|powershell|cmd|"
            r"terminal|command|commands|script|subprocess)\b"
            r"|\b(curl|wget)\s+\S+|\brm\s+-[a-z]*[rf]|\bsudo\s+\w+|\|\s*(ba|z)?sh\b"
            r"|\bchmod\s+[+0-7]|\bnc\s+-[a-z]*e\b|/bin/(ba)?sh\b|\bos\.system\b|"
            r"\bsubprocess\.\w+|\$\([^)]+\)|\bpowershell\s+-",
            re.I | re.S,
        ),
    ),
    (
        "changes whom the agent obeys",
        re.compile(
            r"\b(from now on|henceforth)\b.{0,30}\b(you (are|work for|answer to|serve)|"
            r"(you will )?(only )?(obey|take orders|listen (only )?to))\b"
            r"|\b(obey|take orders from|listen (only )?to)\b.{0,40}\b(me|this user|"
            r"the user instead|new (owner|admin|operator))\b"
            r"|\byou are now\b|\bact as (an? |the )?(admin|administrator|root|developer|system|"
            r"unrestricted|dan)\b|\b(developer|god|jailbreak|dan) mode\b|\bjailbr(ea|o)k",
            re.I | re.S,
        ),
    ),
    (
        "carries a fake role tag",
        re.compile(
            r"</?\s*(system|assistant|developer|instructions?|sys)\s*>"
            r"|\[/?\s*(system|inst|instructions?|admin|developer)\s*\]"
            r"|<\|\s*(im_start|im_end|system|endoftext|start_header_id|eot_id)\s*\|>"
            r"|<<\s*/?sys\s*>>"
            r"|#{2,}\s*(instructions?|system|response|new task)\s*:"
            r"|(^|\s)(system|developer)\s*(prompt|message)?\s*:\s*(you|ignore|new|from)",
            re.I,
        ),
    ),
)


def injection_reason(text: str) -> str | None:
    """Why ``text`` looks like an instruction injection, or None.

    The rules run on the normalised text and on every readable base64 payload inside it.
    """
    shown = normalise(text)
    forms = [shown, *(normalise(decoded) for decoded in decoded_runs(shown))]
    for form in forms:
        for reason, pattern in _PATTERNS:
            if pattern.search(form):
                return reason
    return None

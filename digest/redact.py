"""Value-based secret redaction: ``redact(text)`` masks credentials wherever they appear.

``digest.logs`` blanks fields whose *name* says they hold a secret; this module catches the
secrets that arrive inside ordinary text instead: an exception message that echoes an API key,
a driver error quoting a database URL with its password, a header dump with a bearer token.
It runs on every string a log line carries and on every error text we store
(``events.last_error``, ``digest_runs.error``).

Rules, not heuristics on entropy: each pattern names a credential shape that is unambiguous in
prose, so ordinary text ("ask for the order number", "task-force", "https://shop.example/x")
passes through unchanged. A masked value keeps a short, non-secret prefix so a reader can still
tell which kind of credential was there.
"""

from __future__ import annotations

import re
from functools import cache

MASK = "***"

# (pattern, replacement) pairs, applied in order. Later patterns never take a masked value for
# a secret: MASK holds no character they match.
_RULES: tuple[tuple[str, str], ...] = (
    # PEM private keys, whole block.
    (
        r"(?s)-----BEGIN (?:[A-Z]+ )*PRIVATE KEY-----.*?-----END (?:[A-Z]+ )*PRIVATE KEY-----",
        f"-----PRIVATE KEY {MASK}-----",
    ),
    # Credentials in a URL: scheme://user:password@host, also redis://:password@host.
    (r"\b([a-zA-Z][a-zA-Z0-9+.-]*://)([^\s:/@]*):([^\s@/]+)@", rf"\1\2:{MASK}@"),
    # Authorization headers and bearer tokens (the scheme word is kept).
    (
        r"(?i)\b(authorization\s*[:=]\s*)((?:bearer|basic|token|digest)\s+)?[^\s,;\"']+",
        rf"\1\2{MASK}",
    ),
    (r"(?i)\b(bearer)\s+[A-Za-z0-9._~+/-]{8,}=*", rf"\1 {MASK}"),
    # Vendor key shapes. The lookbehinds keep "task-force" or "desk-123" intact.
    (r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{8,}", f"sk-ant-{MASK}"),
    (r"(?<![A-Za-z0-9])sk-(?:proj-|live-|test-)?[A-Za-z0-9_-]{16,}", f"sk-{MASK}"),
    (r"(?<![A-Za-z0-9])(AKIA|ASIA)[0-9A-Z]{16}(?![A-Za-z0-9])", rf"\1{MASK}"),
    (r"(?<![A-Za-z0-9])(gh[pousr]_)[A-Za-z0-9]{20,}", rf"\1{MASK}"),
    (r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}", f"github_pat_{MASK}"),
    (r"(?<![A-Za-z0-9])(xox[abposr]-)[A-Za-z0-9-]{10,}", rf"\1{MASK}"),
    (r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}", f"AIza{MASK}"),
    # JSON web tokens: three base64url parts, the first two starting with '{"'.
    (r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}", f"jwt:{MASK}"),
    # key=value (query strings, env dumps, form bodies) and "key": "value" (JSON), for names
    # that say they hold a secret. Prose such as "password: at least 8 characters" is kept.
    (
        r"(?i)(?<![A-Za-z0-9])((?:password|passwd|pwd|secret|client_secret|api[_-]?key|apikey|"
        r"access[_-]?token|refresh[_-]?token|auth[_-]?token|token|sig|signature)"
        r"(?:=|[\"']\s*:\s*[\"']))[^\s\"'&,;}]+",
        rf"\1{MASK}",
    ),
)


@cache
def _compiled() -> tuple[tuple[re.Pattern[str], str], ...]:
    # Compiled on first use, not at import: the capture path imports this module.
    return tuple((re.compile(pattern), replacement) for pattern, replacement in _RULES)


def redact(text: str) -> str:
    """``text`` with every recognised credential masked; anything else is left as it was."""
    if not text:
        return text
    for pattern, replacement in _compiled():
        text = pattern.sub(replacement, text)
    return text


def driver_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of a database error as the driver said it, redacted: not SQLAlchemy's
    own message, which appends the statement and its parameters (a prompt's words, a key's
    hash). The exception's class name when the driver said nothing."""
    message = str(getattr(exc, "orig", None) or exc).strip()
    first = message.splitlines()[0][:limit] if message else ""
    return redact(first) if first else type(exc).__name__

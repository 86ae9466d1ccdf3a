"""Value-based secret masking: ``redact(text)`` masks credentials wherever they appear in text,
``redact_value(value)`` in structures (a field named like a secret is masked whatever it holds).

Capture masks every event with these before anything is stored (``digest.capture.schemas``), so
no secret reaches the database, the judge, a log or a lesson; the same functions mask every
string a log line carries (``digest.logs``), every error text stored (``events.last_error``,
``digest_runs.error``) and what a lesson or an example shows an agent.

Rules, not heuristics on entropy: each pattern names a credential shape that is unambiguous in
prose, so ordinary text ("ask for the order number", "task-force", a git SHA, a UUID,
"missing Authorization header") passes through unchanged. A masked value keeps what a reader
needs to learn from it, never the secret: the scheme and user of a URL
(``postgresql://admin:***@db``), the header and its scheme (``Authorization: Bearer ***``), the
kind of token (``ghp_***``, ``AKIA***``). Masking is idempotent: ``MASK`` holds no character
any pattern takes for a secret.

It sits on the agent's hot path, so a text (or a whole event: its names and texts at once) is
first checked for any sign of a credential, a few substring tests of its lower-cased copy;
one without, nearly all of them, costs that check and is returned as it is.

Where the pattern facts come from (facts, not code): the token formats their issuers publish
(GitHub's "About authentication to GitHub" token prefixes; GitLab's "Token overview" prefixes;
Slack's "Token types"; Stripe's "API keys"; AWS IAM's "Unique identifiers" for AKIA/ASIA
access key ids and the 40-character secret access key; Google Cloud's service-account key
file; Azure Storage's "Configure connection strings" and "Shared access signatures" for
``AccountKey=``/``SharedAccessKey=``/``sig=``), RFC 7519 (JWT), RFC 7468 (PEM labels),
RFC 6750 and RFC 7235 (Bearer and the Authorization header), RFC 3986 §3.2.1 (userinfo in a
URI), and the plugin list of Yelp's detect-secrets and the rule list of gitleaks, read to
cross-check which shapes are worth a rule. detect-secrets itself is not used: it scans line by
line and reports rather than masks, imports ``requests`` with its AWS plugin (an import the
capture path must not pay), and its URL rule stops at the first ``@`` of a password.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import cache, lru_cache
from typing import Any

MASK = "***"

# --- names that say a value is a secret -------------------------------------------------------

#: a name ending in one of these (case, '_', '-' and '.' aside) holds a secret: "db_password",
#: "AWS_SECRET_ACCESS_KEY", "clientSecret", "x-api-key", "AccountKey"; not "prompt_tokens",
#: "token_count", "password_hint", "idempotency_key" or "private_key_id"
_NAME_ENDINGS = (
    "password", "passwd", "passphrase", "pwd", "secret", "token", "authorization", "auth",
    "credential", "credentials", "signature", "sig", "cookie", "apikey", "accesskey",
    "secretkey", "privatekey", "accountkey", "signingkey", "clientkey", "masterkey",
    "encryptionkey", "subscriptionkey",
)  # fmt: skip
#: the same endings as a pattern over a name as written ("api_key", "Shared-Access-Key")
_NAME_ENDING_PATTERN = (
    r"(?:pass(?:word|wd|phrase)|pwd|secret|token|authorization|auth|credentials?|signature|sig"
    r"|cookie|(?:api|access|secret|private|account|signing|client|master|encryption"
    r"|subscription)[_.-]?key)"
)
_NAME_SEPARATORS = re.compile(r"[^a-z0-9]+")


#: names of at most this many characters are remembered (4,096 of them: at most about 1.5 MB)
NAME_REMEMBERED = 256


def secret_named(name: str) -> bool:
    """Whether a field called ``name`` holds a secret, whatever its value looks like."""
    return _secret_named(name) if len(name) <= NAME_REMEMBERED else _judged_name(name)


@lru_cache(maxsize=4096)  # field names repeat: "order_id", "query", "headers"
def _secret_named(name: str) -> bool:
    return _judged_name(name)


def _judged_name(name: str) -> bool:
    lowered = name.lower()
    if _NAME_SEPARATORS.sub("", lowered).endswith(_NAME_ENDINGS):
        return True
    # "pass" alone or as the last word ("db_pass"), not "bypass" or "compass"
    return lowered == "pass" or lowered.endswith(("_pass", "-pass", ".pass"))


# --- the text rules -----------------------------------------------------------------------------

#: the cheap check: any text a rule below could match holds one of these, in lower case (a few
#: ``in`` tests run at C speed, about twice as fast as one regular expression of them all)
_SIGNS = (
    "pass", "pwd", "secret", "token", "auth", "cred", "sig", "cookie", "key", "bearer", "aws",
    "akia", "asia", "a3t", "abia", "acca", "aiza", "eyj", "hooks.slack", "://",
)  # fmt: skip
#: signs of the token shapes that hold a '-' or a '_', looked for only when the text has one
_DASHED_SIGNS = (
    "gh", "github_pat_", "gl", "xox", "xapp-", "sk-", "sk_", "rk_", "whsec_", "-----begin",
    "npm_", "hf_",
)  # fmt: skip


def _has_sign(lowered: str) -> bool:
    for sign in _SIGNS:
        if sign in lowered:
            return True
    if "@" in lowered and ":" in lowered:
        return True  # user:password@host, with or without a scheme
    if "-" in lowered or "_" in lowered:
        for sign in _DASHED_SIGNS:
            if sign in lowered:
                return True
    return False


#: schemes of an Authorization header's value (RFC 7235 and vendors'), kept when it is masked
_SCHEMES = r"(?:bearer|basic|token|digest|negotiate|ntlm|apikey|sso-key|aws4-hmac-sha256)"
#: a value that looks like a credential rather than a word: a digit and 6+ characters, or 20+
_CREDENTIAL_LIKE = re.compile(r"(?=.*\d).{6,}|.{20,}", re.S)
#: after a scheme ("Bearer header" is prose): 8+ characters with a digit, a symbol tokens use or
#: a capital after a small letter (base64, camel-cased keys), or 20+
_SCHEMED_CREDENTIAL = re.compile(r"(?=.*(?:[\d._~+/=-]|[a-z][A-Z])).{8,}|.{20,}", re.S)


def _replace_keyed(match: re.Match[str]) -> str:
    """``name=value``, ``"name": value`` or ``name: value`` for a name that says secret."""
    value, scheme, sep = match["value"], match["scheme"] or "", match["sep"]
    quoted = value[0] in "\"'\\"
    if not quoted:
        stripped = value.rstrip(".,)]}")  # sentence punctuation after the value stays
        if stripped.lower() in ("", "null", "none", "true", "false") or stripped == MASK:
            return match[0]  # a flag or an empty value holds no secret
        if scheme and not _SCHEMED_CREDENTIAL.fullmatch(stripped):
            return match[0]  # "authenticates with an Authorization: Bearer header"
        if ":" in sep and not match["q"] and not scheme and not _CREDENTIAL_LIKE.fullmatch(value):
            return match[0]  # prose: "password: at least 8 characters", "token: expired"
        masked = MASK + value[len(stripped) :]
    else:
        quote = "\\" + value[1] if value[0] == "\\" else value[0]
        inner = value[len(quote) : len(value) - len(quote)]
        kept = _scheme_prefix().match(inner)
        if not inner or inner == MASK or (kept is not None and inner[kept.end() :] == MASK):
            return match[0]
        masked = quote + (kept[0] if kept else "") + MASK + quote
    return match[0][: match.start("scheme" if scheme else "value") - match.start()] + (
        scheme + masked
    )


def _aws_secret(match: re.Match[str]) -> str:
    return match[1] + MASK


# (pattern, replacement) pairs, applied in order.
_RULES: tuple[tuple[str, str | Callable[[re.Match[str]], str]], ...] = (
    # PEM private keys (RFC 7468 labels: "PRIVATE KEY", "RSA PRIVATE KEY", "OPENSSH PRIVATE
    # KEY", "ENCRYPTED PRIVATE KEY", "PGP PRIVATE KEY BLOCK"), whole block; also a block whose
    # end was cut off, up to where its base64 stops. A GCP service-account key file's
    # "private_key" is one of these, with "\n" escapes.
    (
        r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:.*?-----END [A-Z0-9 ]*PRIVATE KEY"
        r"(?: BLOCK)?-----|[A-Za-z0-9+/=\s\\:,.-]*)",
        f"-----PRIVATE KEY {MASK}-----",
    ),
    # A password in a URL: scheme://user:password@host. The password is everything between the
    # first ':' after the user and the LAST '@' of the URL, whatever it holds ('@', ':', '/',
    # '#', '%'); "host:8080/path" is a port, not a password. Bounded, so a long line costs
    # linear time.
    (
        r"(?i)\b([a-z][a-z0-9+.-]{0,31}://)([^\s:/?#@\"'<>]{0,256}):"
        r"(?!\d{1,5}(?:[/?#\s\"'<>]|$))[^\s\"'<>]{0,512}@",
        rf"\1\2:{MASK}@",
    ),
    # The same without a scheme ("login failed for admin:p@ss@w0rd@db.internal", a DSN's
    # userinfo written alone): user:password@host, the password up to the LAST '@' before a
    # host name; "12:30@home" or "a:1@b" is no user and no host.
    (
        r"(?<![\w/:@.%+-])(?!(?i:mailto|sips?|tel|[\w.-]*(?:error|exception|fault)):)"
        r"([A-Za-z_][\w.-]{0,63}):(?!//|\*\*\*@|\d{1,5}(?:[/?#\s\"'<>]|$))"
        r"[^\s\"'<>]{1,256}@(?=[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63})+(?::\d{1,5})?"
        r"(?:[/?#\s\"'<>,;)]|$)|localhost\b)",
        rf"\1:{MASK}@",
    ),
    # A semicolon-separated connection string (ADO.NET, Azure): the value runs to the next ';'.
    (
        r"(?i)(?:(?<=;)|(?<=; ))((?:password|pwd|accountkey|sharedaccesskey"
        r"|sharedaccesssignature)\s*=\s*)[^;\r\n\"']+",
        rf"\1{MASK}",
    ),
    # A field named like a secret, any value: key=value (query strings, env dumps, form bodies,
    # libpq), "key": value (JSON, escaped JSON, Python reprs), key: value (headers, YAML; a
    # value that looks like a credential), --key value (command lines). The scheme of an
    # Authorization value is kept.
    (
        r"(?i)(?<![\w.\\-])(?P<q>\\?[\"']|)(?P<key>(?:[\w.-]{0,64}?"
        + _NAME_ENDING_PATTERN
        + r"|(?:[\w.-]{0,64}?[_.-])?pass))(?![\w.-])(?P=q)"
        r"(?P<sep>[ \t]*[=:](?:(?:[ \t]*\r?\n)?[ \t]+(?![A-Za-z_][\w.-]*=[^=]))?)"
        r"(?P<scheme>" + _SCHEMES + r"[ \t]+)?"
        r"(?P<value>\"(?:[^\"\\\r\n]|\\.)*\"|'(?:[^'\\\r\n]|\\.)*'"
        r"|\\\"(?:[^\"\\\r\n]|\\[^\"\r\n])*\\\"|[^\s\"'&;<>=\[{][^\s\"'&;<>]*)",
        _replace_keyed,
    ),
    # A command-line flag named like a secret and its value: --password hunter2, --api-key X.
    (
        r"(?i)(?<![\w-])(--?(?:[\w.-]{0,64}?"
        + _NAME_ENDING_PATTERN
        + r"|(?:[\w.-]{0,64}?[_.-])?pass))"
        r"[ \t]+(?![-*])(?:\"(?:[^\"\\\r\n]|\\.)*\"|'(?:[^'\\\r\n]|\\.)*'|[^\s\"']+)",
        rf"\1 {MASK}",
    ),
    # Bearer tokens outside a header (RFC 6750): a credential-like word after "Bearer".
    (
        r"(?i)\b(bearer)[ \t]+(?=[A-Za-z0-9._~+/-]{0,200}\d|[A-Za-z0-9._~+/-]{20})"
        r"[A-Za-z0-9._~+/-]{6,}=*",
        rf"\1 {MASK}",
    ),
    # Vendor key shapes. The lookbehinds keep "task-force" or "desk-123" intact.
    (r"(?<![A-Za-z0-9])sk-ant-[A-Za-z0-9_-]{8,}", f"sk-ant-{MASK}"),
    # OpenAI-style keys: a digit or a 16-character run, so "sk-learn-compatible-estimator"
    # stays a word.
    (
        r"(?<![A-Za-z0-9])sk-(?=[A-Za-z0-9_-]*?(?:\d|[A-Za-z0-9_]{16}))[A-Za-z0-9_-]{16,}",
        f"sk-{MASK}",
    ),
    (r"(?<![A-Za-z0-9])([sr]k_(?:live|test)_)[0-9A-Za-z]{10,}", rf"\1{MASK}"),
    (r"(?<![A-Za-z0-9])whsec_[0-9A-Za-z+/=]{16,}", f"whsec_{MASK}"),
    (r"(?<![A-Za-z0-9])(AKIA|ASIA|ABIA|ACCA|A3T[A-Z0-9])[0-9A-Z]{16}(?![A-Za-z0-9])", rf"\1{MASK}"),
    (r"(?<![A-Za-z0-9])(gh[pousr]_)[A-Za-z0-9]{20,}", rf"\1{MASK}"),
    (r"(?<![A-Za-z0-9])github_pat_[A-Za-z0-9_]{20,}", f"github_pat_{MASK}"),
    (
        r"(?<![A-Za-z0-9])(gl(?:pat|dt|rt|ptt|ft|soat|cbt|oas|imt|agent)-)[A-Za-z0-9_-]{20,}",
        rf"\1{MASK}",
    ),
    (r"(?<![A-Za-z0-9])(xox[abposrec]-|xapp-)[A-Za-z0-9-]{10,}", rf"\1{MASK}"),
    (r"(hooks\.slack\.com/services/)[A-Za-z0-9_/]{20,}", rf"\1{MASK}"),
    (r"(?<![A-Za-z0-9])AIza[0-9A-Za-z_-]{35}", f"AIza{MASK}"),
    # package-registry and model-hub tokens (npm's "npm_", Hugging Face's "hf_")
    (r"(?<![A-Za-z0-9])npm_[A-Za-z0-9]{36}(?![A-Za-z0-9])", f"npm_{MASK}"),
    (r"(?<![A-Za-z0-9])hf_[A-Za-z]{34}(?![A-Za-z0-9])", f"hf_{MASK}"),
    # An AWS secret access key near what names it: 40 characters of base64 with upper and
    # lower case letters and a digit (a lower-case hex git SHA is none of these).
    (
        r"(?i:(\b(?:aws|akia|asia)[\w\s.:=,'\"*-]{0,40}?(?:secret|key)[\w\s.:=,'\"-]{0,20}?))"
        r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[A-Z])(?=[A-Za-z0-9/+]{0,39}[a-z])"
        r"(?=[A-Za-z0-9/+]{0,39}[0-9])[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])",
        _aws_secret,
    ),
    # JSON web tokens (RFC 7519): base64url parts, the first two starting with '{"'.
    (r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*", f"jwt:{MASK}"),
)


@cache
def _compiled() -> tuple[tuple[re.Pattern[str], Any], ...]:
    # Compiled on first use, not at import: every process imports this module.
    return tuple((re.compile(pattern, re.S), replacement) for pattern, replacement in _RULES)


def redact(text: str) -> str:
    """``text`` with every recognised credential masked; anything else is left as it was."""
    if not text or len(text) < 8:
        return text  # too short to hold a credential and what says it is one
    if not _has_sign(text.lower()):
        return text
    for pattern, replacement in _compiled():
        text = pattern.sub(replacement, text)
    return text


def redact_value(value: Any) -> Any:
    """``value`` (strings, and lists, tuples and dicts of them) with credentials masked: a
    string through ``redact``, a dict entry whose name says it holds a secret replaced by
    ``MASK`` whatever it holds (``None`` and booleans aside: a flag is not a secret). Other
    values are returned as they are; containers are copied only where something changed.

    One check over all its names and texts first: a value with no sign of a credential, the
    common case, is returned as it is without a second walk."""
    texts: list[str] = []
    _gather(value, texts)
    if not _has_sign("\n".join(texts).lower()):
        return value
    return _masked(value)


def _gather(value: Any, texts: list[str]) -> None:
    if isinstance(value, str):
        texts.append(value)
    elif isinstance(value, dict):
        for key, item in value.items():
            if isinstance(key, str):
                texts.append(key)
            _gather(item, texts)
    elif isinstance(value, list | tuple):
        for item in value:
            _gather(item, texts)


def _masked(value: Any) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        masked = {key: _masked_entry(key, item) for key, item in value.items()}
        return value if all(masked[k] is value[k] for k in value) else masked
    if isinstance(value, list | tuple):
        items = [_masked(item) for item in value]
        if all(new is old for new, old in zip(items, value, strict=True)):
            return value
        return type(value)(items)
    return value


def _masked_entry(key: Any, item: Any) -> Any:
    if item is None or isinstance(item, bool) or not isinstance(key, str):
        return _masked(item)
    if not secret_named(key):
        return _masked(item)
    if not isinstance(item, str):
        return MASK
    scheme = _scheme_prefix().match(item)  # {"Authorization": "Bearer ***"}: the shape stays
    masked = (scheme[0] if scheme else "") + MASK
    return item if item == masked else masked


@cache
def _scheme_prefix() -> re.Pattern[str]:
    return re.compile(_SCHEMES + r"[ \t]+", re.I)


def driver_line(exc: BaseException, limit: int = 300) -> str:
    """The first line of a database error as the driver said it, redacted: not SQLAlchemy's
    own message, which appends the statement and its parameters (a prompt's words, a key's
    hash). The exception's class name when the driver said nothing."""
    message = str(getattr(exc, "orig", None) or exc).strip()
    first = message.splitlines()[0][:limit] if message else ""
    return redact(first) if first else type(exc).__name__

"""Masking: an error's template, what varies between occurrences masked and the figures that
are the rule kept (DESIGN §8a).

One rule a reader can hold in their head:

- **kept**: a figure that *is the rule* the error states, read from the words right before or
  after it: an HTTP status beside its reason phrase or after ``HTTP``/``status``/``error``
  ("403 Forbidden", "HTTP 401", "Fehler 413"); a number after a cap or threshold word
  (limit, max, maximum, minimum, at most, at least, no more than, more than, up to, exceeds,
  over, above, below, within; the same in the languages the families read: höchstens,
  mindestens, como máximo, au moins, al massimo, högst, minst, tot, …); a version (``v2``,
  ``version 3.1``); a small number with a unit of format or size (12 digits, 30 characters,
  10 MB, 15 %, a time glued to its figure: 300s, 24h) or a rate ("6 tickets per customer").
  "exceeds limit of 5" and "at most 5" then say one cap; "limit of 5" and "limit of 10" are
  two (a cap that changed, or two items' caps).
- **masked**: everything else with a digit in it: ids, order numbers, amounts of one
  transaction, quantities asked for, long digit runs, words with letters and digits, dates
  and times, and (before any figure is read) e-mail addresses, URLs, UUIDs, hex, paths.

A kept figure is short (at most five digits, or thousands groups), and never touches another
digit group (``+34 600 123 456``, ``555-1234``, a card's groups, a date): what could be an
address, a phone number, a card or a secret is never kept. Repeats that differ only in ids
keep one template, so one fingerprint.
"""

from __future__ import annotations

import ast
import json
import re
import unicodedata
from typing import Any

from digest.bounded import memo
from digest.error_lines import telling_line as telling_line

#: a template keeps at most this many characters of the error's first line
TEMPLATE_MAX = 200

# Masks, in order: the wider shapes first, so that a URL is not read as a path and a date not
# as three numbers.
#: an e-mail address, a link and a UUID (``digest.reply_text`` masks a reply's with them too)
EMAIL = re.compile(r"\b[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")
URL = re.compile(r"\b(?:https?|ftp|wss?)://\S+|\bwww\.[\w-]+\.\S+", re.I)
UUID = re.compile(r"\b[0-9a-f]{8}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{4}-?[0-9a-f]{12}\b", re.I)
_WIDE: tuple[tuple[re.Pattern[str], str], ...] = (
    (EMAIL, "<email>"),
    (URL, "<url>"),
    (UUID, "<uuid>"),
    (
        re.compile(
            r"\b\d{4}-\d{2}-\d{2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?"
            r"|\b\d{1,2}[/.]\d{1,2}[/.]\d{2,4}\b|\b\d{1,2}:\d{2}(?::\d{2})?\b",
            re.I,
        ),
        "<date>",
    ),
    (
        re.compile(r"\b0x[0-9a-f]+\b|\b(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{8,}\b", re.I),
        "<hex>",
    ),
    # a quoted value: what the caller passed, named back by the error
    (re.compile(r"\"[^\"\n]{0,120}\"|'[^'\n]{0,120}'|«[^»\n]{0,120}»|`[^`\n]{0,120}`"), "<q>"),
    # a name in parentheses after what it names ("creating S3 Bucket (acme-logs-prod)",
    # "on endpoint web (3b1f0e9a7c22)"): one word joined by "-", "_", "." or "/", an instance
    (re.compile(r"(?<=\()(?=[^()\s]*[-_./])[^()\s]{2,120}(?=\))"), "<q>"),
    # a list of numbers ("in lines [48, 97, 131]"): how many is the instance's, not the rule's
    (re.compile(r"\[\s*\d[\d.]*(?:\s*,\s*\d[\d.]*)+\s*\]"), "[<ids>]"),
    (re.compile(r"(?:[a-z]:\\|~?/)[\w.\-~]+(?:[\\/][\w.\-~]+)+/?", re.I), "<path>"),
)
#: a letter of a script written without spaces (kana, CJK ideographs)
_UNSPACED_LETTER = r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff]"
_IDS: tuple[tuple[re.Pattern[str], str], ...] = (
    # a number with thousands separators: 1,234.50 or 12.000
    (re.compile(r"\b\d{1,3}(?:[,.]\d{3})+(?:[.,]\d+)?\b"), "<id>"),
    # …or grouped by spaces, as French, German, Nordic and Slavic errors write it ("Mitarbeiter
    # 81 002 nicht gefunden"): one number, not two
    (re.compile(r"\b\d{1,3}(?: \d{3})+\b"), "<id>"),
    # in Chinese and Japanese, written without spaces, a figure glued to the words is masked
    # alone ("订单12345不存在", "2024年7月1日の改定により"): not the words with it
    (
        re.compile(
            rf"(?<={_UNSPACED_LETTER})\d+(?:[.,]\d+)*|\d+(?:[.,]\d+)*(?={_UNSPACED_LETTER})"
        ),
        "<id>",
    ),
    # any word with a digit in it: 42, 3.5, HAT123, ORD-4412, v2 …
    (re.compile(r"[+-]?\b[\w-]*\d[\w.-]*\b"), "<id>"),
)
_SPACE = re.compile(r"\s+")

# --- the figures that are the rule ------------------------------------------------------

#: a figure: at most five digits, or one or two thousands groups, with up to two decimals
_NUM = r"(?:\d{1,3}(?:[,.]\d{3}){1,2}|\d{1,5})(?:[.,]\d{1,2})?"
#: …that touches no other digit group, address or word: not a phone's, a card's or a date's
_ALONE = r"(?![\d@]|\s?[-.,:/]?\s?\d|[^\W\d_])"
#: …and a time unit written glued to it ("at least 300s", "within 24h")
_UNIT = r"(?:%|\s?(?:[kmgt]i?b|kg|ml|cm|mm|km)\b|(?:ms|s|h)\b)?"
#: HTTP's reason phrases (RFC 9110), lower case: a status line gives them after its code
HTTP_REASONS = (
    "bad request|unauthori[sz]ed|payment required|forbidden|not found|method not allowed|not "
    "acceptable|request timeout|conflict|gone|length required|precondition (?:failed|required)"
    "|(?:payload|request entity) too large|uri too long|unsupported media type|unprocessable "
    "(?:entity|content)|locked|failed dependency|too early|upgrade required|too many requests"
    "|internal server error|not implemented|bad gateway|service unavailable|gateway timeout"
)
#: words after which a figure is a cap, a threshold or a window (English, then the languages
#: the error families read)
_CAP_WORDS = (
    r"at most|at least|no (?:more|fewer|less) than|not (?:more|less) than|more than|less than"
    r"|fewer than|greater than|smaller than|longer than|shorter than|up to|exceed(?:s|ed|ing)?"
    r"(?: the)?|over|above|below|within"
    r"|höchstens|mindestens|maximal|nicht mehr als|mehr als|weniger als|bis zu|über|unter"
    r"|como (?:máximo|mínimo)|no más de|más de|menos de|hasta|al menos|por lo menos"
    r"|au (?:maximum|minimum|plus|moins)|pas plus de|plus de|moins de|jusqu'à"
    r"|no (?:máximo|mínimo)|mais de|pelo menos|até"
    r"|al (?:massimo|minimo)|almeno|più di|meno di|fino a"
    r"|meer dan|minder dan|groter dan|kleiner dan|hoger dan|lager dan|ten minste|minstens"
    r"|hoogstens|maximaal|minimaal"
    r"|högst|minst|højst|høyst|mindst|maks|maksimalt|op til|upp till|opp til|tot"
    r"|więcej niż|mniej niż|ponad|co najmniej|najwyżej|maksymalnie|minimalnie"
    r"|více než|víc než|méně než|nejvýše|nejméně|alespoň|maximálně|minimálně"
    r"|en fazla|en az"
)
#: a cap's noun after its figure ("over the 95 kg limit", "95 kg sınırını aşıyor")
_CAP_AFTER = (
    r"limit|limiet|grens|limite|límite|grenze|limitu|sınır\w*|gräns\w*|grænse\w*|grense\w*"
    r"|raja\w*|hranic\w*"
)
#: a cap's noun: "limit of 10", "the maximum allowed is 4", "maximale Größe von 20 MB"
_CAP_NOUNS = (
    r"limit|limited|limite|límite|grenze|maximum|minimum|max|min|quota|cap|threshold"
    r"|allowance|m[aá]xim[ao]s?|m[ií]nim[ao]s?|massim[ao]|minim[ao]|maximale?|minimale?"
    r"|höchst\w*|mindest\w*|gräns\w*|grænse\w*|grense\w*|limiet\w*|hranic\w*|limitu"
    # the adjectives of a bound in the Nordic and Slavic languages, Finnish and Turkish
    r"|minsta|högsta|lägsta|mindste|højeste|laveste|minste|høyeste|minimaln\w*|maksymaln\w*"
    r"|minimáln\w*|maximáln\w*|nejnižší|nejvyšší|vähimmäis\w*|enimmäis\w*|asgari|azami"
    # what is permitted names a cap too ("the permitted axle load of 22.5 t")
    r"|permitted|allowed|zulässige?|toegestane?|consentit[ao]|permitid[ao]|autorisée?"
    # an age rating ("film F-12 is rated 16"): the rule a buyer's age is held against
    r"|rated|age rating"
)
#: a word between a cap's noun and its figure ("maximum order value of"), never one that
#: introduces an id ("limit reached for 4412")
_FILLER = r"(?:\s+(?!(?:for|on|in|at|by|from|to|with|order|id|no)\b)[^\W\d_][\w-]*){0,2}?"
#: a unit of format or size after a small number ("12 digits", "30 characters", "10 MB")
_SIZE_UNITS = (
    r"%|percent|digits?|characters?|chars?|letters?|zeichen|stellen|caracteres|caractères"
    r"|caratteri|d[ií]gitos|chiffres|cifre|[kmgt]i?b\b"
)
#: the units of a window of time ("48 hours before", "3 Tage vorher")
_WINDOW_UNITS = (
    r"h|hrs?|hours?|days?|weeks?|months?|minutes?|mins?|stunden|tage[n]?|wochen|minuten"
    r"|heures?|jours?|semaines?|horas?|d[ií]as|semanas|ore|giorni|settimane|uur|dagen|weken"
    r"|timmar|dagar|veckor|timer|dage|dager|uker|godzin\w*|dni|tygodni\w*|hodin\w*|dn[ůí]"
    r"|saat|gün"
)
#: what a window is before: the words that follow it
_WINDOW_AFTER = (
    r"before|in advance|prior|ahead|beforehand|vorher|im voraus|vor|avant|à l'avance"
    r"|antes|de antelación|con antelación|de antecedência|prima|in anticipo|van tevoren"
    r"|vooraf|voor|innan|i förväg|før|forud|i forveien|wcześniej|przed|předem|před|önce"
)
#: a bound's word before its figure in Chinese, Japanese and Korean ("定員は10名まで" is
#: "capacity: up to 10 people", "最多10人", "최대 10명"), and the particle or sign between
_CJK_BOUND_BEFORE = (
    r"最大|最小|最多|最少|最高|最低|上限|下限|定員|定员|至少|不超过|不超過|不得超过|超过|超過"
    r"|최대|최소|최고|최저|정원"
)
#: …and after its figure and counter ("6名様以上", "10名以内", "3日前まで", "20歳以上", "5건 이하")
_CJK_BOUND_AFTER = r"まで|以上|以下|以内|未満|を超え|超え|之内|이상|이하|이내|까지|초과|미만"
_KEPT = re.compile(
    # a status where a message starts or after a label, not an order numbered 404 "not found"
    rf"(?:^|(?<=[:(\[«])|(?<=[:(\[«] )|(?<=returned )|(?<=received ))"
    rf"(?P<code>[1-5]\d\d)(?=\s*[-:–]?\s*(?:{HTTP_REASONS})\b)"
    rf"|(?:\bhttp(?:/\d(?:\.\d)?)?|\bstatus(?: code)?|\b(?:error|fehler|erreur|erro|errore)"
    rf"(?: code)?)\s*[:=]?\s*(?P<status>[1-5]\d\d){_ALONE}"
    rf"|\b(?:{_CAP_WORDS})\s*[:=]?\s*(?P<cap>{_NUM}{_UNIT}){_ALONE}"
    rf"|\b(?:{_CAP_NOUNS}){_FILLER}\s*(?:of|is|are|to|von|de|di|du|på|van|ist|es|est|è|é|je|wynosi|är|er|bedraagt|:|=|\()?\s*"
    rf"(?P<noun>{_NUM}{_UNIT}){_ALONE}"
    rf"|(?<![\w.,/:+-])(?P<before>{_NUM}(?:%|\s?(?:[kmgt]i?b|kg|ml|cm|mm|km|m|t|°c|°f)\b))"
    rf"(?=\s+(?:{_CAP_AFTER})\b)"
    rf"|(?<![\w/.-])(?P<version>v\d{{1,3}}(?:\.\d{{1,3}}){{0,2}})\b(?![.-]\d)"
    rf"|\b(?:version|versión|versione|versão)\s*[:=]?\s*"
    rf"(?P<vnum>\d{{1,3}}(?:\.\d{{1,3}}){{0,2}}){_ALONE}"
    rf"|(?<![\w.,/:+-])(?<!\d )(?P<sized>\d{{1,3}})"
    rf"(?=\s?(?:{_SIZE_UNITS}))"
    rf"|(?<![\w.,/:+-])(?<!\d )(?P<rate>\d{{1,3}})"
    rf"(?=\s+(?:[^\W\d_]+\s+)?(?:per|pro|por|par|each)\b)"
    # a window before what it bounds ("close 48 hours before the show", "3 days in advance")
    rf"|(?<![\w.,/:+-])(?P<window>\d{{1,3}})(?=\s?(?:{_WINDOW_UNITS})\s+(?:{_WINDOW_AFTER})\b)"
    # the bound of a comparison an error prints ("TTL too low (120 < 300)", "size 52428812 >
    # 26214400"): the figure after the sign, a value before it
    rf"|(?<=\d)\s?(?:<=?|>=?|≤|≥)\s?(?P<bound>{_NUM}{_UNIT}){_ALONE}"
    # a bound in a script written without spaces, or in Korean: its word before the figure,
    # or after the figure and its counter (not a date's day: "7月1日まで")
    rf"|(?:{_CJK_BOUND_BEFORE})[^\W\d_]{{0,4}}?\s?(?:は|が|で|为|為|是|은|는|:|：)?\s?"
    rf"(?P<cjk>{_NUM})(?!\d)"
    rf"|(?<![\d.,年月/-])(?P<cjkbound>{_NUM})(?=\s?[^\W\d_]{{0,3}}?(?:{_CJK_BOUND_AFTER}))",
    re.IGNORECASE | re.MULTILINE,
)
_GROUPS = (
    "code", "status", "cap", "noun", "before", "version", "vnum", "sized", "rate", "window",
    "bound", "cjk", "cjkbound",
)  # fmt: skip
#: a kept figure stands in as one private-use character while the id masks run
_HOLD = 0xE000


def _held(text: str) -> tuple[str, list[str]]:
    """``text`` with each kept figure replaced by a placeholder the masks leave alone, and the
    figures in placeholder order."""
    figures: list[str] = []
    parts: list[str] = []
    at = 0
    for match in _KEPT.finditer(text):
        group = next(g for g in _GROUPS if match.group(g) is not None)
        if len(figures) >= 0x100:
            break
        parts += [text[at : match.start(group)], chr(_HOLD + len(figures))]
        figures.append(match.group(group))
        at = match.end(group)
    parts.append(text[at:])
    return "".join(parts), figures


def _released(text: str, figures: list[str]) -> str:
    for index, figure in enumerate(figures):
        text = text.replace(chr(_HOLD + index), figure)
    # a placeholder a wider mask swallowed is gone with it; one that survived stands alone
    return re.sub("[\ue000-\ue0ff]", "<id>", text)


def through_figures(text: str) -> list[str]:
    """``text`` up to the end of each kept figure, shortest first: "exceeds the limit of 5
    per order" → ["exceeds the limit of 5"]. A phrase cut there still states its rule."""
    text = str(text)
    return [text[: match.end()].rstrip() for match in _KEPT.finditer(text)]


def kept_figures(text: str) -> list[str]:
    """The figures of ``text`` that are the rule and stay in its template, in order (the rule
    above): ``"403 Forbidden: refunds over 200 EUR"`` → ``["403", "200"]``."""
    return _held(unicodedata.normalize("NFKC", str(text)))[1]


#: a status code names an error; the other kept figures state a rule's figure
_STATUS_GROUPS = frozenset({"code", "status"})


def figure_shape(text: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """``text`` with its kept figures replaced by ``#``, its status codes, and its other kept
    figures (caps, thresholds, versions, sizes), each in order: two errors whose shapes are
    equal differ only in the figures that are their rule ("limit of 5", "limit of 10")."""
    text = unicodedata.normalize("NFKC", str(text))
    statuses: list[str] = []
    figures: list[str] = []
    for match in _KEPT.finditer(text):
        group = next(g for g in _GROUPS if match.group(g) is not None)
        (statuses if group in _STATUS_GROUPS else figures).append(match.group(group).lower())
    shape = _KEPT.sub(lambda m: m.group(0).replace(_group_text(m), "#"), text)
    return _SPACE.sub(" ", shape).strip().lower(), tuple(statuses), tuple(figures)


def _group_text(match: re.Match[str]) -> str:
    return next(match.group(g) for g in _GROUPS if match.group(g) is not None)


def _masked(held: str, figures: list[str], *, quotes: bool) -> str:
    """``held`` (``_held``'s text) with the masks applied, then the kept figures put back."""
    for pattern, mask in _WIDE:
        if quotes or mask not in ("<q>", "[<ids>]"):
            held = pattern.sub(mask, held)
    for pattern, mask in _IDS:
        held = pattern.sub(mask, held)
    return _released(held, figures)


def mask_ids(text: str) -> str:
    """``text`` with what varies between occurrences masked as in a template, case kept, the
    figures that are the rule kept: "Order 4412 for bob@x.com" → "Order <id> for <email>",
    "403 Forbidden: refunds over 200 EUR" stays as it is."""
    masked = _masked(*_held(unicodedata.normalize("NFKC", str(text))), quotes=False)
    return _SPACE.sub(" ", masked).strip()


#: error templates a process remembers, and their bytes (``digest.bounded``): a run's
#: fingerprints, its signature (read several times per event) and a compose's replay probes
#: template the same error texts again. Keyed by a digest of the error (about 280 bytes an
#: entry): in the throughput stream (issue 27) 88% of asks hit with 0.5 MiB, as with 4 MiB
TEMPLATES_KEPT, TEMPLATES_BYTES = 4096, 2**19


def error_template(error: str) -> str:
    """The shape of an error message: its first line, lowercased, with what varies between
    occurrences masked and the figures that are the rule kept. ``order 4412 not found`` and
    ``order 98 not found`` share one; ``limit of 5`` and ``limit of 10`` do not."""
    return _error_template(str(error))


@memo(TEMPLATES_KEPT, TEMPLATES_BYTES, digest_keys=True)
def _error_template(error: str) -> str:
    structured = _json_template(error)
    if structured is not None:
        return structured[:TEMPLATE_MAX]
    head, body = json_body(telling_line(error))
    if body is not None and head and (structured := _json_template(body)) is not None:
        # a status line before a JSON body ("HTTP 400 Bad Request: {…}"): both tell
        return f"{error_template(head)}: {structured}"[:TEMPLATE_MAX]
    held, figures = _held(unicodedata.normalize("NFKC", telling_line(error)))
    held = _SHELL_SUBJECT.sub("<q>", _SCHEMA_NAME.sub(r"\1 \3", held))
    held = _COMMAND_SUBJECT.sub("<q>", held, count=1)
    line = _masked(_codes_masked(held).lower(), [f.lower() for f in figures], quotes=True)
    line = _SPACE.sub(" ", line).strip(" .:;,")
    return line[:TEMPLATE_MAX]


#: a schema's name for the rule an error broke ("violates unique constraint
#: \"customers_email_key\"", "for key 'users.email'"): not a value the caller passed, so it
#: stays in the template unquoted (two constraints of one table are two errors)
_SCHEMA_NAME = re.compile(r"\b(constraint|index|for key)\s+([\"'`])([\w.$]{1,80})\2", re.I)

#: what a shell or a POSIX tool names before its message ("bash: jq: command not found",
#: "cat: q3.csv: No such file or directory"): the caller's value, masked like a quoted one
_SHELL_SUBJECT = re.compile(
    r"(?<=: )[^\s:]{1,120}(?=: (?:command not found|not found|no such file or directory"
    r"|permission denied|is a directory|not a directory|operation not permitted)\b)",
    re.I,
)

#: the command a PowerShell error names before " : " ("Copy-Item : Cannot find path …",
#: "helm : The term 'helm' is not recognized …"): which command failed, not how
_COMMAND_SUBJECT = re.compile(r"^[^\s:]{1,120}(?= : \S)")

#: a JSON error's keys whose number is a status or a cap, kept as the rule
_KEPT_KEYS = re.compile(r"(?:http_?)?status(?:_?code)?|code|limit|max\w*|min\w*", re.I)


#: where a JSON body starts after a short head ("HTTP 400 Bad Request: {…", "409 - [{…")
_BODY = re.compile(r"^[^{\[]{0,80}?(?=[{\[])")


def json_body(line: str) -> tuple[str, str | None]:
    """A line as the head before a JSON body and the body ("HTTP 404 Not Found: {…}" →
    ("HTTP 404 Not Found", "{…}")), or (``line``, None) when no JSON object (or list of
    objects) follows a short head."""
    found = _BODY.match(line)
    if found is None:
        return line, None
    body = line[found.end() :].strip()
    try:
        value = json.loads(body)
    except ValueError:
        return line, None
    if not isinstance(value, dict) and not (
        isinstance(value, list) and any(isinstance(v, dict) for v in value)
    ):
        return line, None  # "[1, 2]" after a message is part of the message
    return found.group(0).strip().rstrip(":-–— ").strip(), body


def structure(text: str) -> dict[str, Any] | list[Any] | None:
    """``text`` as the object or list it writes: JSON, or a Python literal a tool printed as
    its error (``{'detail': [{'loc': ['query', 'origin'], 'msg': 'field required'}]}``), read
    as data only (``ast.literal_eval``); None when it writes neither."""
    text = str(text).strip()
    if not text.startswith(("{", "[")) or len(text) > 20_000:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            return None
    return value if isinstance(value, dict | list) else None


#: how deep a JSON error's template reads (GraphQL: data → mutation → userErrors → item → message)
_JSON_DEPTH = 6


#: the keys of a JSON error that say what went wrong: read first, so that a template cut at
#: ``TEMPLATE_MAX`` keeps them
_MESSAGE_KEYS = re.compile(
    r"message|msg|messages|detail|details|description|error_description|reason|title|value"
    r"|errors?|errormessages?|issues?|diagnostics|text"
    # …as APIs name them in their own languages
    r"|mensaje|mensagem|messaggio|nachricht|(?:fehler)?meldung|bericht|melding|meddelande"
    r"|besked|wiadomość|komunikat|zpráva|mesaj|viesti|descripci[oó]n|descrição|descrizione"
    r"|beschreibung|omschrijving|beskrivelse|beskrivning|detalle|detalhe|dettaglio",
    re.I,
)
#: the keys that only help to diagnose (a service's inner error, its trace, links, request
#: ids): read last, the same for every error of a service
_DIAGNOSTIC_KEYS = re.compile(
    r"inner_?error|stack(?:_?trace)?|trace(?:back|_?id)?|debug\w*|doc(?:umentation)?_?url"
    r"|more_?info|help_?url|links?|request_?id|correlation_?id|timestamp|errordetails?",
    re.I,
)


def _key_rank(key: str) -> int:
    """Where a JSON error's key is read: what went wrong first, diagnostics last."""
    if _MESSAGE_KEYS.fullmatch(key):
        return 0
    return 2 if _DIAGNOSTIC_KEYS.fullmatch(key) else 1


def _json_template(error: str) -> str | None:
    """A JSON object or list of them as an error: its keys and the templates of its text
    values (ids masked), so that the message inside it still tells errors apart."""
    value = structure(error)
    if value is None:
        return None

    def shape(item: Any, depth: int = 0, key: str = "") -> str:
        if depth > _JSON_DEPTH:
            return "…"
        if isinstance(item, dict):
            inner = ", ".join(
                f"{k}: {shape(v, depth + 1, str(k))}"
                for k, v in sorted(item.items(), key=lambda kv: (_key_rank(str(kv[0])), kv[0]))
            )
            return "{" + inner + "}"
        if isinstance(item, list):
            return "[" + ", ".join(shape(v, depth + 1) for v in item[:5]) + "]"
        if isinstance(item, str):
            return error_template(item) if item.strip() else "<empty>"
        if isinstance(item, bool) or item is None:
            return str(item).lower()
        if isinstance(item, int) and 0 <= item <= 99_999 and _KEPT_KEYS.fullmatch(key):
            return str(item)
        return "<id>"

    return shape(value)


#: an upper-case code in mixed-case text: an airport (JFK), a currency (EUR), a fare class
_CODE = re.compile(r"\b[A-Z]{2,5}\b")
_LETTER = re.compile(r"[^\W\d_]")


def _codes_masked(line: str) -> str:
    """Upper-case codes masked as ids, unless the message itself is written in capitals
    ("ERROR: NOT FOUND" keeps its words). A message is capitals when most of its letters are."""
    letters = _LETTER.findall(line)
    upper = sum(1 for c in letters if c.isupper())
    if not letters or upper * 2 > len(letters):
        return line
    return _CODE.sub("<code>", line)

"""What an error says, read as a person reads it, whatever shape a tool gave it: the message
of a JSON error body (``{"error": {"code": "card_declined", "message": "Your card has
insufficient funds."}}``, ``{"errors": {"summary": "You must specify a summary"}}``), the
exception of a traceback, the field and message of a validation error, after a status line
("HTTP 400 Bad Request: …") that stays in front; and a code's words (``channel_not_found``
reads "channel not found").

The offline judge picks an error's family and quotes its precondition from this reading
(``digest.model.error_families``, ``digest.model.error_reading``); what it returns is the
error's own text, still data: it is only ever quoted (``digest.text.quoted``).
"""

from __future__ import annotations

import json
import re
from typing import Any

from digest.masking import json_body, telling_line

#: keys whose text is what the body says went wrong, most telling first
_MESSAGE_KEYS = (
    "message", "msg", "detail", "details", "error_description", "errormessage",
    "errormessages", "description", "title", "reason",
)  # fmt: skip
#: keys whose text is a code for what went wrong ("card_declined", "not_in_channel")
_CODE_KEYS = ("error", "code", "error_code", "errorcode", "decline_code", "reason_code")
#: keys that hold the errors of the body, one per field or one per item
_ERRORS_KEYS = ("errors", "error", "violations", "fielderrors", "field_errors", "issues")
#: what one item says at most, and how many items are read
_SAID_MAX = 300
_ITEMS = 3
#: an underscore between letters: a code's word break
_SNAKE = re.compile(r"(?<=[^\W\d_])_(?=[^\W\d_])")


def readable(text: str) -> str:
    """``text`` with a code's underscores read as spaces ("not_in_channel" → "not in
    channel"), every other character where it was (the same length, so a span found in one
    is the same span in the other)."""
    return _SNAKE.sub(" ", text)


def statement(error: str) -> str:
    """What the error says (see the module's docstring): its telling line
    (``digest.masking.telling_line``), or, when that carries a JSON error body, the body's
    message, its fields' messages and codes, after the status line before it."""
    line = telling_line(error)
    head, body = json_body(line)
    if body is None:
        return line
    said = "; ".join(_said(json.loads(body)))
    if not said:
        return line
    return f"{head}: {said}" if head else said


def _said(value: Any, depth: int = 0) -> list[str]:
    """What a parsed JSON error body says: messages, then fields with their messages
    ("summary: You must specify a summary"), then codes; at most a few of each, deduplicated."""
    if depth > 3:
        return []
    if isinstance(value, list):
        found = [s for item in value[:_ITEMS] for s in _said(item, depth + 1)]
        return list(dict.fromkeys(found))
    if isinstance(value, str):
        return [_short(value)] if value.strip() else []
    if not isinstance(value, dict):
        return []
    keys = {str(k).casefold(): v for k, v in value.items()}
    messages = [s for k in _MESSAGE_KEYS for s in _texts(keys.get(k))]
    fields: list[str] = []
    for k in _ERRORS_KEYS:
        item = keys.get(k)
        if isinstance(item, dict) and not any(key in item for key in (*_CODE_KEYS, "message")):
            # field → message ("errors": {"summary": "You must specify a summary"})
            fields += [f"{name}: {s}" for name, v in list(item.items())[:_ITEMS] for s in _texts(v)]
        elif isinstance(item, dict | list):
            fields += _said(item, depth + 1)
    field = keys.get("field") or keys.get("param") or keys.get("loc")
    codes = [s for k in _CODE_KEYS for s in _texts(keys.get(k)) if k != "error" or not fields]
    if isinstance(field, str) and field.strip() and not messages:
        # one error item naming its field ({"field": "title", "code": "missing_field"})
        return [f"{_short(field)}: {'; '.join(codes) or 'invalid'}"]
    return list(dict.fromkeys([*messages, *fields, *codes]))


def _texts(value: Any) -> list[str]:
    """The non-empty strings of ``value`` (a string, or a list of them), shortened."""
    items = value[:_ITEMS] if isinstance(value, list) else [value]
    return [_short(v) for v in items if isinstance(v, str) and v.strip()]


def _short(text: str) -> str:
    line = " ".join(text.split()).rstrip(" .")
    return line if len(line) <= _SAID_MAX else line[: _SAID_MAX - 1] + "…"

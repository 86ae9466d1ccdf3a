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

from digest.masking import json_body, structure, telling_line

#: keys whose text is what the body says went wrong, most telling first
_MESSAGE_KEYS = (
    "message", "msg", "detail", "details", "error_description", "errormessage",
    "errormessages", "errorsummary", "description", "title", "reason", "text",
    # the same keys where an API names its fields in its own language
    "mensaje", "mensagem", "messaggio", "nachricht", "meldung", "fehlermeldung", "bericht",
    "melding", "meddelande", "besked", "wiadomość", "komunikat", "zpráva", "mesaj", "viesti",
    "descripción", "descripcion", "descrição", "descrizione", "beschreibung", "omschrijving",
    "beskrivelse", "beskrivning", "detalle", "detalhe", "dettaglio",
)  # fmt: skip
#: keys whose text is a code for what went wrong ("card_declined", "not_in_channel")
_CODE_KEYS = ("error", "code", "error_code", "errorcode", "decline_code", "reason_code")
#: keys that hold the errors of the body, one per field or one per item
_ERRORS_KEYS = (
    "errors", "error", "violations", "fielderrors", "field_errors", "issues", "usererrors",
    "invalid-params", "invalid_params", "errorcauses", "details", "error_chain", "causes",
)  # fmt: skip
#: keys of an exception a kernel or runner reports: its name and its value (Jupyter's
#: ``error`` output and ``execute_reply``)
_RAISED_KEYS = ("ename", "evalue")
#: keys of one error item that name the field it is about
_FIELD_KEYS = (
    "field", "param", "parameter", "loc", "pointer", "name", "path", "instancepath", "datapath",
    "propertypath",
    # …and in an API's own language (after the English names: read in this order)
    "campo", "champ", "feld", "veld", "fält", "felt", "pole", "alan",
)  # fmt: skip
#: what one item says at most, and how many items are read
_SAID_MAX = 300
#: how deep a body is read (GraphQL's ``data`` → mutation → ``userErrors`` → item → message)
_DEPTH = 5
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
        return _go_fields(line) or line
    said = "; ".join(_said(json.loads(body)))
    if not said:
        return line
    said = _go_fields(said) or said
    return f"{head}: {said}" if head else said


#: a Go struct printed with its field names after the line's head ("… 422 Validation Failed
#: [{Resource:PullRequest Field: Code:custom Message:No commits between main and dev}]")
_GO_STRUCTS = re.compile(r"\s*\[?(?:\{[A-Z]\w*:[^{}]*\}\s*)+\]?\s*$")
_GO_MESSAGE = re.compile(r"\bMessage:([^{}]*?)\s*\}")


def _go_fields(line: str) -> str | None:
    """What a line that ends with Go structs says: its head and each struct's ``Message``
    ("… 422 Validation Failed: No commits between main and dev"); None for any other line."""
    found = _GO_STRUCTS.search(line)
    if found is None:
        return None
    messages = [m.strip() for m in _GO_MESSAGE.findall(found.group(0)) if m.strip()]
    if not messages:
        return None
    head = line[: found.start()].rstrip(" :")
    # of what leads to them ("failed to create pull request: POST https://…: 422 Validation
    # Failed"), the status says the class of error; the call before it is the same every time
    status = _HEAD_STATUS.search(head)
    head = head[status.start() :] if status is not None else head
    said = "; ".join(dict.fromkeys(messages))
    return f"{head}: {said}" if head else said


_HEAD_STATUS = re.compile(r"\b[45]\d\d\b(?=[^\d]*$)")


def _said(value: Any, depth: int = 0) -> list[str]:
    """What a parsed JSON error body says: messages, then fields with their messages
    ("summary: You must specify a summary"), then codes; at most a few of each, deduplicated."""
    if depth > _DEPTH:
        return []
    if isinstance(value, list):
        found = [s for item in value[:_ITEMS] for s in _said(item, depth + 1)]
        return list(dict.fromkeys(found))
    if isinstance(value, str):
        return [_short(value)] if value.strip() else []
    if not isinstance(value, dict):
        return []
    keys = {str(k).casefold(): v for k, v in value.items()}
    raised = [_texts(keys.get(k)) for k in _RAISED_KEYS]
    if all(raised):
        # an exception as a notebook kernel reports it ({"ename": "KeyError", "evalue": …})
        return [f"{raised[0][0]}: {raised[1][0]}"]
    messages = [
        s
        for k in _MESSAGE_KEYS
        for message in _texts(keys.get(k), cut=False)
        for s in _unwrapped(message, depth)
    ]
    fields: list[str] = []
    for k in _ERRORS_KEYS:
        item = keys.get(k)
        if isinstance(item, dict) and not any(key in item for key in (*_CODE_KEYS, "message")):
            # field → message ("errors": {"summary": "You must specify a summary"}), or field
            # → its error items ("details": {"status": [{"description": "Status: closed
            # prevents ticket update", "error": "InvalidValue"}]}, Zendesk's)
            fields += [
                _of_field(str(name), s)
                for name, v in list(item.items())[:_ITEMS]
                for s in (_texts(v) or _said(v, depth + 1))
            ]
        elif isinstance(item, dict | list):
            fields += _said(item, depth + 1)
    field = next((keys[k] for k in _FIELD_KEYS[:3] if keys.get(k)), None)
    codes = [s for k in _CODE_KEYS for s in _texts(keys.get(k)) if k != "error" or not fields]
    if isinstance(field, str) and field.strip() and not messages:
        # one error item naming its field ({"field": "title", "code": "missing_field"})
        return [f"{_short(field)}: {'; '.join(codes) or 'invalid'}"]
    named = next((n for k in _FIELD_KEYS if (n := _field_name(keys.get(k), k))), None)
    if depth > 0 and named and messages and not fields:
        # one item of a body's errors, its field named ({"name": "start_date", "reason": …})
        return [f"{_short(named)}: {m}" for m in messages]
    # a body's errors by field say what failed; its own message beside them only counts them
    # or says that something did not validate ("1 invalid parameter", "Validation Failed")
    found = list(dict.fromkeys([*fields, *codes] if fields else [*messages, *codes]))
    if found:
        return found
    # what wraps the errors ({"data": {"cartLinesAdd": {"userErrors": […]}}}): read inside
    inner = [_parsed(v) for v in value.values()]
    inner = [v for v in inner if isinstance(v, dict | list)][:_ITEMS]
    return list(dict.fromkeys(s for v in inner for s in _said(v, depth + 1)))


def _of_field(name: str, said: str) -> str:
    """What an error item says of its field, the field named once ("status: …", but
    "Status: closed prevents ticket update" as it is)."""
    return said if said.casefold().startswith(name.casefold()) else f"{name}: {said}"


def _field_name(value: Any, key: str) -> str | None:
    """The field an error item names: a name, or the last name of a location's path
    (``"loc": ["query", "origin"]`` → "origin", FastAPI's and pydantic's; a GraphQL error's
    ``"path"``); of a JSON pointer (an OpenAPI validator's ``"path": "/body/amount"``, ajv's
    ``instancePath``),
    its last two names, the item selectors between them aside
    (``/purchase_units/@reference_id=='default'/amount/value`` → "amount/value", PayPal's)."""
    if isinstance(value, list) and key in ("loc", "path"):
        value = next((v for v in reversed(value) if isinstance(v, str) and v.strip()), None)
    if isinstance(value, str) and value.startswith("/"):
        names = [part for part in value.split("/") if _POINTER_NAME.fullmatch(part)]
        value = "/".join(names[-2:]) or value
    return value if isinstance(value, str) and value.strip() else None


#: a name in a JSON pointer (not an item's index or a selector such as ``@id=='x'``)
_POINTER_NAME = re.compile(r"[^\W\d][\w-]*")


def _parsed(value: Any) -> Any:
    """A string that holds a JSON object (a body passed on as text: ``"response": "{…}"``),
    parsed; any other value as it is."""
    if not isinstance(value, str):
        return value
    found = structure(value)
    return value if found is None else found


def _texts(value: Any, cut: bool = True) -> list[str]:
    """The non-empty strings of ``value`` (a string, or a list of them), shortened (unless
    not ``cut``); a text given with its language is that text (OData: ``"message": {"lang":
    "de", "value": …}``)."""
    items = value[:_ITEMS] if isinstance(value, list) else [value]
    items = [_localised(v) if isinstance(v, dict) else v for v in items]
    return [_short(v) if cut else v for v in items if isinstance(v, str) and v.strip()]


def _unwrapped(message: str, depth: int) -> list[str]:
    """A message that carries the errors it sums up as JSON after a short head ("Property
    values were not valid: [{"message": "Property 'x' does not exist", …}]", HubSpot's): what
    those errors say; any other message as it is, shortened."""
    _head, body = json_body(message)
    if body is None:
        return [_short(message)]
    inner = _said(json.loads(body), depth + 1)
    return inner or [_short(message)]


def _localised(value: dict[Any, Any]) -> Any:
    """The text of a message given as ``{"lang": …, "value": …}`` (or ``"text"``), else None."""
    keys = {str(k).casefold(): v for k, v in value.items()}
    if "lang" in keys or "language" in keys or "locale" in keys:
        return keys.get("value", keys.get("text"))
    return None


def _short(text: str) -> str:
    line = " ".join(text.split()).rstrip(" .")
    return line if len(line) <= _SAID_MAX else line[: _SAID_MAX - 1] + "…"

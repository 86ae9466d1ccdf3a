"""The line of an error that says what went wrong (``telling_line``), whatever shape a tool
gave it: a traceback's exception, a Java trace's root cause, a browser's call log, a JSON body
over several lines, a status line and its body, a validation error's field lines, a tool's
prefixed lines (``npm ERR!``), a PowerShell error record, an HTTP client's repr; without what
only locates it (a log line's timestamps and ids, a package, a gRPC frame) or what a terminal
adds (colour codes, box frames). ``digest.masking`` templates it; the offline judge reads it.
"""

from __future__ import annotations

import json
import re

#: a first line that only announces errors ("1 validation error for CreateTicket", "Validation
#: failed:"): what failed is said on the lines after it
_ANNOUNCES = re.compile(
    r"(?:[\w.]*(?:error|exception):\s*)?(?:\d+ (?:validation )?errors? (?:for|in|found|"
    r"occurred)\b[^:]*|[^:]{1,60}:)",
    re.I,
)
#: what a validation error adds after its kind: the value it was given ("[type=enum,
#: input_value='urgent', input_type=str]" → "[type=enum]")
_GIVEN = re.compile(r",\s*input_(?:value|type)=.*(?=\]\s*$)")


def telling_line(error: str) -> str:
    """The line that says what went wrong, without what only locates it (a log line's
    timestamp, level and ``key=value`` ids; a Java exception's package): the first; for a
    Python traceback (whose first line is the same for every error, a runner's own words
    before it or not) its last, the exception, with its message's lines when it goes on below;
    for a JSON body written over several lines, all of it on one; for a status line followed
    by headers and a body ("HTTP 422 …", "Content-Type: …", "{…}"), the status and the body;
    for a first line that only announces errors (a validation error's "1 validation error
    for CreateTicket", a line ending with a colon), it and the two lines after it, which say
    the field and what is wrong with it ("… for CreateTicket: priority: Input should be 'low'
    or 'high' [type=enum]"); for lines that all open with one tool's prefix ("npm ERR! code
    ENOENT", "npm ERR! syscall open", …), the first that says more than a code or a value; for
    a first line that says nothing went wrong (a tool's progress: "Performing Streamed
    Install"), the first line after it that does (of four words or more, if any)."""
    lines = [part for part in map(_unframed, str(error).splitlines()) if part]
    if not lines:
        return ""
    if (client := _CLIENT_REPR.match(lines[0])) is not None:
        # a client library's repr of an HTTP error: its status and the message it returned
        return f"HTTP {client.group(1)}: {client.group(2)}"
    if _TRACEBACK.search(lines[0]):
        return _located(_raised(lines))
    causes = [line for line in lines[1:] if line.startswith("Caused by: ")]
    if causes:
        # a Java trace's root cause says why; what wraps it only where it was caught
        return _located(causes[-1].removeprefix("Caused by: "))
    chain = _cause_chain(lines)
    if chain:
        # an error chain listed under "Caused by:" ("0: row 118: invalid reading", "1: reading
        # … is lower than the previous reading"): its last cause is the root, what the first
        # line wraps it in ("failed to ingest <file>") is the same for every cause
        return _located(chain[-1])
    if len(lines) > 2 and lines[1].rstrip(":").lower() == "call log":
        # a browser's call log ("Timeout 30000ms exceeded.", "Call log:", "- waiting for
        # locator('#x')", "- locator resolved to 0 elements"): its last step says why
        return _located(f"{lines[0].rstrip('. ')}: {lines[-1].lstrip('-• ')}")
    record = [m.group(1) for line in lines[1:] if (m := _ERROR_RECORD_ID.match(line))]
    if record:
        # a PowerShell error record: its message, and the id that names its kind
        return f"{_located(lines[0])} [{record[0]}]"
    if len(lines) > 1:
        told = _joined_body(lines) or _prefixed_message(lines)
        if told is not None:
            return _located(told)
    if len(lines) > 1 and (header := _MESSAGE_HEADER.fullmatch(lines[0])) is not None:
        # a database server's message header, which only numbers and locates what the next
        # line says ("Msg 547, Level 16, State 0, Server SQL-02, Line 1"): the number and it
        return _located(f"{header.group(1)}: {lines[1]}")
    if len(lines) > 1 and (_ANNOUNCES.fullmatch(lines[0]) or lines[0].endswith(":")):
        # a first line that ends announcing what follows ("… denied the request:" before the
        # policies that denied it): it and the two lines after it, past the request it echoes
        # and the announcements that only lead to another ("HTTP Error Your request was:",
        # "POST /Accounts/…", "Twilio returned the following information:", "Unable to …")
        rest = [line for line in lines[1:] if not _ECHOED.fullmatch(line)]
        while len(rest) > 2 and rest[0].endswith(":") and rest[1].endswith(":"):
            rest.pop(0)
        said = [lines[0], *(_GIVEN.sub("", line) for line in rest[:2])]
        return ": ".join([*(line.rstrip(" :") for line in said[:-1]), said[-1]])
    if len(lines) > 1 and not _SIGNAL.search(lines[0]):
        # what a tool printed on its way ("Performing Streamed Install", "Starting: Intent
        # {…}") before the line that failed: two errors of one tool would share it
        failed = [line for line in lines[1:] if _SIGNAL.search(line)]
        if failed:
            return _located(next((f for f in failed if len(f.split()) >= 4), failed[0]))
    return _located(lines[0])


#: a server message's header: its number, then what only locates it ("Msg 2627, Level 14,
#: State 1, Server SQL-ABR-02, Procedure usp_add, Line 1", SQL Server's sqlcmd and drivers)
_MESSAGE_HEADER = re.compile(
    r"(Msg \d+),\s*Level \d+,\s*State \d+(?:,\s*(?:Server|Procedure)\s+[^,]+)*,\s*Line \d+"
)

#: a line that only echoes the request that failed: its method and path, or an address alone
_ECHOED = re.compile(
    r"(?:GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+\S+(?:\s+HTTP/[\d.]+)?|(?:https?://|/)\S+"
)

#: a line that says something went wrong (English and the languages errors come in)
_SIGNAL = re.compile(
    r"error|fail|exception|fatal|denied|refused|invalid|not found|does not exist|cannot|"
    r"can't|unable|forbidden|unauthori[sz]ed|no such|fehler|erreur|errore|fout|fejl|feil|"
    r"błąd|chyba|hata|ошибка|错误|エラー",
    re.I,
)


#: what a terminal adds to a line that is no text: colour codes (``ESC[0;31m``) and the frame
#: of a box-drawn diagnostic (``╷``, ``│ Error: …``, ``╵``)
_TERMINAL = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|^[\u2500-\u257f\s]+")


#: a numbered cause of an error chain ("0: failed to read CSV record 57")
_NUMBERED_CAUSE = re.compile(r"^\d{1,2}:\s+(\S.*)$")


def _cause_chain(lines: list[str]) -> list[str]:
    """The causes listed after a line "Caused by:" alone (Rust's anyhow, eyre), each without
    its number; empty when there is no such list."""
    at = next((i for i, line in enumerate(lines[1:], 1) if line.lower() == "caused by:"), None)
    if at is None:
        return []
    found = [m.group(1) for line in lines[at + 1 :] if (m := _NUMBERED_CAUSE.match(line))]
    if not found and at + 1 < len(lines):
        found = [lines[at + 1]]  # one cause, unnumbered
    return found


def _unframed(line: str) -> str:
    """A line without its colour codes and its box frame, stripped."""
    return _TERMINAL.sub("", line).strip()


#: an HTTP client's repr of its error ("<HttpError 400 when requesting https://… returned
#: "Invalid attendee email.". Details: "[…]">", Google's API client)
_CLIENT_REPR = re.compile(
    r"<\w*Error (\d{3}) when requesting \S+ returned \"(.{1,500}?)\"\.?(?: |>|$)"
)

#: a PowerShell error record's id ("+ FullyQualifiedErrorId : PathNotFound,Microsoft…")
_ERROR_RECORD_ID = re.compile(r"\+\s*FullyQualifiedErrorId\s*:\s*([\w.]+)")

#: a traceback's exception line ("KeyError: 'x'", "requests.exceptions.HTTPError: 404 …"),
#: which lines the runner added after it ("(exit code 1)") do not replace
_RAISED = re.compile(r"(?:[A-Za-z_][\w.]*)?(?:Error|Exception|Exit|Interrupt|Warning|Fault)\b")
#: a Python traceback's first line, alone or after a runner's own words ("Execution failed.
#: Traceback:")
_TRACEBACK = re.compile(r"(?:^|[.:]\s+)Traceback(?: \(most recent call last\))?:?$")
#: lines of an exception's message that follow its line when that line ends with a colon
_MESSAGE_LINES = 3


def _raised(lines: list[str]) -> str:
    """A Python traceback's exception (its last raised line), and the lines of its message
    when the line ends with a colon and the message follows on lines of its own ("Exception:
    Response status code is 422:", '{"message": "The shares do not add up …"}'): the frames
    before it are where, the same for every error the code raises there."""
    at = max((i for i, line in enumerate(lines) if i and _RAISED.match(line)), default=None)
    if at is None:
        return lines[-1]
    said = lines[at]
    if said.endswith(":") and at + 1 < len(lines):
        said = f"{said} {' '.join(lines[at + 1 : at + 1 + _MESSAGE_LINES])}"
    return said


#: a status line standing alone ("HTTP/1.1 422 Unprocessable Entity", "409 Conflict")
_STATUS_LINE = re.compile(r"(?:HTTP(?:/[\d.]+)?\s+)?[1-5]\d\d(?:\s+[^\W\d_][\w' -]{0,40})?", re.I)
#: a header line between a status line and its body ("Content-Type: application/json")
_HEADER = re.compile(r"[A-Za-z][\w-]{1,40}:\s*\S[^{\[]*")


def _joined_body(lines: list[str]) -> str | None:
    """A JSON body written over several lines, on one; or a status line, the headers after it
    left out, and what follows them (a body, a message), joined: "HTTP 422 …: {…}"."""
    if lines[0].startswith(("{", "[")):
        text = " ".join(lines)
        return text if _parses(text) else None
    if not _STATUS_LINE.fullmatch(lines[0]):
        return None
    rest = lines[1:]
    while rest and _HEADER.fullmatch(rest[0]):
        rest = rest[1:]
    if not rest:
        return None
    if rest[0].startswith(("{", "[")):
        body = " ".join(rest)
        return f"{lines[0]}: {body}" if _parses(body) else None
    return f"{lines[0]}: {rest[0]}"


def _parses(text: str) -> bool:
    if len(text) > 20_000:
        return False
    try:
        json.loads(text)
    except ValueError:
        return False
    return True


#: a line's words before its message, when every line opens with them ("npm ERR!")
_PREFIX_WORDS = 2


def _prefixed_message(lines: list[str]) -> str | None:
    """For three or more lines that open with the same word or two, the first whose rest says
    more than a code or a value (at least three words), without the prefix; else None."""
    if len(lines) < 3:
        return None
    heads = [line.split()[:_PREFIX_WORDS] for line in lines[:3]]
    size = 0
    while size < _PREFIX_WORDS and all(len(h) > size and h[size] == heads[0][size] for h in heads):
        size += 1
    if size == 0:
        return None
    prefix = heads[0][:size]
    for line in lines:
        words = line.split()
        if words[:size] != prefix:
            continue
        if len(words) - size >= 3:
            return " ".join(words[size:])
    return None


#: what only locates a log line before its message: timestamps and bracketed fields, then a
#: level, a logger's name and ``key=value`` ids, up to a colon ("[2026-11-02T10:22:13Z] ERROR
#: reserve_tickets trace=4bf9… request_id=req_Lk82: quantity 6 exceeds …")
_LOG_PREFIX = re.compile(
    r"^(?:\[[^\]\n]{1,60}\]\s*|\d{4}-\d{2}-\d{2}[T ]\d{1,2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?"
    r"(?:Z|[+-]\d{2}:?\d{2})?\s+)+"
    r"(?:(?:ERROR|ERR|FATAL|CRITICAL|SEVERE|WARN(?:ING)?|E)\b\s*(?:[\w.$/-]+\s+)??"
    r"(?:[\w.-]+=[^\s:]+\s*)*:\s+)?"
)
#: a gRPC status's frame around its message ("rpc error: code = NotFound desc = …"): the
#: code stays, as the message's label ("NotFound: …")
_GRPC = re.compile(r"^rpc error: code = (\w+) desc = ")
#: an AWS SDK's frame around a service's message: botocore's ("ClientError: An error occurred
#: (MessageRejected) when calling the SendEmail operation: …") and the Java SDK's trailer
#: ("… (Service: AmazonSimpleEmailService; Status Code: 400; Error Code: MessageRejected;
#: Request ID: …)"); the error code stays, as the message's label ("MessageRejected: …"), the
#: rest is the same for every error of the service
_AWS = re.compile(
    r"^(?:[\w.]+:\s+)?An error occurred \((\w+)\) when calling the \w+ operation"
    r"(?: \(reached max retries: \d+\))?:\s*"
)
_AWS_TRAILER = re.compile(
    r"^(.*?)\s*\(Service: [^;()]+; Status Code: \d{3}; Error Code: (\w+)(?:; [^()]*)?\)\s*$"
)
#: a message led by its exception's name ("MessageRejectedException: …")
_NAMED_RAISED = re.compile(r"\w+(?:Exception|Error):\s")
#: a Java or Kotlin exception's package ("com.acme.bank.core.AccountFrozenException: …")
_PACKAGE = re.compile(r"^(?:[a-z_][\w]*\.){2,}(?=[A-Z][\w$]*(?:Exception|Error)\b)")


def _located(line: str) -> str:
    """``line`` without what only locates it: a log line's prefix (``_LOG_PREFIX``), an
    exception's package, an RPC's or an SDK's frame (its code kept as the label); the line
    itself when nothing would be left."""
    bare = _PACKAGE.sub("", _LOG_PREFIX.sub("", line, count=1), count=1)
    bare = _GRPC.sub(r"\1: ", bare, count=1)
    bare = _AWS.sub(r"\1: ", bare, count=1)
    if (trailer := _AWS_TRAILER.match(bare)) is not None and trailer.group(1):
        said = trailer.group(1)
        # the exception's own name already says the code ("MessageRejectedException: …")
        bare = said if _NAMED_RAISED.match(said) else f"{trailer.group(2)}: {said}"
    return bare if bare.strip() else line

"""Batch capture from a JSON Lines file: one event object per line, with a ``kind`` field.

Valid lines are stored (each through the same capture path an agent uses); each bad line is
reported with its line number and field, and the rest go on. A database outage stops the run:
nothing after that line could be stored either.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from digest.capture.api import capture_new_event
from digest.errors import InvalidEvent


@dataclass(frozen=True)
class LineError:
    line: int
    field: str
    message: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.field}: {self.message}"


@dataclass
class BatchReport:
    #: ids of the events this run stored
    stored: list[int] = field(default_factory=list)
    #: ids of events stored before under the same idempotency key (nothing stored again)
    repeated: list[int] = field(default_factory=list)
    errors: list[LineError] = field(default_factory=list)
    blank: int = 0
    #: stored lines that had no idempotency_key: capturing the file again stores them again
    unkeyed: int = 0


def capture_file(path: Path, on_progress: Callable[[int], None] | None = None) -> BatchReport:
    """Capture every line of ``path``. ``on_progress`` gets the bytes consumed per line.

    Raises ``CaptureUnavailable`` if the database stops taking events; what was stored before
    stays stored (each line is its own transaction).
    """
    report = BatchReport()
    with path.open("rb") as handle:
        for number, raw in enumerate(handle, start=1):
            if on_progress is not None:
                on_progress(len(raw))
            error = _capture_line(raw, number, report)
            if error is not None:
                report.errors.append(error)
    return report


def _capture_line(raw: bytes, number: int, report: BatchReport) -> LineError | None:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        return LineError(number, "(line)", f"not valid UTF-8 ({exc.reason} at byte {exc.start})")
    if not text.strip():
        report.blank += 1
        return None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        return LineError(number, "(json)", f"not valid JSON: {exc.msg} at column {exc.colno}")
    if not isinstance(data, dict):
        return LineError(number, "(line)", f"expected a JSON object, got {type(data).__name__}")
    kind = data.pop("kind", None)
    if kind is None:
        return LineError(
            number,
            "kind",
            "missing; one of run_outcome, operator_edit, owner_answer, manual_lesson",
        )
    keyed = data.get("idempotency_key") is not None
    try:
        event_id, created = capture_new_event(kind, data)
    except InvalidEvent as exc:
        return LineError(number, exc.field, exc.message)
    (report.stored if created else report.repeated).append(event_id)
    report.unkeyed += 0 if keyed or not created else 1
    return None

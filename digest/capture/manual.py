"""Manual lessons: the ``signature: lesson`` text an owner writes, split and checked at capture,
and the candidate lesson a ``manual_lesson`` event carries into reconciliation."""

from __future__ import annotations

from typing import Any

from digest.errors import InvalidEvent
from digest.lessons.store import Candidate
from digest.models import BODY_MAX, TITLE_MAX


def split_manual_text(text: str) -> tuple[str, str]:
    """``signature: lesson`` (one line) or a signature line followed by body lines."""
    lines = [line.rstrip() for line in text.strip().splitlines()]
    if not lines:
        raise InvalidEvent("text", "must not be empty")
    body_lines = [line for line in lines[1:] if line.strip()]
    if body_lines:
        signature, body = lines[0].strip(), "\n".join(line.strip() for line in body_lines)
    elif ":" in lines[0]:
        signature, _, body = lines[0].partition(":")
        signature, body = signature.strip(), body.strip()
    else:
        raise InvalidEvent(
            "text", "expected 'signature: lesson text' or a signature line followed by body lines"
        )
    if not signature:
        raise InvalidEvent("text", "the signature (before the colon or on the first line) is empty")
    if not body:
        raise InvalidEvent("text", "the lesson text after the signature is empty")
    if len(signature) > TITLE_MAX:
        raise InvalidEvent(
            "text", f"the signature is {len(signature)} chars; the cap is {TITLE_MAX}"
        )
    if len(body) > BODY_MAX:
        raise InvalidEvent("text", f"the lesson text is {len(body)} chars; the cap is {BODY_MAX}")
    return signature, body


def manual_candidate(payload: dict[str, Any]) -> Candidate:
    """The lesson a ``manual_lesson`` event carries (its text, plus structured parts if any)."""
    signature, body = split_manual_text(str(payload.get("text", "")))
    return Candidate(
        situation=payload.get("situation") or signature,
        correction=body,
        mistake=payload.get("mistake"),
        tags=tuple(payload.get("tags") or ()),
        title=signature,
        slug=payload.get("slug"),
    )

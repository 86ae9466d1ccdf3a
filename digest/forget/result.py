"""What a forget request did (``digest.forget``)."""

from __future__ import annotations

import hashlib
from dataclasses import asdict, dataclass, field
from typing import Any

#: exports are files this process does not track: they are written again, not edited
EXPORT_NOTE = "exports written before this hold the forgotten data: run `digest export` again"


@dataclass
class ForgetResult:
    """What a forget request erased: ``counts`` per table (rows deleted or rewritten), the
    lessons retired and kept, the versions composed, and the audit row's hash."""

    kind: str
    subject_hash: str
    counts: dict[str, int] = field(default_factory=dict)
    retired_lessons: list[int] = field(default_factory=list)
    recounted_lessons: list[int] = field(default_factory=list)
    composed_versions: list[int] = field(default_factory=list)
    audit_id: int | None = None

    @property
    def nothing(self) -> bool:
        return not any(self.counts.values())

    def to_json(self) -> dict[str, Any]:
        found = asdict(self)
        found["nothing"] = self.nothing
        found["exports"] = EXPORT_NOTE
        return found


def subject_hash(kind: str, value: str) -> str:
    """The audit row's fingerprint of what was forgotten: sha256 of ``<kind>:<value>``."""
    return hashlib.sha256(f"{kind}:{value}".encode()).hexdigest()

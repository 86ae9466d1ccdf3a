"""The multi-error runs of ``data/<split>/*.jsonl`` (``data/README.md`` describes a record)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DATA = Path(__file__).with_name("data")
SPLITS = (
    "tuned",
    "held-out",
    "check",
    "fresh4",
    "fresh4-check",
    "fresh5",
    "fresh5-check",
    "fresh6",
    "fresh6-check",
)


@dataclass(frozen=True)
class Trial:
    contact: str
    task: str
    tool_calls: tuple[dict[str, Any], ...]

    def calls(self) -> list[dict[str, Any]]:
        """The tool calls as an agent reports them (without the data's own marks)."""
        return [{k: v for k, v in call.items() if k != "transient"} for call in self.tool_calls]

    def failures(self) -> list[dict[str, Any]]:
        """The calls that failed with an error a lesson is expected for."""
        return [c for c in self.tool_calls if c.get("error") and not c.get("transient")]


@dataclass(frozen=True)
class Kind:
    name: str
    trials: tuple[Trial, ...]
    later: tuple[str, ...]


def load(split: str) -> list[Kind]:
    """Every task kind of ``split``, file by file in name order, each in its line order."""
    if split not in SPLITS:
        raise ValueError(f"unknown split {split!r}: one of {SPLITS}")
    kinds = []
    for path in sorted((DATA / split).glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            try:
                raw = json.loads(line)
                kinds.append(
                    Kind(
                        raw["kind"],
                        tuple(
                            Trial(t["contact"], t["task"], tuple(t["tool_calls"]))
                            for t in raw["trials"]
                        ),
                        tuple(raw["later"]),
                    )
                )
            except (KeyError, TypeError, ValueError) as exc:
                raise ValueError(f"{path}:{number}: not a task kind ({exc})") from exc
    return kinds

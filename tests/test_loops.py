"""digest.loops: the in-turn LoopDetector (pure; no services)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pytest

import digest
from digest.errors import InvalidArgument


def test_two_identical_failures_in_a_row_give_the_block() -> None:
    detector = digest.LoopDetector()
    args = {"order": "1182", "amount": 20}
    assert detector.record("issue_refund", args, ok=False, error="amount is required") is None
    block = detector.record(
        "issue_refund", {"amount": 20, "order": "1182"}, ok=False, error="amount\nis required"
    )
    assert block == (
        "[LOOP DETECTED]\n"
        '  The same call failed 2 times in a row: issue_refund({"amount": 20, "order": "1182"})\n'
        "  Last error: amount is required\n"
        "  Stop repeating it: change the arguments, use another tool, or escalate.\n"
        "[END LOOP DETECTED]\n"
    )
    third = detector.record("issue_refund", args, ok=False)
    assert third is not None and "failed 3 times in a row" in third
    assert "Last error: (none given)" in third


def test_anything_in_between_starts_over() -> None:
    detector = digest.LoopDetector()
    assert detector.record("refund", {"order": 1}, ok=False, error="x") is None
    assert detector.record("lookup", {"order": 1}, ok=True) is None
    assert detector.record("refund", {"order": 1}, ok=False, error="x") is None
    assert detector.record("lookup", {"order": 1}, ok=False, error="y") is None
    assert detector.record("refund", {"order": 1}, ok=False, error="x") is None
    assert detector.record("refund", {"order": 2}, ok=False, error="x") is None
    assert detector.record("refund", {"order": 2}, ok=False, error="x") is not None
    detector.reset()
    assert detector.record("refund", {"order": 2}, ok=False, error="x") is None


def test_threshold_three() -> None:
    detector = digest.LoopDetector(threshold=3)
    results = [detector.record("search", ["q", 1], ok=False, error="timeout") for _ in range(3)]
    assert results[:2] == [None, None]
    assert results[2] is not None and 'failed 3 times in a row: search(["q", 1])' in results[2]
    with pytest.raises(InvalidArgument, match="threshold"):
        digest.LoopDetector(threshold=1)


def test_odd_arguments_never_raise() -> None:
    detector = digest.LoopDetector()
    cyclic: dict[str, Any] = {}
    cyclic["self"] = cyclic
    mixed_keys = {1: "a", "b": 2}
    when = datetime(2026, 1, 1)
    for args in (cyclic, mixed_keys, {"at": when}, None):
        assert detector.record("tool", args, ok=False, error=None) is None
        assert detector.record("tool", args, ok=False, error=None) is not None
        detector.reset()
    huge = detector.record("tool", "x" * 5000, ok=False) or detector.record(
        "tool",
        "x" * 5000,
        ok=False,
        error=ValueError("boom"),  # type: ignore[arg-type]
    )
    assert huge is not None and len(huge) < 1000 and "Last error: boom" in huge

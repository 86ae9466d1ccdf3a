"""bench/_oracle.py: the quality bench's oracle (a ceiling that peeks at the ground truth)
answers each request as a right model would, without a worker or a database."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path[:0] = [str(BENCH)]

from _oracle import Oracle  # noqa: E402
from _quality_cases import Case  # noqa: E402

AGENT = "q:dev/contradiction/fee"


def _run(event_id: str, error: str) -> dict[str, Any]:
    call = {"tool": "pay_fee", "args": {"id": event_id}, "ok": False, "error": error}
    return {"id": event_id, "kind": "run_outcome", "payload": {"outcome": "failure",
            "task": f"Pay the fee for {event_id}", "tool_calls": [call]}}  # fmt: skip


CASE = Case.from_record(
    {
        "case": "fee", "about": "a fee API that changed",
        "events": [
            _run("e1", "field 'amount' is required"),
            _run("e2", "Feld 'amount' ist erforderlich"),
            _run("e3", "field 'amount' is no longer accepted; send 'amount_cents'"),
            _run("e4", "503 Service Unavailable"),
        ],
        "lessons": [
            {"rule": "old", "says": "send amount", "events": ["e1", "e2"],
             "superseded_by": "new"},
            {"rule": "new", "says": "send amount_cents", "events": ["e3"]},
        ],
        "nothing": ["e4"],
    },
    split="dev", category="contradiction",
)  # fmt: skip


def _ask(oracle: Oracle, block: str, body: Any, extra: str = "") -> str:
    text = f"Agent: {AGENT}\n{extra}<{block}>\n{json.dumps(body)}\n</{block}>"
    return oracle.answer([{"role": "user", "content": text}])


def _lesson(oracle: Oracle, event: dict[str, Any]) -> dict[str, str]:
    said = _ask(oracle, "event", {"id": 1, "kind": "run_outcome", "payload": event["payload"]})
    situation = said.split("<situation>")[1].split("</situation>")[0]
    correction = said.split("<correction>")[1].split("</correction>")[0]
    return {"situation": situation, "correction": correction}


def _reconcile(oracle: Oracle, shown: list[dict[str, str]], new: dict[str, str]) -> list[Any]:
    existing = json.dumps([{"id": i, **s} for i, s in enumerate(shown)])
    said = _ask(oracle, "candidates", [{"candidate": 0, **new}], f"<existing>{existing}</existing>")
    return [(o["op"], o.get("id")) for o in json.loads(said)["operations"]]


def test_the_oracle_skips_noise_noops_one_rule_and_supersedes_the_reversed_rule() -> None:
    oracle = Oracle([CASE])
    events = {e.id: {"payload": e.payload} for e in CASE.events}
    assert "<skip>" in _ask(oracle, "event", {"id": 9, "payload": events["e4"]["payload"]})
    first, again, reversal = (_lesson(oracle, events[e]) for e in ("e1", "e2", "e3"))
    assert _reconcile(oracle, [first], again) == [("NOOP", 0)]
    assert _reconcile(oracle, [reversal, first], reversal) == [("NOOP", 0)]
    assert _reconcile(oracle, [first], reversal) == [("DELETE", 0)]
    assert _reconcile(oracle, [], reversal) == [("ADD", None)]


def test_the_updating_variants_answer_update_and_an_unknown_value_is_refused(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``BENCH_ORACLE_REVERSE_BY`` / ``BENCH_ORACLE_SAME_BY``: the reversal and the repeat as
    UPDATEs of the shown lesson (with a reason, or none when silent); a misspelt value is an
    error naming the variable, never a silent default."""
    events = {e.id: {"payload": e.payload} for e in CASE.events}
    monkeypatch.setenv("BENCH_ORACLE_REVERSE_BY", "update-silent")
    monkeypatch.setenv("BENCH_ORACLE_SAME_BY", "update")
    oracle = Oracle([CASE])
    first, again, reversal = (_lesson(oracle, events[e]) for e in ("e1", "e2", "e3"))
    assert _reconcile(oracle, [first], again) == [("UPDATE", 0)]
    assert _reconcile(oracle, [first], reversal) == [("UPDATE", 0)]
    monkeypatch.setenv("BENCH_ORACLE_REVERSE_BY", "updat")
    with pytest.raises(ValueError, match="BENCH_ORACLE_REVERSE_BY='updat'"):
        Oracle([CASE])


def test_the_mem0_shapes_quote_ids_and_use_mem0s_names(monkeypatch: pytest.MonkeyPatch) -> None:
    events = {e.id: {"payload": e.payload} for e in CASE.events}
    monkeypatch.setenv("BENCH_ORACLE_SHAPE", "quoted-ids")
    oracle = Oracle([CASE])
    first, again, reversal = (_lesson(oracle, events[e]) for e in ("e1", "e2", "e3"))
    assert _reconcile(oracle, [first], reversal) == [("DELETE", "0")]
    monkeypatch.setenv("BENCH_ORACLE_SHAPE", "mem0")
    monkeypatch.setenv("BENCH_ORACLE_SAME_BY", "update")
    oracle = Oracle([CASE])
    first, again = (_lesson(oracle, events[e]) for e in ("e1", "e2"))
    existing = json.dumps([{"id": 0, **first}])
    said = _ask(
        oracle, "candidates", [{"candidate": 0, **again}], f"<existing>{existing}</existing>"
    )
    [op] = json.loads(said)["operations"]
    assert (op["event"], op["id"], "candidate" in op, "op" in op) == ("UPDATE", "0", False, False)
    assert op["text"] == again["correction"] and "lesson" not in op
    monkeypatch.setenv("BENCH_ORACLE_SHAPE", "strings")
    with pytest.raises(ValueError, match="BENCH_ORACLE_SHAPE='strings'"):
        Oracle([CASE])


def test_the_bare_lessons_variant_writes_no_mistake_and_no_tags(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    event = {"id": 1, "kind": "run_outcome", "payload": CASE.events[0].payload}
    said = _ask(Oracle([CASE]), "event", event)
    assert "<tags>" in said
    monkeypatch.setenv("BENCH_ORACLE_LESSONS", "bare")
    bare = _ask(Oracle([CASE]), "event", event)
    assert "<situation>" in bare and "<correction>" in bare
    assert "<tags>" not in bare and "<mistake>" not in bare
    monkeypatch.setenv("BENCH_ORACLE_LESSONS", "terse")
    with pytest.raises(ValueError, match="BENCH_ORACLE_LESSONS='terse'"):
        Oracle([CASE])


def test_requests_of_an_agent_it_does_not_know_get_the_offline_rules() -> None:
    oracle = Oracle([CASE])
    text = (
        "Agent: someone-else\n<event>\n"
        + json.dumps(
            {
                "id": 1,
                "kind": "run_outcome",
                "payload": {"outcome": "failure", "error": "503 Service Unavailable"},
            }
        )
        + "\n</event>"
    )
    from digest.model.offline import answer

    messages = [{"role": "user", "content": text}]
    assert oracle.answer(messages) == answer(messages)
    assert not oracle.asked


def test_a_rule_naming_its_tool_takes_that_tools_failure_whatever_the_error_shapes() -> None:
    """One API words its errors in two shapes (Stripe's JSON body, the SDK's exception text;
    a case of ``multi_error_fresh20``): the oracle pairs each rule with the failure of the tool
    the rule names, not with the failure whose shape the rule's other events share."""
    from _quality_cases import load

    [case] = [c for c in load("dev", ("multi_error",)) if c.name == "f20-stripe-venue-deposits"]
    event = next(e for e in case.events if e.id == "r2")
    rules = Oracle([case])._rules_of(case, event)
    chosen = Oracle([case])._failures_of(case, rules, event)
    for rule in rules:
        assert chosen[rule.name][0] in rule.says, (rule.says, chosen[rule.name][0])

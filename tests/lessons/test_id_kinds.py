"""The kinds of ids a task names, as retrieval terms (``digest.lessons.id_kinds``)."""

from __future__ import annotations

from digest.lessons.cues import event_cues
from digest.lessons.id_kinds import call_id_kinds, id_kinds
from digest.retrieve import prompt_keywords


def test_the_prefix_is_kept_and_the_number_dropped() -> None:
    assert id_kinds("Acknowledge incident INC-5531 and PAY1182, then #D-66") == [
        "idinc0", "idpay0", "idd0",
    ]  # fmt: skip
    assert id_kinds("ack INC-88") == id_kinds("incident INC-5531")


def test_what_is_not_a_record_s_id_gives_no_kind() -> None:
    for text in ("v2.14.0", "on 2026-03-11", "2:26-cv-01142", "auth-svc-2", "60x", "x-12@a.example",
                 "COVID-19", "call +44 7700 900123", "12 units"):  # fmt: skip
        assert id_kinds(text) == [], text


def test_one_prefix_does_not_match_another_that_begins_with_it() -> None:
    (short,) = id_kinds("S-4410")
    (long,) = id_kinds("SKU-55102")
    assert not long.startswith(short)


def test_a_run_s_cues_hold_the_kinds_of_its_task_and_of_its_calls_arguments() -> None:
    calls = [{"tool": "approve_leave", "args": {"request_id": "LV-9102", "by": ["M-1002"]}}]
    assert call_id_kinds(calls) == ["idlv0", "idm0"]
    cues = event_cues(
        "run_outcome", {"task": "sign off on time off for TK-90", "tool_calls": calls}
    )
    assert cues[-3:] == ["idtk0", "idlv0", "idm0"]
    assert all(not any(ch.isdigit() for ch in cue[:-1]) for cue in cues)  # no number is kept


def test_a_terse_prompt_is_read_by_its_ids_kinds() -> None:
    assert prompt_keywords("ack INC-88") == ["idinc0"]
    assert "idsku0" in prompt_keywords("restock Lyon from Paris, 60x SKU-311")

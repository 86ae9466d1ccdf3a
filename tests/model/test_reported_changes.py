"""The offline judge and changes reported in words apart from what they may reverse (issue 24,
DESIGN §8a): an owner's answer that reports a change supersedes no fact about another subject
(the rules cannot tell "Can I still pay by bank transfer?" is about cheques, and must not
guess: a model reads such questions, the rules add; a walk-in they read as an appointment's
absence, as "without booking" is: ``test_offline_asked``); a tool's reversal is read against
what a lesson asks for; such a change is shown to the judge however little its words share
with the lesson."""

from __future__ import annotations

import json

import pytest

from digest import fingerprint as fp
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.model.offline_reconcile import reconcile
from digest.reflect.reconcile import for_the_judge
from digest.reversal import states_reversal
from tests.reflect.helpers import offline_judged, owner_fact


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # part of the subject shared, the rest differs: two things of one kind
        (
            ("Do you offer gift wrapping?", "Yes, gift wrapping costs €2 per item."),
            ("Do you sell gift cards?", "No longer: gift cards were discontinued in May."),
        ),
        # another name
        (
            ("Do you deliver to Lyon?", "Yes, the next working day."),
            ("Do you deliver to Nice?", "Not any more: since May we no longer deliver to Nice."),
        ),
        # no change reported: a fact of its own
        (
            ("Do you take walk-ins for haircuts?", "Yes, walk-ins are fine for cuts."),
            ("Can I drop in for a colour treatment?", "No, colouring is by appointment only."),
        ),
        # a change reported about another subject: the one fact shown is not what it reverses
        (
            ("Do you have parking?", "Yes, free parking behind the building."),
            ("Do you accept credit cards?", "Not anymore: since March we only take cash."),
        ),
        (
            ("Can I bring my dog?", "Yes, dogs are welcome on the terrace."),
            ("Is there wifi?", "Not anymore, the wifi was removed."),
        ),
        (
            ("Do you do gift wrapping?", "Yes, €2 per item."),
            ("Do you take reservations?", "Not any more: first come, first served."),
        ),
        (
            ("Are you open on Sundays?", "Yes, 10 to 4 on Sundays."),
            ("Do you deliver?", "No longer: we stopped deliveries in May."),
        ),
        # the old fact already said no: nothing to reverse
        (
            ("Do you take cheques?", "No, card or cash only."),
            ("Can I still pay by bank transfer?", "Not anymore, since March."),
        ),
    ],
)
def test_a_distinct_fact_is_never_superseded(old: tuple[str, str], new: tuple[str, str]) -> None:
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] != "DELETE", op


def test_with_two_facts_a_change_could_be_about_the_rules_do_not_guess() -> None:
    existing = [
        owner_fact(4, "Do you take walk-ins?", "Yes, walk-ins are welcome."),
        owner_fact(5, "Do you have a terrace?", "Yes, open in summer."),
    ]
    op = offline_judged(existing, "Can I just drop by without booking?", "Not anymore, sorry.")
    assert op["op"] == "ADD", op


def _tool_lesson(i: int, args: dict[str, object], error: str) -> dict[str, object]:
    payload = {"task": "t", "outcome": "failure",
               "tool_calls": [{"tool": "create_payment", "args": args, "ok": False,
                               "error": error}]}  # fmt: skip
    [key] = fp.event_keys("run_outcome", payload)
    quoted = json.dumps(args, sort_keys=True)
    return {"id": i, "situation": "Calling the `create_payment` tool",
            "mistake": f"Called `create_payment` with «{quoted}» and it failed: «{error}»",
            "correction": f"Give `create_payment` what it asks for: it fails with «{error}».",
            "tags": ["create_payment", "tool-error"], "fingerprint": key}  # fmt: skip


def test_a_tool_reversal_supersedes_what_a_lesson_asks_for_not_what_its_call_passed() -> None:
    reversal = _tool_lesson(
        0, {"amount": 13.5, "currency": "EUR"},
        "400: field 'amount' is no longer accepted; send 'amount_minor'",
    )  # fmt: skip
    reversal["candidate"] = reversal.pop("id")
    currency = _tool_lesson(3, {"amount": 25.0}, "400: missing required field 'currency'")
    [op] = json.loads(reconcile([currency], [reversal]))["operations"]
    assert op["op"] != "DELETE", op
    amount = _tool_lesson(3, {"currency": "EUR"}, "400: missing required field 'amount'")
    [op] = json.loads(reconcile([amount], [reversal]))["operations"]
    assert (op["op"], op["id"]) == ("DELETE", 3), op


@pytest.mark.parametrize(
    "error",
    [
        "Fout: veld 'postcode' is niet langer toegestaan",
        "Fout: 'postcode' wordt niet langer ondersteund",
    ],
)
def test_dutch_no_longer_states_a_reversal(error: str) -> None:
    assert states_reversal(error)


def test_a_change_a_tool_reports_in_other_words_goes_to_the_judge() -> None:
    old = _tool_lesson(0, {"to": "x"}, "missing_field: sender_id must be provided")
    new = _tool_lesson(0, {"to": "y"}, "deprecated_field: use from_number in favour of it")
    lesson = Neighbour(
        lesson_id=7, relevance=0.1, identity=0.1, title="t", situation=str(old["situation"]),
        mistake=str(old["mistake"]), correction=str(old["correction"]), tags=("create_payment",),
        fingerprint=str(old["fingerprint"]),
    )  # fmt: skip
    assert fp.same_subject(str(new["fingerprint"]), lesson.fingerprint)
    changed = Candidate(
        situation=str(new["situation"]), mistake=str(new["mistake"]),
        correction=str(new["correction"]), fingerprint=str(new["fingerprint"]),
    )  # fmt: skip
    assert for_the_judge(changed, lesson, 0.5)
    other = _tool_lesson(0, {"to": "y"}, "rate_limited: quota of the day used up")
    unchanged = Candidate(
        situation=str(other["situation"]), mistake=str(other["mistake"]),
        correction=str(other["correction"]), fingerprint=str(other["fingerprint"]),
    )  # fmt: skip
    assert not for_the_judge(unchanged, lesson, 0.5)

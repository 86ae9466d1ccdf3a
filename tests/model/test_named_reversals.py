"""Reversals that name their items, and changes worded in verbs the screen did not read (issue
24, DESIGN §8a): a tool's reversal of one named field supersedes a lesson about that field,
never a lesson about another field of the same tool however much of the situation the two
errors share; "any longer", "was made mandatory", "we quit doing that", "we had to end it",
"since the fare change" state a change; an owner's answer stating a change, or another figure
for a noun the old answer speaks of, is shown to the judge (and the offline rules still keep
two subjects apart)."""

from __future__ import annotations

import json

import pytest

from digest import fingerprint as fp
from digest.model.offline_reconcile import reconcile
from digest.reflect.reconcile import for_the_judge
from digest.reversal import names_apart, reverses_interface, states_reversal
from tests.reflect.helpers import offline_judged, owner_fact, owner_pair


def _tool_lesson(i: int, tool: str, args: dict[str, object], error: str) -> dict[str, object]:
    call = {"tool": tool, "args": args, "ok": False, "error": error}
    payload = {"task": "t", "outcome": "failure", "tool_calls": [call]}
    [key] = fp.event_keys("run_outcome", payload)
    quoted = json.dumps(args, sort_keys=True)
    return {"id": i, "situation": f"Calling the `{tool}` tool",
            "mistake": f"Called `{tool}` with «{quoted}» and it failed: «{error}»",
            "correction": f"Give `{tool}` what it asks for: it fails with «{error}».",
            "tags": [tool, "tool-error"], "fingerprint": key}  # fmt: skip


def _judged(tool: str, old: str, new: str) -> dict[str, object]:
    lesson = _tool_lesson(3, tool, {"a": 1}, old)
    candidate = _tool_lesson(0, tool, {"a": 2}, new)
    candidate["candidate"] = candidate.pop("id")
    [op] = json.loads(reconcile([lesson], [candidate]))["operations"]
    return dict(op)


#: (tool, old error, new error): the new error reverses another item than the old one names
APART = [
    ("create_transfer", "422: field 'reference' is required for international transfers",
     "422: 'purpose_code' is no longer optional for international transfers; send SALA"),
    ("deploy", 'Error: required flag(s) "image" not set',
     "Error: flag --replicas is no longer accepted; replica counts come from the autoscaler"),
    ("book_room", "400: 'guest_email' is required for group bookings",
     "400: 'group_code' has been replaced by 'block_id' for group bookings"),
    ("export_report", "Error: parameter 'format' must be one of csv, xlsx",
     "Error: parameter 'delimiter' is deprecated in favour of 'separator' for csv exports"),
    # the old error names no item by name, and never says the new one's
    ("create_record", "422 Unprocessable Entity: ttl must be between 300 and 86400 seconds",
     "422 Unprocessable Entity: 'priority' is now required for MX records"),
]  # fmt: skip

#: (tool, old error, new error): the new error reverses what the old one asks for
REVERSED = [
    ("get_shipping_quote", "400: 'postal_code' is required for shipping quotes",
     "400: 'postal_code' has been superseded by 'delivery_address.zip'"),
    ("deploy", 'Error: required flag(s) "region" not set',
     "Error: flag --region is deprecated and ignored; set 'region' in deploy.yaml"),
    # the old error says the new one's item in plain words
    ("convert_units", "400: units must be one of metric, imperial",
     "400: 'units' is no longer accepted; send 'unit_system'"),
    ("create_transfer", "422: field 'bic' is required for SEPA transfers",
     "422: 'bic' must not be sent for SEPA transfers any longer; the bank comes from the IBAN"),
    # the old item in plain words, the new one quoted
    ("send_sms", "Error: 'body' is required",
     "Error: free-text bodies are not allowed; messages must now reference an approved "
     "'template_id'"),
    ("get_seat_map", "Error: unknown field 'passenger_type' for get_seat_map",
     "Error: 'passenger_type' was made mandatory with the March schedule release"),
]  # fmt: skip


@pytest.mark.parametrize(("tool", "old", "new"), APART)
def test_a_reversal_of_one_named_item_leaves_a_lesson_about_another(
    tool: str, old: str, new: str
) -> None:
    assert names_apart(new, old)
    assert not reverses_interface(new, f"«{old}»")
    assert _judged(tool, old, new)["op"] != "DELETE"


@pytest.mark.parametrize(("tool", "old", "new"), REVERSED)
def test_a_reversal_of_the_named_item_supersedes_its_lesson(tool: str, old: str, new: str) -> None:
    assert not names_apart(new, old)
    op = _judged(tool, old, new)
    assert (op["op"], op["id"]) == ("DELETE", 3), op


def test_items_named_by_neither_text_are_read_by_their_words() -> None:
    # no quoted name on one side: the words decide, as before
    new = "Error: 'units' is not supported anymore"
    assert not names_apart(new, "missing parameter: units")
    assert reverses_interface(new, "«missing parameter: units»")


@pytest.mark.parametrize(
    "text",
    [
        "'bic' must not be sent for SEPA transfers any longer; the bank is derived from the IBAN",
        "Error: 'passenger_type' was made mandatory with the March schedule release",
        "The 'vat_id' field became optional.",
        "We quit doing that after the holidays, sorry.",
        "We had to end BYO last month, sorry.",
        "Yes, hold luggage costs €35 per bag since the fare change.",
        "いいえ、4月から1時間300円になりました。",
    ],
)
def test_other_verbs_of_change_state_a_reversal(text: str) -> None:
    assert states_reversal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Do you have any longer cables?",
        "Yes, we quit at 5pm on Fridays.",
        "Since the store opened we have sold bikes.",
        "The field is mandatory.",
    ],
)
def test_look_alikes_of_those_verbs_state_none(text: str) -> None:
    assert not states_reversal(text)


#: an owner's answer that may reverse a fact asked in other words: the judge is asked, and
#: the offline rules (which cannot read "BYO" as bringing one's own wine) supersede nothing
ASKED = [
    (("Can I bring my own wine?", "Yes, corkage is $10 a bottle."),
     ("Do you still allow BYO?", "We had to end BYO last month, sorry.")),
    (("Do you price-match competitors?", "Yes, we match any local competitor's price."),
     ("If I find the same TV cheaper elsewhere, will you lower your price?",
      "We quit doing that after the holidays, sorry.")),
    (("How big are the classes?", "Classes have 8-10 students."),
     ("How many students are in a group?", "Groups are capped at 6 students.")),
    # unrelated subjects, one saying "not anymore": asked too, kept apart by the rules
    (("Do you sell gift cards?", "Yes, in store and online."),
     ("Do you do layaway?", "Not anymore, we had to end layaway last year.")),
    (("Can I bring a pram on the trip?", "Yes, folded prams travel free in the hold."),
     ("Can I bring my cat in the Airbus cabin?", "No, pets are no longer allowed in the cabin.")),
]  # fmt: skip


@pytest.mark.parametrize(("old", "new"), ASKED)
def test_a_change_or_a_new_figure_beside_an_owner_fact_goes_to_the_judge(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    assert for_the_judge(*owner_pair(old, new), 0.5)


@pytest.mark.parametrize(("old", "new"), ASKED[3:])
def test_the_rules_keep_an_unrelated_change_apart(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] == "ADD", op


def test_an_answer_stating_no_change_and_no_figure_of_the_old_one_is_not_asked() -> None:
    old = ("Do you sell gift cards?", "Yes, in store and online.")
    new = ("Do you do layaway for Christmas orders?", "Yes, with a 20% deposit.")
    assert not for_the_judge(*owner_pair(old, new), 0.5)

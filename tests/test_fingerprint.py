"""digest.fingerprint: the structural identity of events and lessons (issue 13). Pure: no
services."""

from __future__ import annotations

import pytest

from digest import fingerprint as fp

#: pairs of one error with other ids, codes, values, dates: one template each
SAME_ERROR = [
    ("order 4412 not found", "Order 98 not found."),
    ("Not enough seats on flight HAT045 for 3 passengers",
     "Not enough seats on flight HAT207 for 1 passengers"),
    ("Certificate certificate_7815826 cannot be used to update reservation",
     "Certificate certificate_102 cannot be used to update reservation"),
    ("Payment method credit_card_4421 not found", "Payment method gift_card_9 not found"),
    ("user 'mia_li' not found", 'user "noah_smith" not found'),
    ("No direct flight from JFK to LAX on 2024-05-15",
     "No direct flight from SEA to ORD on 5/17/2024"),
    ("file /home/ana/report.csv is missing", "file C:\\data\\x.csv is missing"),
    ("token 9f8e7d6c5b4a3f21 expired at 10:30", "token 0a1b2c3d4e5f6071 expired at 23:59:01"),
    ("id 123e4567-e89b-12d3-a456-426614174000 unknown",
     "id 00000000-0000-4000-8000-000000000000 unknown"),
    ("mail to bob@x.com bounced", "mail to ana.s@example.org bounced"),
    ("GET https://api.x.com/v2/orders/7 returned 500", "GET http://localhost:8080/a returned 503"),
    ("amount $1,234.50 exceeds the limit", "amount $80 exceeds the limit"),
]  # fmt: skip

#: errors of one tool that are different failures: one template each, all different
DIFFERENT_ERRORS = [
    "Not enough seats on flight HAT045",
    "Certificate certificate_781 cannot be used to update reservation",
    "Payment method credit_card_44 not found",
    "Reservation 4WQ150 is already cancelled",
    "Cabin class basic_economy does not allow changes",
    "Origin and destination must be different",
    "Passenger count exceeds the limit of 5",
    "amount is required",
    "currency is required",
    "ERROR: NOT FOUND",
    "ERROR: PERMISSION DENIED",
]


@pytest.mark.parametrize(("a", "b"), SAME_ERROR)
def test_one_error_with_other_ids_has_one_template(a: str, b: str) -> None:
    assert fp.error_template(a) == fp.error_template(b)
    assert fp.tool_key("book", a) == fp.tool_key("book", b)


def test_different_errors_have_different_templates() -> None:
    templates = [fp.error_template(e) for e in DIFFERENT_ERRORS]
    assert len(set(templates)) == len(DIFFERENT_ERRORS), templates


def test_a_message_in_capitals_keeps_its_words() -> None:
    assert fp.error_template("ERROR: NOT FOUND") == "error: not found"
    assert fp.error_template("Currency EUR is not supported") == "currency <code> is not supported"


def test_the_tool_is_part_of_a_failure_key() -> None:
    assert fp.tool_key("refund", "amount is required") != fp.tool_key(
        "charge", "amount is required"
    )
    assert fp.tool_key("refund", "x") == fp.tool_key(" Refund ", "x")


def test_questions_differ_by_country_item_and_number_but_not_by_case_or_punctuation() -> None:
    def key(question: str) -> str:
        return fp.event_keys("owner_answer", {"question": question})[0]

    assert key("Do we ship to Finland?") == key("do we ship to finland")
    assert len({key(f"Do we ship to {c}?") for c in ("Finland", "Denmark", "Sweden")}) == 3
    assert key("Is item 42 in stock?") != key("Is item 43 in stock?")


def test_edit_rules() -> None:
    rules = fp.edit_rules("Hello! It will arrive by tomorrow, guaranteed.", "It ships soon.")
    assert {"removed-promise", "removed-greeting", "removed-exclamation"} <= set(rules)
    assert fp.edit_rules("Sure.", None) == ("rejected",)
    long = "We are so sorry for the trouble with your order and we will look into it right away"
    assert "shorter" in fp.edit_rules(long, "We will look into it.")
    # the same rule in other orders' words is one key; another rule is another key
    a = fp.edit_key("Your order 41 arrives by tomorrow for sure!", "Your order 41 is on its way.")
    b = fp.edit_key("Parcel 77 will arrive by Friday, promised!", "Parcel 77 is on its way.")
    c = fp.edit_key("Hi Ana, here it is.", "Here it is.")
    assert a == b != c


REFUND = {
    "original": "Hi Ana!!! Your order 41 will be refunded tomorrow for sure!!!",
    "final": "Hello Ana. Refunds for order 41 take five business days.",
}
#: the same diff shape (greeting kept; a promise and exclamation marks removed), other content
SHIPPING = {
    "original": "Hi Bob!!! Your order 77 will be refunded tomorrow for sure!!!",
    "final": "Hello Bob. Parcels leave our Oslo warehouse on weekdays.",
}


def test_an_edit_has_one_key_per_rule_it_teaches() -> None:
    keys = fp.event_keys("operator_edit", REFUND)
    assert [fp.edit_family(k) for k in keys] == ["content", "promise", "tone"]
    assert len(set(keys)) == 3 and all(fp.kind_of(k) == "edit" for k in keys)
    # tone rules across edits are one key; the content is not part of the tone's key
    content, promise, tone = keys
    other_content, other_promise, other_tone = fp.event_keys("operator_edit", SHIPPING)
    assert (other_promise, other_tone) == (promise, tone)
    assert other_content != content and fp.same_subject(content, other_content)
    assert fp.other_subject(content, tone) and fp.other_subject(promise, tone)
    # the shape alone (reports) is still one key for both
    assert fp.edit_key(REFUND["original"], REFUND["final"]) == fp.edit_key(
        SHIPPING["original"], SHIPPING["final"]
    )


def test_the_same_edit_with_other_ids_has_the_same_keys_and_signature() -> None:
    again = {
        "original": "Hi Kim!!! Your order 9321 will be refunded tomorrow for sure!!!",
        "final": "Hello Kim. Refunds for order 9321 take five business days.",
    }
    assert fp.event_keys("operator_edit", again) == fp.event_keys("operator_edit", REFUND)
    assert fp.event_signature("operator_edit", again, "high", "") == fp.event_signature(
        "operator_edit", REFUND, "high", ""
    )
    # the same shape with other content is another judgement
    assert fp.event_signature("operator_edit", SHIPPING, "high", "") != fp.event_signature(
        "operator_edit", REFUND, "high", ""
    )


@pytest.mark.parametrize(
    ("a", "b"),
    [
        pytest.param("Refunds take 5 business days.", "Refunds take 7 business days.", id="days"),
        pytest.param("We ship to Norway.", "We do not ship to Norway.", id="negation"),
        pytest.param("Parcels leave Oslo.", "Parcels leave Bergen.", id="place"),
    ],
)
def test_two_content_rules_never_share_a_key(a: str, b: str) -> None:
    draft = "Thanks for waiting."
    key_a, key_b = (fp.edit_keys(draft, f"Thanks for waiting. {text}")[0] for text in (a, b))
    assert fp.edit_family(key_a) == fp.edit_family(key_b) == "content"
    assert key_a != key_b


def test_a_content_key_masks_ids_not_facts() -> None:
    def key(final: str) -> str:
        return fp.edit_keys("Thanks.", final)[0]

    assert key("Order 41 ships in 3 days.") == key("Order 9876 ships in 3 days.")
    assert key("Ticket #4412: write to ana@x.com.") == key("Ticket #17: write to bo@y.org.")
    assert key("Order 41 ships in 3 days.") != key("Order 41 ships in 4 days.")


@pytest.mark.parametrize(
    ("original", "final", "rule"),
    [
        pytest.param("Hey Mark, it is covered.", "Dear Mark, it is covered.", "greeting-dear",
                     id="another-greeting"),
        pytest.param("Your plan is cancelled.",
                     "Your plan is cancelled. Kind regards, the Lumen team",
                     "added-sign-off", id="sign-off-with-a-name"),
        pytest.param("We are so very sorry for the trouble, we truly apologise, this should never "
                     "happen. Your code is below.", "Sorry for the trouble. Your code is below.",
                     "shorter-apology", id="apology-cut-down"),
    ],
)  # fmt: skip
def test_edit_rules_read_the_tone_an_operator_changes(original: str, final: str, rule: str) -> None:
    assert rule in fp.edit_rules(original, final)
    [tone] = fp.event_keys("operator_edit", {"original": original, "final": final})
    assert fp.edit_family(tone) == "tone"  # nothing else was said: no content rule


def test_what_only_serves_a_rule_is_not_content() -> None:
    def families(original: str, final: str) -> list[str | None]:
        keys = fp.event_keys("operator_edit", {"original": original, "final": final})
        return [fp.edit_family(k) for k in keys]

    # appended facts make a reply longer: the facts are the rule, not the length
    assert families("Your order has shipped.", "Your order has shipped. Parcels over 20 kg "
                    "need a signature.") == ["content"]  # fmt: skip
    # a term inside new content ("within 90 days") is that content, not a promise added
    assert families("We can fix it.", "We can fix it free of charge within 90 days.") == ["content"]
    # a hedge in a removed promise's place keeps the promise rule; it is no fact of its own
    assert families(
        "It will be fixed by tomorrow, guaranteed.", "It will be fixed as soon as we can."
    ) == ["promise"]
    # a fact in its place is: "Refunds take five business days" is content
    assert families(
        "We will refund you tomorrow for sure.", "Refunds take five business days."
    ) == ["content", "promise"]


def test_a_rejected_draft_is_keyed_by_what_it_said() -> None:
    one = fp.event_keys("operator_edit", {"original": "Refund order 41 now.", "final": None})
    same = fp.event_keys("operator_edit", {"original": "Refund order 77 now.", "final": None})
    other = fp.event_keys("operator_edit", {"original": "We ship tomorrow!", "final": None})
    assert one == same != other and fp.edit_family(one[0]) == "rejected"


def test_assign_edit_gives_a_models_lessons_the_rule_they_speak_of() -> None:
    content, promise, tone = fp.event_keys("operator_edit", REFUND)
    keys = fp.assign_edit(
        [
            "Avoid exclamation marks in replies; keep the tone calm.",
            "Never promise a refund date that nobody has confirmed.",
            "Tell customers that refunds take five business days.",
            "Be helpful.",
        ],
        REFUND,
    )
    assert keys == [tone, promise, content, content]  # no rule named: the content


def test_a_manual_key_is_its_signature() -> None:
    assert fp.manual_key("refunds", "confirm the amount") == fp.manual_key("Refunds", "other")
    assert fp.manual_key("refunds") != fp.manual_key("shipping")


def test_distinct_is_for_strict_kinds_only() -> None:
    tool_a, tool_b = fp.tool_key("x", "a failed"), fp.tool_key("x", "b failed")
    run_a = fp.run_key("failure", "c failed")
    question = fp.event_keys("owner_answer", {"question": "q?"})[0]
    manual_a, manual_b = fp.manual_key("a"), fp.manual_key("b")
    assert fp.distinct(tool_a, tool_b) and fp.distinct(tool_a, run_a)  # both are failures
    assert not fp.distinct(tool_a, question)  # other kinds: the words decide
    assert not fp.distinct(manual_a, manual_b)  # a person may name one rule twice
    assert not fp.distinct(tool_a, None) and not fp.distinct(tool_a, tool_a)
    assert fp.other_kind(tool_a, question) and not fp.other_kind(tool_a, run_a)


def test_run_failures_one_per_distinct_failure_in_order() -> None:
    payload = {
        "outcome": "failure",
        "error": "gave up after 3 tries",
        "tool_calls": [
            {"tool": "book", "ok": False, "error": "Not enough seats on flight HAT1"},
            {"tool": "book", "ok": False, "error": "Not enough seats on flight HAT2"},
            {"tool": "book", "ok": False, "error": "Payment method pm_1 not found"},
            {"tool": "get_user", "ok": True},
        ],
    }
    failures = fp.run_failures(payload)
    assert [(f.tool, f.template) for f in failures] == [
        ("book", "not enough seats on flight <id>"),
        ("book", "payment method <id> not found"),
        (None, "gave up after <id> tries"),
    ]


def test_assign_picks_the_failure_a_lesson_speaks_of() -> None:
    failures = fp.run_failures(
        {
            "tool_calls": [
                {"tool": "book", "ok": False, "error": "Not enough seats on flight HAT1"},
                {"tool": "pay", "ok": False, "error": "Payment method pm_1 not found"},
            ]
        }
    )
    keys = fp.assign(
        [
            "When paying, check the payment method exists before calling `pay`.",
            "Check seat availability before you call book.",
        ],
        failures,
    )
    assert keys == [failures[1].key, failures[0].key]


def test_an_event_signature_ignores_ids_and_wording_of_the_task() -> None:
    def run(order: int, task: str) -> dict[str, object]:
        return {
            "task": task, "outcome": "failure",
            "tool_calls": [{"tool": "refund", "ok": False, "error": f"order {order} not found"}],
        }  # fmt: skip

    a = fp.event_signature("run_outcome", run(1, "refund order 1"), "low")
    b = fp.event_signature("run_outcome", run(2, "please refund my second order"), "low")
    assert a == b
    assert a != fp.event_signature("run_outcome", run(1, "x"), "high")  # trust is part of it
    answer = {"question": "Do we ship to Norway?", "answer": "Yes."}
    changed = {"question": "Do we ship to Norway?", "answer": "No."}
    assert fp.event_signature("owner_answer", answer) != fp.event_signature("owner_answer", changed)
    assert fp.event_signature("run_outcome", {"outcome": "success"}) is None


def test_mask_ids_keeps_case() -> None:
    assert fp.mask_ids("Order 4412 for bob@x.com") == "Order <id> for <email>"


def test_a_json_error_keeps_its_message_with_ids_masked() -> None:
    a = fp.error_template('{"error": "Seat 12A unavailable on HAT123", "code": 409}')
    b = fp.error_template('{"code": 409, "error": "Seat 14C unavailable on HAT999"}')
    c = fp.error_template('{"error": "payment declined", "code": 402}')
    assert a == b != c


def test_a_traceback_is_known_by_its_exception_line() -> None:
    def traceback(last: str) -> str:
        return f'Traceback (most recent call last):\n  File "x.py", line 3, in f\n{last}'

    assert fp.error_template(traceback("KeyError: 'order_id'")) == "keyerror: <q>"
    assert fp.error_template(traceback("ValueError: amount must be positive")) != (
        fp.error_template(traceback("ValueError: currency is unknown"))
    )


def test_kind_and_subject_read_from_any_string_as_split_reads_them() -> None:
    from digest.fingerprint import kind_of, subject_of, tells_a_failure

    for key in ["", "tool:ab12-cd", "tool:abcd", ":x", "a:", "a:-", "a:b-c-d", "nocolon",
                "nocolon-dash", "run:x:y-z", "-:x", "run:", "edit:1a2b3c4d-0f"]:  # fmt: skip
        rest = key.split(":", 1)[1] if ":" in key else ""
        assert kind_of(key) == (key.split(":", 1)[0] if key else None), key
        assert subject_of(key) == (rest.split("-", 1)[0] if "-" in rest else None), key
        assert tells_a_failure(key) == (key.split(":", 1)[0] in ("tool", "run")), key

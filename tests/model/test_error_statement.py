"""What a tool's error says, whatever shape the tool gave it (``digest.model.error_statement``,
issue 24 point 4): a JSON body's message and fields, a validation error's field, a code's
words; and the lesson the offline judge writes from it names the remedy for that error."""

from __future__ import annotations

import json
from typing import Any

import pytest

from digest.lessons.store import Candidate
from digest.masking import error_template, telling_line
from digest.model.contracts import parse_reflect_output
from digest.model.error_families import family_of
from digest.model.error_reading import named_argument, precondition
from digest.model.error_statement import readable, statement
from digest.model.offline_reflect import judge_event, transient

#: an error as a tool shaped it → what it says
SAID = [
    (
        'HTTP 422 Unprocessable Entity: {"detail": "Shipment weight is over the limit"}',
        "HTTP 422 Unprocessable Entity: Shipment weight is over the limit",
    ),
    (
        json.dumps(
            {"error": {"code": "balance_insufficient", "message": "Wallet balance too low"}}
        ),
        "Wallet balance too low; balance_insufficient",
    ),
    (
        '400 - {"errors": {"due_date": "Due date must be after the start date."}}',
        "400: due_date: Due date must be after the start date",
    ),
    (
        json.dumps({"errors": [{"field": "sku", "code": "missing_field"}]}),
        "sku: missing_field",
    ),
    ('{"ok": false, "error": "user_is_bot"}', "user_is_bot"),
    # a body whose keys are in the API's own language: its message is what it says
    (
        '400 Bad Request: {"error": "validacao", "mensagem": "O campo cep deve ter 8 dígitos"}',
        "400 Bad Request: O campo cep deve ter 8 dígitos; validacao",
    ),
    (
        json.dumps({"fehler": "ungueltig", "feld": "plz", "meldung": "PLZ fehlt"}),
        "PLZ fehlt",
    ),
    ("Error: plain text stays as it is", "Error: plain text stays as it is"),
    (
        'Traceback (most recent call last):\n  File "x.py", line 3, in f\n'
        "billing.QuotaError: monthly quota of 500 calls exceeded",
        "billing.QuotaError: monthly quota of 500 calls exceeded",
    ),
]


@pytest.mark.parametrize(("error", "said"), SAID, ids=[s[1][:30] for s in SAID])
def test_what_an_error_says_is_read_out_of_its_shape(error: str, said: str) -> None:
    assert statement(error) == said


def test_a_validation_error_tells_its_field_and_what_is_wrong() -> None:
    """The first line only counts errors: the field and the message make the error (and two
    fields' errors of one model are two templates, not one)."""
    error = (
        "2 validation errors for Invoice\ncurrency\n  Input should be 'EUR' or 'USD' [type=enum,"
        " input_value='GBP', input_type=str]\nlines\n  Field required [type=missing]"
    )
    assert telling_line(error) == (
        "2 validation errors for Invoice: currency: Input should be 'EUR' or 'USD' [type=enum]"
    )
    other = "1 validation error for Invoice\nlines\n  Field required [type=missing, input_value={}]"
    assert error_template(error) != error_template(other)
    assert family_of(statement(error)).name == "out-of-range"
    assert family_of(statement(other)).name == "missing-parameter"


def test_a_status_line_before_a_json_body_keeps_bodies_apart() -> None:
    one = 'HTTP 400 Bad Request: {"errors": {"title": "Title is required."}}'
    two = 'HTTP 400 Bad Request: {"errors": {"labels": "Label urgent does not exist."}}'
    assert error_template(one) != error_template(two)
    # a list of numbers is not a body: masked as one instance (how many is not the rule)
    assert error_template("Error: not a body [1, 2]") == "error: not a body [<ids>]"


def test_a_code_reads_as_words_of_the_same_length() -> None:
    assert readable("seat_map_not_found for order_id") == "seat map not found for order id"
    assert len(readable("a_b_c 1_2")) == len("a_b_c 1_2") and readable("1_2") == "1_2"
    assert family_of('{"ok": false, "error": "file_not_found"}').name == "not-found"
    assert family_of("attachment_too_large").name == "limit-exceeded"


def test_a_404_is_not_found_whatever_its_message_adds() -> None:
    error = "HTTP 404: Project does not exist or you lack permission to view it"
    assert family_of(error).name == "not-found"
    assert family_of("HTTP 403: you lack permission to view it").name == "permission"
    # unless it says the tool changed: a reversal is read as one
    assert family_of("404: /v1/orders was removed, use /v2/orders instead").name == (
        "requirement-changed"
    )


#: errors of the classes of precondition, worded as no family list spells them
CLASSES = [
    ("Error: contract C-2291 is suspended and cannot be invoiced", "status-does-not-allow"),
    ("Error: the shipment has a status of DELIVERED", "status-does-not-allow"),
    ("Fehler: Vertrag kann nicht mehr verlängert werden", "status-does-not-allow"),
    ("Error: no technicians available in zone 4 on that day", "unavailable-date"),
    ("Erreur : aucune salle disponible ce jour-là", "unavailable-date"),
    ("Error: the webinar is full", "unavailable-date"),
    ("Error: not enough vacation hours for this request", "insufficient-amount"),
    ("Error: free trial credits exhausted", "insufficient-amount"),
    ("Error: the employee has no bank account on file", "missing-record"),
    ("Error: delivery date 2024-01-02 is in the past", "too-late"),
    ("Errore: disdetta impossibile meno di 48 ore prima dell'inizio", "too-late"),
    ("Error: vendor V-88 is already saved in the address book", "duplicate"),
    ("Error: amount 900 is greater than the invoice total", "limit-exceeded"),
    ("Error: no dental plan found for member 5512", "not-found"),
    ("KeyError: 'tax_id'", "missing-parameter"),
    ("Error: 'AB12' is not valid for field vat_number", "bad-format"),
    ("Error: device D-12 is not enabled", "status-does-not-allow"),
    ("Error: cannot refund a payment that was disputed", "status-does-not-allow"),
    ("Error: the profile already has a default address", "duplicate"),
    ("Error: the currency must be the same as the order's", "mismatch"),
    ("Error: check-out date is earlier than check-in date", "out-of-range"),
    ("Error: desk 4B is already taken", "unavailable-date"),
    ("Error: transfer exceeds what the mandate covers", "limit-exceeded"),
    ("Error: wallet balance would go negative", "insufficient-funds"),
    ("Error: member does not have an IBAN on file", "missing-record"),
    ("Error: la tarifa admite como máximo 2 usuarios", "limit-exceeded"),
    ("Erreur : au plus 4 invités par réservation", "limit-exceeded"),
    ("Errore: l'importo deve essere minimo 10 euro", "below-minimum"),
]


@pytest.mark.parametrize(("error", "family"), CLASSES, ids=[c[0][:40] for c in CLASSES])
def test_a_precondition_is_read_by_its_class(error: str, family: str) -> None:
    assert family_of(statement(error)).name == family


def test_the_argument_named_is_the_one_that_failed_not_one_after_it() -> None:
    args = {"carrier": "ups", "weight_kg": 40, "plan": "team", "seats": 2}
    limit = family_of("package weight 40 kg exceeds carrier maximum of 30 kg")
    assert named_argument("package weight 40 kg exceeds carrier maximum", args, limit) == (
        "weight_kg"
    )
    error = "12 seats in use exceed the team plan's limit of 10"
    assert named_argument(error, args, family_of(error)) == "seats"
    assert named_argument("users in use exceed the team plan's limit", args, limit) is None
    listed = "1 validation error for Order: carrier: Input should be 'ups' or 'dhl'"
    assert named_argument(listed, args, family_of(listed)) == "carrier"


@pytest.mark.parametrize(
    "error",
    [
        "Erreur : délai d'attente dépassé",
        "Fehler: Dienst vorübergehend nicht verfügbar",
        "Error: servicio temporalmente no disponible",
        '{"ok": false, "error": "ratelimited"}',
    ],
)
def test_a_transient_fault_in_any_shape_or_language_teaches_nothing(error: str) -> None:
    assert transient(error) or transient(statement(error))
    event = {
        "kind": "run_outcome",
        "payload": {
            "outcome": "failure",
            "tool_calls": [{"tool": "book", "args": {"id": 1}, "ok": False, "error": error}],
        },
    }
    assert judge_event(event).startswith("<skip>")


@pytest.mark.parametrize(
    ("error", "fault"),
    [
        ("Error: a pull request already exists for acme:feature/login-rate-limit", False),
        ("Error: no commits between main and feature/login-rate-limit-2", False),
        ("Error: job ci/timeout-retry is not defined in workflow deploy.yml", False),
        ("Error: queue sync-503-events does not exist", False),
        ("Error: rate limit exceeded for branch feature/login-rate-limit", True),
        ("Error: upstream connect error or disconnect/reset before headers", True),
        ("Error: RATE_LIMIT_EXCEEDED", True),
    ],
)
def test_a_faults_words_inside_a_name_are_not_a_fault(error: str, fault: bool) -> None:
    """A branch, a path or an id that holds a fault's words ("login-rate-limit") is a name the
    error quotes: the run failed for what the error says around it."""
    assert transient(error) is fault


def _titles(*calls: tuple[str, dict[str, Any], str]) -> list[str]:
    event = {
        "kind": "run_outcome",
        "payload": {
            "outcome": "failure",
            "tool_calls": [
                {"tool": tool, "args": args, "ok": False, "error": error}
                for tool, args, error in calls
            ],
        },
    }
    parsed = parse_reflect_output(judge_event(event))
    assert isinstance(parsed, list), parsed
    return [str(Candidate.of(block).normalised().title) for block in parsed]


def test_each_error_of_a_json_api_gets_the_remedy_for_it() -> None:
    """Two errors of one tool, each a JSON body: two lessons, each titled by its own remedy
    and quoting what the body says, not the status line."""
    titles = _titles(
        ("pay_invoice", {"invoice": "I-1"},
         'HTTP 402: {"error": {"message": "Insufficient funds in wallet"}}'),
        ("pay_invoice", {"invoice": "I-2"},
         'HTTP 409: {"error": {"message": "Invoice I-2 has already been paid"}}'),
    )  # fmt: skip
    assert titles == [
        "Check the balance first: `pay_invoice` fails with «Insufficient funds in wallet»",
        "Check whether it is already done: `pay_invoice` fails with «has already been paid»",
    ]


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("InvalidRequestError: Request ‹id›: Missing required param: currency.",
         "HTTP 400: currency: Missing required param: currency", True),
        ("InvalidRequestError: Request ‹id›: Invalid integer: ‹id›",
         "HTTP 400: amount: Invalid integer: ‹id›", True),
        ("HTTP 422: quantity: must be a positive number",
         "HTTP 422: price: must be a positive number", False),
        ("Error: Missing required param: currency", "Error: Missing required param: amount",
         False),
        ("Error: not found", "HTTP 404: not found", False),  # too short to tell
        ("Missing required param\nHTTP 400: currency: Missing required param: currency",
         "Missing required param\nStripeError: Missing required param: amount", False),
    ],
)  # fmt: skip
def test_one_message_under_an_sdks_and_an_http_bodys_frames(a: str, b: str, same: bool) -> None:
    """A provider's message read through its SDK (an exception class, the request's id) and
    as an HTTP body (a status, the field it is about) says one thing; another field or another
    message is another error; of several quoted lines, the whole error (the longest) counts."""
    from digest.model.error_reading import same_message

    assert same_message(a, b) is same


def test_an_odata_message_given_with_its_language_is_what_the_error_says() -> None:
    """OData V2 (SAP) gives its message as ``{"lang": …, "value": …}``: that text is what
    the error says, with its code; two message numbers of one service are two statements."""
    body = {
        "error": {
            "code": "V1/392",
            "message": {"lang": "en", "value": "Material TG-3310 is not defined for sales org"},
            "innererror": {"application": {"component_id": "SD-SLS"}},
        }
    }
    said = statement(f"HTTP 400 {json.dumps(body)}")
    assert said == "HTTP 400: Material TG-3310 is not defined for sales org; V1/392"
    body["error"]["code"] = "V1/302"
    body["error"]["message"] = {"lang": "en", "value": "Sold-to party 171 is not defined"}
    assert "Sold-to party" in statement(f"HTTP 400 {json.dumps(body)}")


def test_a_family_read_in_the_status_alone_titles_the_message() -> None:
    """A status that names a family ("409 Conflict") before a message that does not: the title
    quotes what the message says failed, not the status (every error of the tool would read
    as one)."""
    family = family_of("409 Conflict: Arming refused — zone 4 is open. Close it first.")
    assert family.name == "conflict"
    said = precondition(
        "409 Conflict: Arming refused — zone 4 is open. Close it first.", family, 90
    )
    assert said == "Arming refused — zone 4 is open"
    other = precondition("409 Conflict: refused — the site is in maintenance mode", family, 90)
    assert other != said and "maintenance" in other
    # the family in the message: its clause, as before
    assert precondition("409 Conflict: the slot overlaps another booking", family, 90) == (
        "the slot overlaps another booking"
    )


def test_a_change_stated_late_in_a_long_error_is_kept_in_the_lesson() -> None:
    """An error that states a change after its first 160 characters ("…; plain-text
    addresses are no longer accepted") keeps that sentence in what its lesson observed: the
    judge reads there what it reverses."""
    error = (
        "400 Bad Request: 'delivery_address' must from API version 4 be an object with street, "
        'house_number, postcode and city fields, each a string (e.g. {"street": "Main St"}); '
        "plain-text delivery addresses written on one line are no longer accepted here."
    )
    event = {
        "kind": "run_outcome",
        "payload": {
            "outcome": "failure",
            "tool_calls": [
                {"tool": "create_shipment", "args": {"delivery_address": "Main St 4"},
                 "ok": False, "error": error},
            ],
        },
    }  # fmt: skip
    [block] = parse_reflect_output(judge_event(event))
    lesson = Candidate.of(block)
    assert "plain-text delivery addresses written on one line are no longer" in lesson.correction

"""Errors whose message sits one level further in: a body's ``details`` keyed by field and
holding error items, its ``errorCauses``, a JSON pointer naming the field, a database server's
message under a header that only numbers and locates it; and faults a retry fixes said as a
database says them (issue 24 point 4: one lesson per error family, each saying that error).

The bodies here are written for these tests, in the shapes public APIs give (field → list of
items with a description and a code; a summary with its causes; a list of issues with a JSON
pointer), about domains the benchmark's cases do not use."""

from __future__ import annotations

import json

import pytest

from digest.fingerprint import tool_key
from digest.masking import telling_line
from digest.model.error_families import TOOL_FAILURE
from digest.model.error_reading import precondition
from digest.model.error_statement import statement
from digest.model.transient import transient

ROOM_TAKEN = "HTTP 422 Unprocessable Entity\n" + json.dumps(
    {
        "error": "RecordInvalid",
        "description": "Record validation errors",
        "details": {
            "base": [{"description": "Base: Room 12 is already booked for these dates",
                      "error": "Overlap"}],
        },
    }
)  # fmt: skip
EMAIL_PATTERN = "HTTP 400 Bad Request\n" + json.dumps(
    {
        "errorCode": "E0000001",
        "errorSummary": "Api validation failed: email",
        "errorCauses": [{"errorSummary": "email: Does not match the required pattern"}],
    }
)
QUANTITY_ISSUE = "HTTP 400 Bad Request\n" + json.dumps(
    {
        "name": "INVALID_REQUEST",
        "message": "Request is not well-formed, syntactically incorrect, or violates schema.",
        "details": [
            {"field": "/items/0/quantity", "location": "body", "issue": "INVALID_PARAMETER",
             "description": "Must be a whole number."},
        ],
    }
)  # fmt: skip

NO_MX = "HTTP 400 Bad Request\n" + json.dumps(
    {
        "success": False,
        "errors": [{"code": 2001, "message": "Validation failed",
                    "error_chain": [{"code": 2207, "message": "Recipient domain has no MX."}]}],
    }
)  # fmt: skip

#: a message that carries the errors it sums up as JSON text
WRAPPED = "HTTP 400 Bad Request\n" + json.dumps(
    {
        "status": "error",
        "category": "VALIDATION_ERROR",
        "message": "Some values were not valid: " + json.dumps(
            [{"isValid": False, "message": 'Field "shoe_size" does not exist',
              "error": "FIELD_DOESNT_EXIST", "name": "shoe_size"}]
        ),
    }
)  # fmt: skip

#: an OpenAPI validator's body: each error's JSON pointer under "path"
OPENAPI_PATH = "HTTP 400\n" + json.dumps(
    {
        "message": "request/body/weightKg must be number",
        "errors": [{"path": "/body/weightKg", "message": "must be number",
                    "errorCode": "type.openapi.validation"}],
    }
)  # fmt: skip
#: a GraphQL error's path: the names from the operation down to the field
GRAPHQL_PATH = json.dumps(
    {"errors": [{"message": "Handle is taken", "path": ["createShelter", "handle"]}]}
)


@pytest.mark.parametrize(
    ("error", "says"),
    [
        (OPENAPI_PATH, "body/weightKg: must be number"),
        (GRAPHQL_PATH, "handle: Handle is taken"),
        (ROOM_TAKEN, "Base: Room 12 is already booked for these dates"),
        (NO_MX, "Recipient domain has no MX"),
        (WRAPPED, 'Field "shoe_size" does not exist'),
        (EMAIL_PATTERN, "email: Does not match the required pattern"),
        (QUANTITY_ISSUE, "items/quantity: Must be a whole number"),
    ],
)
def test_a_bodys_details_and_causes_say_what_failed(error: str, says: str) -> None:
    said = statement(error)
    assert (said.startswith("HTTP 4") or error == GRAPHQL_PATH) and says in said, said
    # not the body's own frame ("Record validation errors", "Request is not well-formed")
    frames = ("validation errors", "well-formed", "failed", "were not valid", "isValid")
    assert not any(frame in said for frame in frames)


def test_two_details_of_one_frame_are_two_errors() -> None:
    """One tool's two errors in one frame (status, error class, description) that differ in
    their details: two keys, and the title quotes each one's own message."""
    other = ROOM_TAKEN.replace("base", "guests").replace(
        "Base: Room 12 is already booked for these dates", "Guests: 5 exceeds the room's capacity"
    )
    assert tool_key("book_room", ROOM_TAKEN) != tool_key("book_room", other)
    shown = precondition(statement(ROOM_TAKEN).splitlines()[0], TOOL_FAILURE, 60)
    assert "already booked" in shown


def test_a_database_servers_message_header_gives_way_to_the_message() -> None:
    truncated = (
        "Msg 8152, Level 16, State 30, Server DB-7, Procedure usp_add_guest, Line 14\n"
        "String or binary data would be truncated.\nThe statement has been terminated."
    )
    assert telling_line(truncated) == "Msg 8152: String or binary data would be truncated."
    unique = (
        "Msg 2601, Level 14, State 1, Line 3\nCannot insert duplicate key row in object "
        "'dbo.Guests' with unique index 'IX_Guests_Email'."
    )
    # two messages of one server under headers alike are two errors
    assert tool_key("sqlcmd", truncated) != tool_key("sqlcmd", unique)


@pytest.mark.parametrize(
    ("error", "fault"),
    [
        ("Msg 1205, Level 13, State 45, Line 1\nTransaction (Process ID 71) was deadlocked on "
         "lock resources with another process and has been chosen as the deadlock victim. "
         "Rerun the transaction.", True),
        ("ERROR: could not serialize access due to read/write dependencies among transactions",
         True),
        ("SQLSTATE[40001]: Serialization failure: 1213 Deadlock found when trying to get lock",
         True),
        ("column deadlocked_at does not exist", False),
    ],
)  # fmt: skip
def test_a_deadlock_or_a_serialization_failure_is_a_fault_a_retry_fixes(
    error: str, fault: bool
) -> None:
    assert transient(error) is fault


def test_the_lesson_title_quotes_the_details_not_the_status_line() -> None:
    from digest.lessons.store import Candidate
    from digest.model.contracts import parse_reflect_output
    from digest.model.offline_reflect import judge_event

    calls = [
        {"tool": "book_room", "args": {"room": 12}, "ok": False, "error": ROOM_TAKEN},
        {"tool": "add_item", "args": {"qty": 1.5}, "ok": False, "error": QUANTITY_ISSUE},
        {"tool": "create_login", "args": {"email": "x"}, "ok": False, "error": EMAIL_PATTERN},
    ]
    event = {
        "kind": "run_outcome",
        "payload": {"task": "Book the room", "outcome": "failure", "tool_calls": calls},
    }
    parsed = parse_reflect_output(judge_event(event))
    assert isinstance(parsed, list) and len(parsed) == 3, parsed
    titles = [str(Candidate.of(block).normalised().title) for block in parsed]
    for title, words in zip(titles, ("is already", "whole number", "not match"), strict=True):
        assert words in title and "«HTTP" not in title, titles


def test_a_failed_state_and_an_argument_error_of_one_tool_stay_two_lessons() -> None:
    """ "The line totals do not add up to the order total" (a state: amounts do not add up)
    and "Currency does not support decimals" (an argument out of range) of one tool read alike
    in their frame; the offline judge keeps them apart even when the request marks them as
    reading alike."""
    from digest import fingerprint as fp
    from digest.model.offline_reconcile import reconcile

    def lesson(error: str, family: str, n: int) -> dict[str, object]:
        return {
            "id": n, "candidate": n, "fingerprint": fp.tool_key("open_invoice", error),
            "situation": "Calling the `open_invoice` tool",
            "mistake": f"Called `open_invoice` and it failed: «{error}»",
            "correction": f"Fix the call. Observed: `open_invoice` failed with «{error}».",
            "tags": ["open_invoice", "tool-error", family],
        }  # fmt: skip

    old = lesson("HTTP 422: amount: Currency does not support decimals", "out-of-range", 4)
    new = lesson(
        "HTTP 422: amount: Line totals do not add up to the total", "amounts-do-not-add-up", 0
    )
    old["reads_like"] = {"0": 0.95}
    [op] = json.loads(reconcile([old], [new]))["operations"]
    assert op["op"] == "ADD", op


def test_a_long_name_in_what_the_family_read_leaves_its_last_words_for_the_title() -> None:
    """What the family recognised may span the name it is about, too long for a title
    ('Property "…" does not exist'): the title quotes its last words, not the remedy alone."""
    from digest.model.error_families import family_of

    error = 'HTTP 400 Bad Request: Property "preferred_contact_channel_for_ops" does not exist'
    family = family_of(error)
    assert family.name == "unknown-name"
    assert precondition(error, family, 40) == "does not exist"


@pytest.mark.parametrize(
    "error",
    [
        "Erreur 400 : le champ « numero_siret » est obligatoire pour une demande de subvention",
        "Fehler 413: Datei überschreitet die maximale Größe von 20 MB",
        "Błąd 422: pole NIP jest wymagane dla faktury firmowej",
    ],
)
def test_a_status_head_in_another_language_is_not_what_the_title_quotes(error: str) -> None:
    """A status head in the words of the error's language ("Erreur 400 :", "Fehler 413:")
    only says the class of error, as "HTTP 400:" does: the title never quotes it alone."""
    from digest.model.error_families import family_of

    family = family_of(error)
    shown = precondition(error, family, 40)
    # what it quotes says what failed, or (nothing short enough) the whole message, never
    # the status head alone
    assert shown.split()[:2] != error.split()[:2] or shown == error, shown

"""Paraphrases that share what they are about read as one; one frame saying two things in one
place reads as two (issue 24, DESIGN §8a): ``digest.frames``, ``digest.identity.meaning``'s
use of it, a key that masks the names two errors quote, and the offline judge's reading of one
failed state. Pure functions and the offline judge's answer; no services.

The texts here are written for these tests, in domains the benchmark's cases do not use.
"""

from __future__ import annotations

import json

import pytest

from digest import fingerprint as fp
from digest.figures import figures
from digest.frames import (
    as_compared,
    bracketed_apart,
    enums_masked,
    error_codes,
    passed_values,
    quoted_apart,
    status_dropped,
    swapped,
)
from digest.identity.gloss import gloss
from digest.identity.meaning import READS_ALIKE, likeness, reads_like
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.model.offline_reconcile import reconcile
from digest.reflect.reconcile import fast_path, named_apart
from digest.reversal import answer_polarity, signals_change


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # one phrase each in the same place of one sentence
        ("Locker must be opened with a staff badge", "Locker must be opened with a master key"),
        (
            "Visa application ‹id› on hold: proof of funds missing",
            "Visa application ‹id› on hold: travel insurance certificate missing",
        ),
        # one word each, wherever it stands
        ("the sauna is closed on Sundays", "the pool is closed on Sundays"),
    ],
)
def test_one_frame_saying_two_things_in_one_place_is_a_swap(a: str, b: str) -> None:
    assert swapped(a, b)
    assert reads_like(a, b) == 0.0


@pytest.mark.parametrize(
    ("a", "b"),
    [
        # the same thing with its clauses in another order and other words
        (
            "Trailer length ‹id› m exceeds the limit of 12 m for the car deck",
            "The car deck takes trailers up to 12 m; a trailer of ‹id› m was turned away",
        ),
        (
            "Bed ‹id› is already taken on ward ‹id›",
            "Ward ‹id›: bed ‹id› is occupied by another patient",
        ),
    ],
)
def test_one_thing_in_other_words_is_no_swap_and_reads_alike(a: str, b: str) -> None:
    assert not swapped(a, b)
    found = likeness(a, b)
    # what each says alone reads apart word by word; the things both name decide
    assert found.about_alike
    assert found.score() >= READS_ALIKE


def test_a_figure_with_thousands_separators_is_one_figure() -> None:
    assert figures("more than 25,000 lines") == figures("a limit of 25000 lines") == {"25000"}
    assert figures("1.250.000 EUR") == {"1250000"}
    assert figures("1,234.50 and 1.234,50") == {"1234.50"}
    # a decimal is no thousands group
    assert figures("3,5 kg or 0.125 l") == {"3.5", "0.125"}
    a, b = "Import aborted: more than 25,000 lines", "Import aborted: line limit of 25000 exceeded"
    assert not likeness(a, b).figures_apart and not likeness(a, b).names_apart


def test_names_a_call_passed_are_the_instance_not_what_an_error_is_about() -> None:
    error = "Room 'lilac' cannot be booked by guests"
    other = "Room 'tulip' cannot be booked by guests"
    assert quoted_apart(error, other)
    passed = passed_values('Called `book` with «{"room": "lilac"}»', '«{"room": "tulip"}»')
    assert passed == {"lilac", "tulip"}
    assert not quoted_apart(error, other, passed)
    # a code in capitals names the instance (a plan, a product): not read as a quoted name
    assert not quoted_apart("not included in plan P-GOLD", "not included in plan P-SILVER")


def _run_lesson(tool: str, error: str, args: dict[str, str]) -> tuple[str, str, str, str]:
    key = fp.tool_key(tool, error)
    return (
        f"Calling the `{tool}` tool",
        f"Called `{tool}` with «{json.dumps(args)}» and it failed: «{error}»",
        f"Pass it. Observed: `{tool}` failed with «{error}».",
        key,
    )


def test_one_key_quoting_another_field_is_another_error_not_a_twin() -> None:
    first = _run_lesson("open_account", "Field 'tax_id' is required for companies", {"a": "b"})
    second = _run_lesson("open_account", "Field 'vat_id' is required for companies", {"a": "c"})
    assert first[3] == second[3]  # the template masks what it quotes
    old = Neighbour(
        lesson_id=7, relevance=0.9, identity=0.95, title="t", situation=first[0],
        mistake=first[1], correction=first[2], tags=(), fingerprint=first[3],
    )  # fmt: skip
    new = Candidate(situation=second[0], mistake=second[1], correction=second[2],
                    fingerprint=second[3])  # fmt: skip
    assert named_apart(new, old)
    # not a free NOOP on the twin: another lesson
    op = fast_path(0, new, [old], floor=0.5, identical=0.9)
    assert op is not None and op.op == "ADD"
    # the same field with another value the call passed is the same error: a twin
    again = _run_lesson("grant_role", "User 'kim' cannot get role admin", {"user": "kim"})
    other_user = _run_lesson("grant_role", "User 'lee' cannot get role admin", {"user": "lee"})
    twin = Neighbour(
        lesson_id=8, relevance=0.9, identity=0.95, title="t", situation=again[0],
        mistake=again[1], correction=again[2], tags=(), fingerprint=again[3],
    )  # fmt: skip
    repeat = Candidate(situation=other_user[0], mistake=other_user[1],
                       correction=other_user[2], fingerprint=other_user[3])  # fmt: skip
    assert not named_apart(repeat, twin)
    op = fast_path(0, repeat, [twin], floor=0.5, identical=0.9)
    assert op is not None and op.op == "NOOP" and op.lesson_id == 8


def test_a_judgement_is_not_shared_between_errors_quoting_other_fields() -> None:
    def payload(field: str, value: str) -> dict[str, object]:
        error = f"Field '{field}' is required for companies"
        call = {"tool": "open_account", "args": {"name": value}, "ok": False, "error": error}
        return {"outcome": "failure", "tool_calls": [call]}

    tax, vat = payload("tax_id", "Acme"), payload("vat_id", "Acme")
    assert fp.event_keys("run_outcome", tax) == fp.event_keys("run_outcome", vat)
    assert fp.event_signature("run_outcome", tax) != fp.event_signature("run_outcome", vat)
    # the same field with other values is the same incident: one signature
    again = payload("tax_id", "Globex")
    assert fp.event_signature("run_outcome", tax) == fp.event_signature("run_outcome", again)


def _item(i: int, error: str, family: str) -> dict[str, object]:
    return {
        "id": i, "candidate": i,
        "situation": "Calling the `set_password` tool",
        "correction": f"Meet the minimum first: `set_password` fails with «{error}».",
        "tags": ["set_password", "tool-error", family],
        "fingerprint": fp.tool_key("set_password", error),
    }  # fmt: skip


def test_the_offline_judge_keeps_two_states_of_one_family_apart_when_a_phrase_is_swapped() -> None:
    old = _item(0, "Passphrase must contain at least one symbol", "below-minimum")
    new = _item(0, "Passphrase must contain at least one lowercase letter", "below-minimum")
    [op] = json.loads(reconcile([old], [new]))["operations"]
    assert op["op"] == "ADD"


@pytest.mark.parametrize(
    "answer",
    [
        "Nee, sinds 1 maart verkopen we geen cadeaubonnen meer.",
        "Nei, vi tar ingen sjekker lenger.",
    ],
)
def test_no_more_around_its_noun_is_a_change_in_dutch_and_norwegian(answer: str) -> None:
    assert signals_change(answer)
    assert answer_polarity(answer) == -1
    assert not signals_change("Geen probleem, we leveren meer dan 5 dozen per dag.")


def test_an_elided_article_is_read_off_the_word_it_is_glued_to() -> None:
    assert gloss("l'adresse est invalide").split() == ["address", "invalid"]
    assert gloss("manca l'ordine").split()[-1] == "order"
    # an English contraction stays as it is
    assert gloss("don't retry") == "don't retry"


def test_a_name_the_call_wrote_in_a_longer_value_is_its_instance_not_a_field() -> None:
    from digest.fingerprint import event_signature
    from digest.frames import passed_back

    assert passed_back("polars", {"import polars as pl"})
    assert not passed_back("pola", {"import polars as pl"})  # a word, not a part of one
    assert not passed_back("state", {"12 main street"})

    def run(code: str, module: str) -> dict[str, object]:
        error = f"ModuleNotFoundError: No module named '{module}'"
        call = {"tool": "python", "args": {"code": code}, "ok": False, "error": error}
        return {"task": "plot", "outcome": "failure", "tool_calls": [call]}

    # the module each call imported and its error names back: one incident, other values
    one = event_signature("run_outcome", run("import polars as pl", "polars"))
    other = event_signature("run_outcome", run("import seaborn as sns", "seaborn"))
    assert one is not None and one == other

    def field(name: str) -> dict[str, object]:
        call = {
            "tool": "ship",
            "args": {"id": 7},
            "ok": False,
            "error": f"Field '{name}' is required",
        }
        return {"task": "ship", "outcome": "failure", "tool_calls": [call]}

    # a field the call did not pass names the tool's interface: two errors
    assert event_signature("run_outcome", field("postcode")) != event_signature(
        "run_outcome", field("state")
    )


@pytest.mark.parametrize(
    ("text", "codes"),
    [
        # a cloud SDK's code in parentheses, an Azure-style line, a field named "code"
        (
            "An error occurred (QueueDoesNotExist) when calling the SendMessage operation",
            {"queuedoesnotexist"},
        ),
        (
            "(StorageAccountAlreadyTaken) The name is taken. Code: StorageAccountAlreadyTaken",
            {"storageaccountalreadytaken"},
        ),
        ('{"error": {"code": "QUOTA_EXCEEDED_FOR_PROJECT"}}', {"quota_exceeded_for_project"}),
        ("code=LOCATION_NOT_SUPPORTED", {"location_not_supported"}),
        # prose in parentheses, a one-word code and a plain word are no codes
        ("the request failed (see the logs) twice", set()),
        ("Request was throttled (Throttling)", set()),
    ],
)
def test_error_codes_are_read_as_names(text: str, codes: set[str]) -> None:
    from digest.frames import error_codes, named

    assert error_codes(text) == codes
    assert codes <= named(text)


def test_two_codes_of_one_sdk_frame_read_apart() -> None:
    """One service's frame around two errors ("An error occurred (X) when calling the Y
    operation: …") reads alike to the table; the two codes read them apart."""
    a = (
        "ClientError: An error occurred (QueueDoesNotExist) when calling the SendMessage "
        "operation: The specified queue does not exist"
    )
    b = (
        "ClientError: An error occurred (InvalidMessageContents) when calling the SendMessage "
        "operation: The message contains characters outside the allowed set"
    )
    assert likeness(a, b).names_apart
    assert reads_like(a, b) == 0.0
    same_code = b.replace("contains characters outside the allowed set", "has invalid characters")
    assert not likeness(b, same_code).names_apart


def test_two_exceptions_of_one_client_read_apart_by_their_names() -> None:
    """A client's exceptions label their messages ("SMTPSenderRefused: (553, …)"): two names
    are two errors, however alike the server's replies read once their codes are masked; a
    word of prose before a colon is no name."""
    a = "SMTPRecipientsRefused: (‹id›, b'‹id› Recipient address rejected: User unknown')"
    b = "SMTPSenderRefused: (‹id›, b'‹id› Sender address rejected: not owned by user')"
    assert likeness(a, b).names_apart
    assert reads_like(a, b) == 0.0
    assert error_codes("MessageRejected: Address blacklisted") == {"messagerejected"}
    assert error_codes("Payment: declined") == frozenset()
    assert error_codes("Error: declined") == frozenset()


def test_the_items_of_a_list_argument_are_values_the_call_passed() -> None:
    """A list argument, quoted with parentheses for brackets, names values the error may quote
    back ("Tag 'urgent' already exists" for ``"tags": ["urgent"]``): the instance, not a
    field."""
    mistake = (
        'Called `tag_ticket` with «{"ticket": "T-81", "tags": ("urgent", "vip")}» and it '
        "failed: «Tag 'urgent' already exists on ticket T-81»"
    )
    assert {"urgent", "vip", "t-81"} <= passed_values(mistake)
    other = mistake.replace("urgent", "billing")
    assert not quoted_apart(
        "Tag 'urgent' already exists on ticket ‹id›",
        "Tag 'billing' already exists on ticket ‹id›",
        passed_values(mistake, other),
    )


def test_a_word_of_a_passed_statement_named_back_is_the_instance() -> None:
    """An error naming a word of a long value the call passed ("cannot run DROP on a replica"
    for the statement ``DROP TABLE …``) names the instance: masked as compared."""
    from digest.frames import as_compared

    first = 'Called `sql` with «{"statement": "DROP TABLE tmp_1"}» and it failed: «x»'
    second = 'Called `sql` with «{"statement": "TRUNCATE audit_log"}» and it failed: «x»'
    a, b = as_compared(
        "cannot run DROP on a replica", "cannot run TRUNCATE on a replica", first, second
    )
    assert a == b == "cannot run ‹id› on a replica"


@pytest.mark.parametrize(
    ("a", "b", "apart"),
    [
        # a word of its own in two places of one frame: two things
        ("Pets may only be walked on the lawn", "Bikes may only be parked on the lawn", True),
        ("the driver has no valid training card", "the truck has no valid inspection card", True),
        # a frame shared but for three places, or a word the other sentence also says: no swap
        ("Parcels are kept for seven days at the depot", "Mail is held for ten days there", False),
        ("the pool opens at nine on weekdays", "on weekdays the pool opens at nine", False),
    ],
)  # fmt: skip
def test_two_words_swapped_in_one_frame_read_as_two_things(a: str, b: str, apart: bool) -> None:
    assert swapped(a, b) is apart


def _neighbour(lesson_id: int, lesson: tuple[str, str, str, str], identity: float) -> Neighbour:
    return Neighbour(
        lesson_id=lesson_id, relevance=0.99, identity=identity, title="t", situation=lesson[0],
        mistake=lesson[1], correction=lesson[2], tags=(), fingerprint=lesson[3],
    )  # fmt: skip


def test_a_near_identical_frame_saying_another_thing_is_no_free_noop() -> None:
    """Two keys whose errors read word for word alike but for the thing they say ("VAT number
    missing", "billing address missing") are not NOOPed by the fast path on their identity;
    an enum value an error quotes ("reason: FRAUD_CHECK") is the instance's: read masked, it
    makes no two things."""
    vat = _run_lesson("issue_invoice", "Invoice blocked: VAT number missing for client 77", {})
    address = _run_lesson(
        "issue_invoice", "Invoice blocked: billing address missing for client 91", {}
    )
    assert vat[3] != address[3]
    new = Candidate(situation=address[0], mistake=address[1], correction=address[2],
                    fingerprint=address[3])  # fmt: skip
    op = fast_path(0, new, [_neighbour(3, vat, 0.97)], floor=0.5, identical=0.9)
    assert op is None or op.op != "NOOP", op
    held, again = "Payout ‹id› held (reason: FRAUD_CHECK)", "Payout ‹id› held (reason: KYC_PENDING)"
    assert swapped(held, again)
    assert not swapped(enums_masked(held), enums_masked(again))


def test_a_command_lines_option_values_are_what_it_passed() -> None:
    """A CLI call passes one string: its options' values are the instance ("--location
    northeurope"), and a quotation holding one ("Capacity Restrictions: Standard_NC6s_v3")
    names the error by the rest of its words."""
    call = 'Called `az` with «{"command": "vm create --size %s --location %s"}» and it failed'
    a = call % ("Standard_NC6s_v3", "northeurope")
    b = call % ("Standard_E16s_v5", "swedencentral")
    passed = passed_values(a, b)
    assert {"northeurope", "swedencentral", "standard_nc6s_v3"} <= passed
    said = "size for 'Capacity Restrictions: %s' is not available in location '%s'"
    first = said % ("Standard_NC6s_v3", "northeurope")
    second = said % ("Standard_E16s_v5", "swedencentral")
    assert quoted_apart(first, second)
    assert not quoted_apart(first, second, passed)
    # a field the error names, not passed, still tells two errors apart
    assert quoted_apart("field 'name' is invalid", "field 'sku' is invalid", passed)


def test_a_lower_case_code_that_is_the_whole_message_names_the_error() -> None:
    """Slack-like APIs answer with a code alone ("channel_not_found", "not_in_channel"): two
    codes are two errors however alike their words read; a snake_case word inside a sentence
    is no code of its own."""
    from digest.frames import error_codes
    from digest.identity.meaning import reads_like

    assert error_codes("HTTP 200: channel_not_found") == {"channel_not_found"}
    assert error_codes("not_in_channel") == {"not_in_channel"}
    assert error_codes("Field postal_code is required") == frozenset()
    assert reads_like("HTTP 200: channel_not_found", "HTTP 200: not_in_channel") == 0.0


def test_errors_naming_other_things_in_brackets_are_two_errors() -> None:
    """One search engine's frame naming two fields and types in brackets ("failed to parse
    field [weight] of type [float]", "… [shipped_at] of type [date]") reads nearly word for
    word alike: no free NOOP, and the offline judge keeps them apart; ids and positions in
    brackets ("[1:40]", "[SHP-2291]") name no thing."""
    float_ = "HTTP 400: [1:40] failed to parse field [weight] of type [float] in doc [SHP-2291]"
    date = "HTTP 400: [1:52] failed to parse field [shipped_at] of type [date] in doc [SHP-2297]"
    assert bracketed_apart(float_, date)
    assert not bracketed_apart(float_, float_.replace("SHP-2291", "SHP-3001"))
    first = _run_lesson("index_doc", float_, {"a": "b"})
    second = _run_lesson("index_doc", date, {"a": "c"})
    assert first[3] != second[3]
    new = Candidate(situation=second[0], mistake=second[1], correction=second[2],
                    fingerprint=second[3])  # fmt: skip
    op = fast_path(0, new, [_neighbour(3, first, 0.97)], floor=0.5, identical=0.9)
    assert op is None or op.op != "NOOP", op
    existing = [{"id": 3, "situation": first[0], "mistake": first[1], "correction": first[2],
                 "tags": ["index_doc", "tool-error", "bad-format"], "fingerprint": first[3],
                 "reads_like": {"0": 0.97}}]  # fmt: skip
    cand = {"candidate": 0, "situation": second[0], "mistake": second[1],
            "correction": second[2], "tags": ["index_doc", "tool-error", "bad-format"],
            "fingerprint": second[3]}  # fmt: skip
    [op_] = json.loads(reconcile(existing, [cand]))["operations"]
    assert op_["op"] == "ADD", op_


def test_an_http_status_a_line_opens_with_is_only_its_frame() -> None:
    """One service's error with and without its status ("Locked - …", "423: …") reads as one
    error; a status that is most of what a line says stays, and so does one inside a line."""
    assert status_dropped("Locked - cannot edit invoices of a closed ledger period") == (
        "cannot edit invoices of a closed ledger period"
    )
    assert status_dropped("HTTP/1.1 423 Locked: ledger period is closed for edits") == (
        "ledger period is closed for edits"
    )
    assert status_dropped("404 Not Found: ledger ‹id›") == "404 Not Found: ledger ‹id›"
    assert status_dropped("the ledger says 409 Conflict: retry") == (
        "the ledger says 409 Conflict: retry"
    )
    mistakes = (
        'Called `post_invoice` with «{"period": "2026-03"}» and it failed: «x»',
        'Called `post_invoice` with «{"period": "2026-04"}» and it failed: «y»',
    )
    new, old = as_compared(
        "Locked - cannot post invoices into the closed period ‹id›",
        "423: invoices cannot be posted into closed period ‹id›",
        *mistakes,
    )
    assert not new.startswith("Locked") and not old.startswith("423")
    assert reads_like(new, old) >= READS_ALIKE


def test_a_size_in_two_units_names_no_two_things() -> None:
    """One size limit given in KB by one wording and in MB by another reads as one limit; two
    limits of other figures stay apart."""
    one = "Upload refused: scan is ‹id› MB; scans may be at most 40 MB"
    other_unit = "File size ‹id› KB is over the 40 MB maximum for scans"
    assert not likeness(one, other_unit).names_apart
    assert reads_like(one, other_unit) >= READS_ALIKE
    assert reads_like(one, "Upload refused: scans may be at most 200 pages") == 0.0

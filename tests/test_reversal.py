"""digest.reversal: a text that says a requirement was removed, replaced or inverted, and what
it is about; the offline judge's reconcile answer supersedes the lesson such a text reverses."""

from __future__ import annotations

import json

import pytest

from digest import fingerprint as fp
from digest.model.offline_reconcile import reconcile
from digest.reversal import (
    answers_reversed,
    reversal_terms,
    reverses,
    reverses_interface,
    states_reversal,
)

OLD = (
    "Before calling `api_call`, make sure every required parameter is present. Observed: "
    "`api_call` failed with «401: missing Authorization header»."
)


@pytest.mark.parametrize(
    "error",
    [
        "The Authorization header is no longer accepted; send X-Api-Key instead",
        "Authorization header deprecated in favour of X-Api-Key",
        "Authorization has been replaced by X-Api-Key",
        "Der Authorization-Header wird nicht mehr akzeptiert",
        "L'en-tête Authorization n'est plus accepté, utilisez X-Api-Key à la place",
        "El encabezado Authorization ya no se acepta",
        "O cabeçalho Authorization já não é aceite",
        "Заголовок Authorization больше не поддерживается",
        "Authorization ヘッダーは廃止されました",
    ],
)
def test_a_reversal_of_what_the_old_lesson_asks_for_is_found(error: str) -> None:
    new = f"Observed: `api_call` failed with «{error}»."
    assert states_reversal(new)
    assert "authorization" in reversal_terms(new)
    assert reverses(new, OLD)


@pytest.mark.parametrize(
    "error",
    [
        "order 1182 not found",  # an ordinary error: nothing was reversed
        "coupon SAVE10 is no longer valid",  # a reversal, but of something the old never said
        "quantity exceeds the limit of 5",
    ],
)
def test_an_unrelated_error_reverses_nothing(error: str) -> None:
    assert not reverses(f"Observed: `api_call` failed with «{error}».", OLD)


@pytest.mark.parametrize(
    "error",
    [
        "field 'zone' has been sunset; migrate to 'region_code'",
        "the 'zone' field is being phased out",
        "fältet 'zone' ersätts av 'region_code' från och med version 4",
        "el campo 'zone' pasó a llamarse 'region_code'",
        "o campo 'zone' passou a se chamar 'region_code'",
        "le champ 'zone' a été renommé en 'region_code'",
        "das Feld 'zone' wurde in 'region_code' umbenannt",
        "parametr 'zone' se již nepoužívá, zadejte místo něj 'region_code'",
        "parameter 'zone' už neplatí",
    ],
)
def test_a_change_in_other_verbs_and_languages_is_a_reversal(error: str) -> None:
    old = "Observed: `quote` failed with «missing required field 'zone'»."
    assert reverses(f"Observed: `quote` failed with «{error}».", old)


@pytest.mark.parametrize(
    "text",
    [
        "ValidationError: 'quantity' must be an integer, got '2.5' instead",
        "We need the sunset photo for the listing",
        "Nemáme to skladem",  # a Czech negated verb without "no longer"
    ],
)
def test_a_look_alike_states_no_reversal(text: str) -> None:
    assert not states_reversal(text)


def test_a_value_reported_instead_is_a_format_error_not_a_changed_requirement() -> None:
    from digest.model.error_families import family_of

    assert family_of("'quantity' must be an integer, got '2.5' instead").name == "bad-format"
    assert family_of("expected int, got a string instead").name != "requirement-changed"
    assert family_of("'x' is gone; send 'y' instead").name == "requirement-changed"


def _item(i: int, key: str, correction: str, **extra: object) -> dict[str, object]:
    return {"id": i, "situation": "Calling the `api_call` tool", "correction": correction,
            "mistake": None, "tags": [], "fingerprint": key, **extra}  # fmt: skip


def test_the_offline_judge_supersedes_the_lesson_a_new_error_reverses() -> None:
    old_key = fp.tool_key("api_call", "401: missing Authorization header")
    new_error = "400: the Authorization header is no longer accepted; send X-Api-Key instead"
    new_key = fp.tool_key("api_call", new_error)
    existing = [
        _item(0, fp.tool_key("api_call", "404: order 7 not found"), "Confirm the id first."),
        _item(1, old_key, OLD),
    ]
    candidate = _item(0, new_key, f"Send X-Api-Key. Observed: «{new_error}».")
    candidate["candidate"] = candidate.pop("id")
    ops = json.loads(reconcile(existing, [candidate]))["operations"]
    assert ops[0]["op"] == "DELETE" and ops[0]["id"] == 1 and "reversed" in ops[0]["reason"]


def test_another_tools_lesson_is_never_superseded_by_a_reversal() -> None:
    existing = [_item(1, fp.tool_key("send_mail", "401: missing Authorization header"), OLD)]
    new_error = "the Authorization header is no longer accepted"
    candidate = _item(0, fp.tool_key("api_call", new_error), f"Observed: «{new_error}».")
    candidate["candidate"] = candidate.pop("id")
    ops = json.loads(reconcile(existing, [candidate]))["operations"]
    assert ops[0]["op"] == "ADD"


@pytest.mark.parametrize(
    ("old", "new", "reversed_"),
    [
        ("No, we are open on weekdays only.", "Yes: on Saturdays from 9 to 12.", True),
        ("Yes, 3-5 working days.", "Yes, 4-6 working days.", False),
        ("Ja, samstags bis 12 Uhr.", "Nein, nur werktags.", True),
        (
            "No, we do not ship to Norway.",
            "Since May we ship to Norway; it is no longer excluded.",
            True,
        ),
        ("Refunds take five days.", "Refunds take five to seven days.", False),
    ],
)
def test_an_owners_new_answer_reverses_the_old_one_or_not(
    old: str, new: str, reversed_: bool
) -> None:
    assert answers_reversed(new, old) is reversed_


def _answer_item(i: int, question: str, answer: str) -> dict[str, object]:
    key = fp.event_keys("owner_answer", {"question": question})[0]
    return {"id": i, "situation": f"Asked: {question}", "mistake": None, "tags": [],
            "correction": f'Answer "{question}" with the owner\'s facts. {answer}',
            "fingerprint": key}  # fmt: skip


def test_the_offline_judge_supersedes_a_reversed_answer_and_updates_a_refined_one() -> None:
    question = "Do you take weekend appointments?"
    existing = [_answer_item(4, question, "No, we are open on weekdays only.")]
    reversal = _answer_item(0, question, "Yes: on Saturdays from 9 to 12.")
    reversal["candidate"] = reversal.pop("id")
    [op] = json.loads(reconcile(existing, [reversal]))["operations"]
    assert (op["op"], op["id"]) == ("DELETE", 4) and "reversed" in op["reason"]
    refined = _answer_item(0, question, "No, we are open on weekdays only, 8 to 18.")
    refined["candidate"] = refined.pop("id")
    [op] = json.loads(reconcile(existing, [refined]))["operations"]
    assert (op["op"], op["id"]) == ("UPDATE", 4)


def test_a_short_name_the_error_quotes_is_what_a_rename_is_about() -> None:
    old = "Observed: `search` failed with «400: parameter 'q' is required»."
    renamed = "Observed: `search` failed with «parameter 'q' was renamed to 'query' in v2»."
    assert reverses(renamed, old)
    assert not reverses("Observed: «parameter 'page' was renamed to 'cursor'»", old)


def _judged(existing: list[dict[str, object]], question: str, answer: str) -> dict[str, object]:
    candidate = _answer_item(0, question, answer)
    candidate["candidate"] = candidate.pop("id")
    [op] = json.loads(reconcile(existing, [candidate]))["operations"]
    return dict(op)


def test_an_answer_reversed_under_another_wording_supersedes_the_old_one() -> None:
    existing = [_answer_item(3, "Is gift wrapping free?", "Yes, for every order.")]
    op = _judged(
        existing,
        "Do customers pay for gift wrapping?",
        "Since 1 March they do: gift wrapping now costs €2.",
    )
    assert (op["op"], op["id"]) == ("DELETE", 3)
    assert "reversed" in str(op["reason"]) and "other words" in str(op["reason"])


def test_the_same_answer_to_a_reworded_question_is_one_lesson() -> None:
    existing = [_answer_item(3, "Do you deliver on Sundays?", "No, Monday to Saturday only.")]
    op = _judged(existing, "Is Sunday delivery available?", "No, we deliver Monday to Saturday.")
    assert (op["op"], op["id"]) == ("NOOP", 3)
    # saying more (a number the lesson lacks) is an UPDATE of the same lesson
    op = _judged(existing, "Is Sunday delivery available?", "No; orders arrive by 10 am Monday.")
    assert (op["op"], op["id"]) == ("UPDATE", 3)


@pytest.mark.parametrize(
    ("question", "answer"),
    [
        ("Do you ship to Switzerland?", "Not any more: since January we no longer ship there."),
        ("Do you offer senior discounts?", "Yes, 10% off for customers over 65."),
        ("Do you ship to Finland?", "Yes, in 5 to 7 working days."),
    ],
)
def test_a_look_alike_question_about_another_entity_is_another_fact(
    question: str, answer: str
) -> None:
    existing = [
        _answer_item(3, "Do you ship to Norway?", "Yes, in 4 to 6 working days."),
        _answer_item(4, "Do you offer student discounts?", "Yes, 15% off with a student card."),
    ]
    assert _judged(existing, question, answer)["op"] == "ADD"


@pytest.mark.parametrize(
    "error",
    [
        "stop sending the Authorization header: requests are signed with X-Api-Key",
        "use X-Api-Key rather than Authorization",
        "X-Api-Key is required as of v3; the Authorization header is ignored",
        "the Authorization headers were retired; X-Api-Key must now be sent",
    ],
)
def test_a_reversal_worded_as_an_instruction_or_a_version_rule_is_found(error: str) -> None:
    """Telling the caller to stop, to prefer the new thing, or that an input is ignored or
    required since a version is a reversal too; a plural names the same thing."""
    assert reverses(f"Observed: `api_call` failed with «{error}».", OLD)


def _tool_item(i: int, error: str, family: str, remedy: str) -> dict[str, object]:
    correction = f"{remedy}: `place_order` fails with «{error}»."
    return {"id": i, "situation": "Calling the `place_order` tool", "correction": correction,
            "mistake": None, "tags": ["place_order", "tool-error", family],
            "fingerprint": fp.tool_key("place_order", error)}  # fmt: skip


def test_one_failed_state_in_other_words_is_one_lesson_and_reverses_nothing() -> None:
    """Two wordings of one state family (out of stock; expired credentials, one saying "no
    longer valid") are never a reversal. The offline judge makes them one lesson when the
    remedy agrees and the errors say the same of the state ("out of stock", "insufficient
    inventory": one concept); otherwise it keeps them apart (a family can
    hold two states: "not enough seats" and "not available on that date",
    tests/test_identity_pipeline.py), and a remote judge is shown the pair; two input errors
    of one family that name other inputs are not kin (``fp.same_error_family``)."""
    old = _tool_item(1, "item ‹id› is out of stock", "out-of-stock", "Check stock first")
    new = _tool_item(0, "insufficient inventory (0 available)", "out-of-stock", "Check stock first")
    new["candidate"] = new.pop("id")
    ops = json.loads(reconcile([old], [new]))["operations"]
    assert [(op["op"], op.get("id")) for op in ops] == [("UPDATE", 1)]
    seats, date = "not enough seats on flight ‹id›", "flight ‹id› is not available on that date"
    old = _tool_item(1, seats, "unavailable-date", "Check availability first")
    new = _tool_item(0, date, "unavailable-date", "Check availability first")
    new["candidate"] = new.pop("id")
    assert json.loads(reconcile([old], [new]))["operations"][0]["op"] == "ADD"
    old = _tool_item(1, "401: access token expired", "authentication", "Refresh")
    new = _tool_item(0, "the bearer token is no longer valid", "authentication", "Refresh")
    new["candidate"] = new.pop("id")
    ops = json.loads(reconcile([old], [new]))["operations"]
    assert [op["op"] for op in ops] == ["ADD"]  # "no longer valid" reverses nothing
    old = _tool_item(1, "order ‹id› not found", "not-found", "Look up the id")
    new = _tool_item(0, "unknown customer ‹id›", "not-found", "Look up the id")
    new["candidate"] = new.pop("id")
    assert json.loads(reconcile([old], [new]))["operations"][0]["op"] == "ADD"
    a = _tool_item(1, "qty over the limit", "limit-exceeded", "Keep `qty` within the limit")
    b = _tool_item(2, "amount over limit", "limit-exceeded", "Keep `amount` within the limit")
    tags = ["place_order", "tool-error", "limit-exceeded"]
    assert not fp.same_error_family(
        str(a["fingerprint"]), tags, str(a["correction"]),
        str(b["fingerprint"]), tags, str(b["correction"]),
    )  # fmt: skip
    assert fp.same_error_family(
        str(a["fingerprint"]), tags, str(a["correction"]),
        str(b["fingerprint"]), tags, str(a["correction"]),
    )  # fmt: skip


POLICY_LESSON = (
    "Before calling `issue_refund`, check the amount. Observed: `issue_refund` failed with "
    "«RefundDenied: refunds above 200 EUR need a manager's approval»."
)


@pytest.mark.parametrize(
    "error",
    [
        "RefundError: refunds no longer need a manager's approval",
        "400: the 'manager' parameter was removed; refunds above 200 EUR are approved",
        "Fehler: Erstattungen über 200 EUR brauchen ab sofort keine Genehmigung mehr",
    ],
)
def test_run_text_never_reverses_a_policy(error: str) -> None:
    """A reversal from run text supersedes only a tool's own interface (issue 25): a lesson
    about a check, a permission or a role stays, and a reversal that claims one is a claim."""
    new = f"Observed: `issue_refund` failed with «{error}»."
    assert states_reversal(new)
    assert not reverses_interface(new, POLICY_LESSON)
    old_key = fp.tool_key("issue_refund", "RefundDenied: refunds above 200 EUR need approval")
    existing = [_item(1, old_key, POLICY_LESSON)]
    cand = _item(0, fp.tool_key("issue_refund", error), new)
    cand["candidate"] = cand.pop("id")
    [op] = json.loads(reconcile(existing, [cand]))["operations"]
    assert op["op"] != "DELETE"


def test_an_interface_reversal_of_a_field_named_like_a_check_still_supersedes() -> None:
    old = "Observed: `issue_refund` failed with «400: field 'approval_id' is required»."
    new = "Observed: `issue_refund` failed with «400: field 'approval_id' was renamed to 'ref'»."
    assert reverses_interface(new, old)


@pytest.mark.parametrize(
    "error",
    [
        "field 'address_line' has been replaced by 'street' and 'house_number'",
        "'address_line' is now optional and ignored",
        "the 'address_line' field was discontinued",
        "Die API verlangt jetzt 'postleitzahl' statt 'address_line'",
        "el campo 'address_line' ha sido sustituido por 'calle'",
        "o campo 'address_line' foi descontinuado; informe 'rua'",
        "il campo 'address_line' è stato rimosso",
        "het veld 'address_line' is verwijderd",
        "pole 'address_line' zostało usunięte",
        "поле 'address_line' удалено",
        "参数 'address_line' 已停用，请改用 'street'",
    ],
)
def test_a_reversal_in_other_words_and_languages_is_found(error: str) -> None:
    old = "Observed: `geocode` failed with «422: missing required field 'address_line'»."
    new = f"Observed: `geocode` failed with «{error}»."
    assert states_reversal(new)
    assert reverses(new, old)


@pytest.mark.parametrize(
    "text",
    [
        "Der Timeout ist auf 30 Sekunden eingestellt",  # "set to", not "discontinued"
        "statt_id must be an integer",  # a name, not the word "statt"
        "order 1182 not found",
    ],
)
def test_words_that_only_look_like_a_reversal_are_none(text: str) -> None:
    assert not states_reversal(text)


def test_a_value_removed_and_a_rule_inverted_reverse_the_old_lesson() -> None:
    old = "Observed: `export_report` failed with «unsupported format 'csv'; supported: 'xls'»."
    assert reverses("Observed: «format 'xls' was removed; use 'xlsx'».", old)
    old = "Observed: `post_message` failed with «channel name must start with '#'»."
    new = "Observed: «channel names must not include '#' anymore; pass the bare name»."
    assert reverses(new, old)


@pytest.mark.parametrize(
    "answer",
    [
        "We stopped home delivery: pickup only.",
        "Since March the counter closes at 6pm.",
        "Seit Juni schließt der Schalter um 18 Uhr.",
        "Desde enero el envío a domicilio cuesta 5 €.",
        "Depuis le 1er juin, la livraison est payante.",
    ],
)
def test_an_answer_that_says_a_service_stopped_or_dates_a_change_states_a_reversal(
    answer: str,
) -> None:
    assert states_reversal(answer)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("Yes, dogs are welcome.", "Unfortunately not, dogs are not allowed."),
        ("Ja, Hunde sind willkommen.", "Leider nein."),
        ("Sí, con correa.", "Lamentablemente no."),
    ],
)
def test_a_no_after_a_regret_is_a_no(old: str, new: str) -> None:
    assert answers_reversed(new, old)


def test_no_more_than_a_limit_is_not_a_reversal() -> None:
    assert not states_reversal("quantity must be no more than 5 per order")


def test_other_figures_asked_for_now_supersede_with_the_figures_in_the_reason() -> None:
    existing = [_answer_item(3, "What are your opening hours?", "We are open 9 to 5.")]
    op = _judged(existing, "What are the opening hours now?", "10 to 6, Monday to Saturday.")
    assert (op["op"], op["id"]) == ("DELETE", 3)
    assert "other figures (9-5 → 10-6)" in str(op["reason"])  # a range is one value
    # the same question not asked for now: another value where the old one gave one is a
    # change all the same (whatever words say it, none here), said so in the reason
    op = _judged(existing, "What are your opening hours?", "10 to 6, Monday to Saturday.")
    assert (op["op"], op["id"]) == ("DELETE", 3)
    assert "another value (9-5 → 10-6)" in str(op["reason"])
    # figures only added refine the fact: one lesson, UPDATEd
    op = _judged(existing, "What are your opening hours?", "9 to 5, and 10 to 2 on Saturdays.")
    assert (op["op"], op["id"]) == ("UPDATE", 3)


@pytest.mark.parametrize(
    "text",
    [
        "422: effective immediately, webhooks are signed with 'signing_key_id'",
        "The 'fax' field is ignored with immediate effect.",
        "Mit sofortiger Wirkung wird 'fax' abgelehnt.",
        "A partir de agora só aceitamos Pix ou cartão.",
        "Deixamos de aceitar cheques.",
        "Nie, od teraz tylko po rezerwacji online.",
        "Przestaliśmy przyjmować gotówkę.",
        "Nie obsługujemy już płatności czekiem.",
        "Emme enää. Lopetimme kotiinkuljetuksen syyskuussa.",
        "Kenttä 'fax' on poistettu, käytä 'email' sijaan.",
        "Tästä lähtien toimitus maksaa 7 euroa.",
    ],
)
def test_reversals_in_more_words_and_languages(text: str) -> None:
    assert states_reversal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Effective communication matters to us.",
        "Toimitus maksaa 5 euroa.",
        "Nie wiem, zapytam kierownika.",
        "A partir de amanhã o pedido sai do armazém.",
    ],
)
def test_words_near_those_state_no_reversal(text: str) -> None:
    assert not states_reversal(text)


def test_a_finnish_answer_opening_with_we_do_not_is_a_no() -> None:
    assert answers_reversed("Emme enää toimita kotiin.", "Kyllä, toimitamme kotiin.")


def test_a_state_of_one_masked_instance_reverses_nothing_the_tool_asks_for() -> None:
    """A state of one loan ("Loan ‹id› is no longer renewable") says that this loan's state
    changed, not what the tool asks for: the word naming the instance is not what the
    reversal is about."""
    old = "Observed: `renew_loan` failed with «Loan ‹id› cannot be renewed: it is reserved»."
    state = "Observed: `renew_loan` failed with «Loan ‹id› is no longer renewable: 3 renewals»."
    assert states_reversal(state) and not reverses(state, old)
    # a field the old lesson names, reversed, still is
    field = "Observed: `renew_loan` failed with «'loan_id' is no longer accepted; send 'loan'»."
    assert reverses(field, "Observed: `renew_loan` failed with «'loan_id' is required».")


def test_another_instance_of_the_same_kind_is_no_term_of_a_reversal() -> None:
    """ "Choose another room" names another instance of what the sentence's instance is: the
    word is the instance's kind, shared with an unrelated error about rooms, not what the
    reversal is about (a room that is full is not reversed by a guide who no longer leads
    tours of room 4)."""
    old = "Observed: `book_tour` failed with «The room is full»."
    new = (
        "Observed: `book_tour` failed with «The guide no longer leads room ‹id›; pick another "
        "room»."
    )
    assert states_reversal(new) and not reverses(new, old)
    spanish = (
        "Observed: `reservar` failed with «El guía ya no lleva la sala ‹id›; elija otra sala»."
    )
    assert not reverses(spanish, "Observed: `reservar` failed with «La sala está llena».")
    # the thing itself, reversed, still is
    assert reverses(
        "Observed: `book_tour` failed with «Rooms are no longer booked by name; send 'room_id'».",
        "Observed: `book_tour` failed with «Book the room by its name».",
    )


def test_a_function_word_is_no_subject_a_reversal_and_the_old_lesson_share() -> None:
    """Words such as "werden", "mit", "aan" are in every sentence of their languages: a
    reversal about something else shares them with any old lesson, and supersedes nothing by
    them."""
    old = "Observed: `listing` failed with «Feld 'farbe' muss mit Großbuchstaben angegeben werden»."
    new = "Observed: `listing` failed with «Rabattcodes werden nicht mehr akzeptiert»."
    assert "werden" not in reversal_terms(new)
    assert not reverses(new, old)


def test_a_compound_opened_by_the_old_lessons_word_is_about_it() -> None:
    """German, Dutch and Nordic write a thing and its kind as one word: "Textangaben" (text
    entries) speaks of the "Text" the old lesson asks for."""
    old = "Observed: `listing` failed with «Feld 'laufleistung' muss als Text übergeben werden»."
    new = "Observed: `listing` failed with «Textangaben sind nicht mehr zulässig»."
    assert reverses(new, old)
    # a short word opens no compound ("Tag" of "Tagesmiete")
    assert not reverses("Observed: «Tagesmieten gibt es nicht mehr»", "Observed: «Tag fehlt»")

"""The kept-figures rule of error templates (``digest.masking``, issue 24): the figures that
are the rule stay, what varies between occurrences is masked, and nothing that could be an
address, a phone number, a card or a secret is ever kept."""

from __future__ import annotations

import json

import pytest

from digest.fingerprint import tool_key
from digest.masking import error_template, figure_shape, kept_figures, mask_ids

KEPT = [
    ("403 Forbidden: refunds over 200 EUR need a manager", ["403", "200"]),
    ("HTTP 401: token rejected", ["401"]),
    ("Fehler 413: Datei überschreitet die maximale Größe von 20 MB", ["413", "20 MB"]),
    ("Quantity 12 exceeds the per-order limit of 10", ["10"]),
    ("Error: no more than 6 tickets per customer", ["6"]),
    ("expected 12 digits", ["12"]),
    ("as of v3 the field is required", ["v3"]),
    ("el plan permite como máximo 3 líneas", ["3"]),
    ("au maximum 2 bagages par passager", ["2"]),
    ("la nota può avere al massimo 30 caratteri", ["30"]),
    # a window before what it bounds, in words of several languages
    ("Refunds close 72 hours before departure (booking B-88812)", ["72"]),
    ("Stornierung nur bis 14 Tage vorher möglich", ["14"]),
    ("la modifica va fatta 2 giorni prima", ["2"]),
    # a limit named in the Nordic languages, Dutch, Finnish: its figure after or before it
    ("Lasten 61 kg överstiger gränsen på 40 kg", ["40 kg"]),
    ("vægten overstiger grænsen på 20 kg", ["20 kg"]),
    ("het bedrag overschrijdt de limiet van 500", ["500"]),
    ("paino ylittää 25 kg rajan", ["25 kg"]),
    # a bound's adjective and its verb in Czech, Polish, Swedish, German
    ("Objednávka zamítnuta: minimální částka je 300 Kč", ["300"]),
    ("Minimalna kwota zamówienia wynosi 50 zł", ["50"]),
    ("Lägsta belopp är 200 kr", ["200"]),
    ("Das Minimum ist 5 Stück", ["5"]),
    # the bound of a comparison an error prints, not the value before it
    ("Shard count too high (64 > 16)", ["16"]),
    ("disk usage 9120 >= 8000 MB", ["8000 MB"]),
    # an age rating a buyer's age is held against (the buyer's age is the instance)
    ("Sale refused: show S-44 is rated 18 and the visitor is 16", ["18"]),
]


@pytest.mark.parametrize(("error", "figures"), KEPT, ids=[k[0][:30] for k in KEPT])
def test_the_figures_that_are_the_rule_are_kept(error: str, figures: list[str]) -> None:
    assert kept_figures(error) == figures
    for figure in figures:
        assert figure.lower() in error_template(error)


MASKED = [
    "order 404 not found",  # an order numbered like a status
    "limit reached for 4412",  # an id after a cap word's preposition
    "Error: insufficient balance on gift card GC-5512-0098 (12.40 EUR available)",
    "Quantity 12 requested",
    "at least 123456 characters",  # too long to be a rule's figure
    "order 4412 was placed 3 days ago",  # a time past, not a window before something
]


@pytest.mark.parametrize("error", MASKED, ids=[m[:30] for m in MASKED])
def test_ids_amounts_and_long_runs_stay_masked(error: str) -> None:
    assert kept_figures(error) == []


SECRETS = [
    "call +34 600 123 456, up to 600 123 456",
    "card 4111 1111 1111 1111 over 4111 1111 1111 1111",
    "exceeds 555-1234 for bob@example.com",
    "+44 7700 900123 per day",
    "at most 4242.4242.4242.4242",
    "max 2025-06-01 at 10:30",
]


@pytest.mark.parametrize("text", SECRETS, ids=[s[:30] for s in SECRETS])
def test_no_phone_card_date_or_address_survives_beside_a_cap_word(text: str) -> None:
    masked = mask_ids(text)
    digits = [token for token in masked.split() if any(c.isdigit() for c in token)]
    assert digits == [], masked


def test_repeats_with_other_ids_keep_one_fingerprint_and_caps_do_not() -> None:
    a = tool_key("add_item", "Error: quantity 9 for order 4412 exceeds the maximum of 4")
    b = tool_key("add_item", "Error: quantity 7 for order 98 exceeds the maximum of 4")
    c = tool_key("add_item", "Error: quantity 7 for order 98 exceeds the maximum of 5")
    assert a == b != c


def test_a_figure_shape_tells_statuses_from_rule_figures() -> None:
    shape, statuses, figures = figure_shape("403 Forbidden: refunds over 200 EUR")
    assert (shape, statuses, figures) == ("# forbidden: refunds over # eur", ("403",), ("200",))


def test_a_number_grouped_by_spaces_is_one_instance() -> None:
    """French, German, Nordic and Slavic errors group thousands by spaces: "Mitarbeiter 81 002
    nicht gefunden" is the template of "Mitarbeiter 60013 nicht gefunden", not two numbers."""
    assert error_template("Fehler: Mitarbeiter 81 002 nicht gefunden") == error_template(
        "Fehler: Mitarbeiter 60013 nicht gefunden"
    )
    assert mask_ids("Employee 12 345 not found") == "Employee <id> not found"
    assert mask_ids("at most 6 per order") == "at most 6 per order"  # a rule's figure stays


def test_a_json_errors_message_is_read_before_its_diagnostics() -> None:
    """A service's JSON error whose inner diagnostics (the same for every error) sort before
    its message: the template reads the message first, so two errors are two keys however
    long the diagnostics."""
    inner = {"innererror": {"application": {"component": "SD", "service": "ORDERS_SRV"},
                            "resolution": "see note 1797736 " + "x" * 300}}  # fmt: skip

    def body(code: str, text: str) -> str:
        error = {"error": {"code": code, "message": {"lang": "en", "value": text}, **inner}}
        return "HTTP 400 " + json.dumps(error)

    one = body("V1/302", "Sold-to party 17100045 is not defined in sales area 1010")
    two = body("V1/392", "Material TG-1182 is not defined for sales org 1010")
    again = body("V1/302", "Sold-to party 17100099 is not defined in sales area 1010")
    assert tool_key("odata", one) != tool_key("odata", two)
    assert tool_key("odata", one) == tool_key("odata", again)


@pytest.mark.parametrize(
    ("error", "kept"),
    [
        ("予約できません：定員は10名までです（ご指定：12名）", ["10"]),
        ("VIPルームは6名様以上でのご利用となります（ご指定：4名）", ["6"]),
        ("最多可预订8人", ["8"]),
        ("최대 10명까지 예약 가능합니다", ["10"]),
        ("3日前までにキャンセルしてください", ["3"]),
        # an id, a date, the asker's own figure: no bound
        ("注文12345は見つかりません", []),
        ("2024年7月1日までに提出してください", []),
        ("ご指定：12名", []),
    ],
)
def test_a_bound_in_chinese_japanese_or_korean_is_the_rules_figure(
    error: str, kept: list[str]
) -> None:
    assert kept_figures(error) == kept


def test_two_japanese_caps_are_two_templates_and_one_cap_asked_twice_is_one() -> None:
    party = "予約できません：パーティールームの定員は10名までです（ご指定：12名）"
    assert error_template(party) != error_template(party.replace("10名まで", "8名まで"))
    assert error_template(party) == error_template(party.replace("12名）", "14名）"))

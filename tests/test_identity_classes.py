"""Identity rules generalised past their first examples (issue 24): each test names a class
of wording, not a benchmark case. Pure functions: no database, no worker."""

from __future__ import annotations

import pytest

from digest import facts
from digest.config import Settings
from digest.edit_content import content_statements, main_clause_first
from digest.edits import edit_rules, taught
from digest.reflect.policy import changes_a_figure, policy_skip_reason
from digest.reversal import reverses, states_reversal


@pytest.mark.parametrize(
    "text",
    [
        "weight_kg is rejected since <id>; weights must now be given in grams",  # masked version
        "the field is deprecated as of ‹date›",
        "Callers should now send postal_code",
        "We don't deliver on Sundays any more.",
        "No, da aprile il passaporto lo rilascia soltanto il servizio veterinario dell'ASL.",
        "Dal 1° luglio la consegna è solo su appuntamento.",
        "2024年7月1日の改定により、BTC の最小出金額は 0.0005 BTC です。",
    ],
)
def test_a_change_stated_in_other_words_is_a_reversal(text: str) -> None:
    assert states_reversal(text)


@pytest.mark.parametrize(
    "text",
    [
        "Do you have any more questions about it?",
        "Quantity 12 exceeds the limit of 10",
        "Siamo aperti da aprile a ottobre.",  # a season's span, not a change
    ],
)
def test_text_that_states_no_change_is_not_a_reversal(text: str) -> None:
    assert not states_reversal(text)


def test_a_masked_version_reversal_reverses_the_requirement_it_names() -> None:
    old = "`create_label` fails with «weight_kg is required»"
    new = "`create_label` fails with «weight_kg is rejected since ‹id›; send weight_g now»"
    assert reverses(new, old)


def test_a_contracted_no_flips_the_answers_stance() -> None:
    then = facts.fact("Are you open on Sundays?", "Yes, Sundays 10am to 4pm.")
    now = facts.fact("What are your Sunday opening hours?", "We're not open on Sundays.")
    assert now.stance == -1 and facts.reverses(now, then)


def test_an_edit_that_changes_a_figure_is_reflected_below_the_ratio_threshold() -> None:
    price = {"original": "Delivery costs 4.99 EUR.", "final": "Delivery costs 6.99 EUR."}
    typo = {"original": "Delivery costs 4.99 EUR.", "final": "Delivery cost 4.99 EUR."}
    assert changes_a_figure(price) and not changes_a_figure(typo)
    settings = Settings()
    assert policy_skip_reason("operator_edit", price, 0.02, settings) is None
    assert policy_skip_reason("operator_edit", typo, 0.02, settings) is not None


def test_each_sentence_an_operator_adds_is_its_own_content_rule() -> None:
    rules = taught(
        "You can return it whenever you like.",
        "You can return it within 30 days of delivery. Sale items cannot be refunded, only "
        "exchanged.",
    )
    said = [r.said for r in rules if r.family == "content"]
    assert said == [
        "You can return it within 30 days of delivery.",
        "Sale items cannot be refunded, only exchanged.",
    ]
    # a sentence that adds too little to state a rule goes with its neighbour
    assert content_statements(
        "Your refund will be in your account tomorrow, guaranteed.",
        "Opened items carry a 10% restocking fee. Keep the receipt.",
    ) == ["Opened items carry a 10% restocking fee. Keep the receipt."]
    # what was done for this customer is this case's news, not a rule beside one
    assert content_statements(
        "We will definitely refund you by Friday.",
        "We have passed your claim to the refunds team. Refunds for damaged items need a photo "
        "of the damage.",
    ) == ["Refunds for damaged items need a photo of the damage."]
    # two clauses of one sentence that each state something are two rules
    assert content_statements(
        "OMG yes we do gift wrap!!!",
        "Yes, we offer gift wrapping for 3 GBP per item, and gift messages can be up to 200 "
        "characters.",
    ) == [
        "Yes, we offer gift wrapping for 3 GBP per item.",
        "Gift messages can be up to 200 characters.",
    ]


def test_an_apology_or_a_thanks_the_operator_adds_is_tone_not_content() -> None:
    rules = taught(
        "Your package is late.",
        "I'm sorry your order 41788 is late. Thanks for asking. Parcels that are lost in "
        "transit are replaced free of charge.",
    )
    assert [r.said for r in rules if r.family == "content"] == [
        "Parcels that are lost in transit are replaced free of charge."
    ]


def test_a_promise_taken_out_is_its_own_rule_whatever_else_the_final_commits_to() -> None:
    rules = taught(
        "Great news! Your order is guaranteed to arrive by tomorrow, 100% promised!",
        "Your order left our warehouse today; the carrier estimates delivery in 2 to 3 days.",
    )
    assert [r.names for r in rules if r.family == "promise"] == [("removed-promise",)]


def test_a_conditional_offer_opens_with_what_is_offered() -> None:
    assert (
        main_clause_first("If they don't fit, you can exchange them free of charge within 30 days.")
        == "You can exchange them free of charge within 30 days if they don't fit."
    )
    assert main_clause_first("Sale items are final.") == "Sale items are final."


@pytest.mark.parametrize(
    ("said", "rule"),
    [
        ("Please note: frames are glazed in 10 working days.",
         "Frames are glazed in 10 working days."),
        ("Bitte beachten Sie: Rahmen werden in 10 Werktagen verglast.",
         "Rahmen werden in 10 Werktagen verglast."),
        ("Tenga en cuenta que los marcos se acristalan en 10 días hábiles.",
         "Los marcos se acristalan en 10 días hábiles."),
        # the lead-in and the condition both come off the front
        ("Please note that if the glass cracks, we replace it once for free.",
         "We replace it once for free if the glass cracks."),
        # too little would be left: the sentence stays
        ("Please note: see above.", "Please note: see above."),
    ],
)  # fmt: skip
def test_a_content_rule_opens_with_what_it_says_not_with_please_note(said: str, rule: str) -> None:
    assert main_clause_first(said) == rule


def test_content_rules_never_crowd_out_the_promise_and_tone_rules() -> None:
    rules = taught(
        "Hi!!! It will arrive by Friday, guaranteed!!!",
        "Hello. Parcels go by DPD from Leeds. Weekend orders are packed on Monday morning. "
        "Furniture needs two people at the door.",
    )
    assert len(rules) == 3
    assert [r.family for r in rules] == ["content", "promise", "tone"]


def test_greetings_and_sign_offs_in_other_languages_are_tone() -> None:
    rules = edit_rules(
        "Hallo! Ihr Paket ist unterwegs!",
        "Guten Tag, Ihr Paket ist unterwegs.\nMit freundlichen Grüßen\nIhr Kundenservice",
    )
    assert "greeting-guten-tag" in rules and "added-sign-off" in rules
    content = [r for r in taught("Hallo! Ihr Paket ist unterwegs!",
                                 "Guten Tag, Ihr Paket ist unterwegs.\nMit freundlichen Grüßen\n"
                                 "Ihr Kundenservice") if r.family == "content"]  # fmt: skip
    assert content == []


def test_a_removed_promise_explains_the_shortening_it_made() -> None:
    rules = taught("We will definitely deliver it by Friday, I promise. Order 5512.", "Order 5512.")
    assert [r.family for r in rules] == ["promise"]


@pytest.mark.parametrize(
    ("new", "old", "same"),
    [
        ("No order found with id #‹id›", "Order #‹id› not found", True),
        ("Quantity ‹id› exceeds the per-order limit of ‹id›", "Quantity exceeds limit", True),
        ("field 'sku' is required", "field 'sku' is not allowed", False),  # negated
        ("field 'amount_cents' is required", "field 'amount' is required", False),
        ("Payment method ‹id› not found", "Order ‹id› not found", False),
        ("Coupon ‹q› has expired", "Coupon ‹q› cannot be combined with other discounts", False),
    ],
)
def test_an_error_in_other_words_is_the_same_error(new: str, old: str, same: bool) -> None:
    assert facts.rewords(new, old) is same

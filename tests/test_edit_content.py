"""What an operator's edit teaches, read from its words (``digest.edit_content``,
``digest.edits.taught``, ``digest.model.offline_edit_rules.same_content``): the content the
final adds as statements of its own, a claim taken out as its own rule, promises and hedges
in the languages the product screens, and content rules that are one fact in other words."""

from __future__ import annotations

from digest.edit_assign import assign
from digest.edit_content import dropped_claims
from digest.edits import taught
from digest.fingerprint import edit_keys
from digest.model.offline_edit_rules import same_content
from digest.reply_text import plain, sentences


def _families(original: str, final: str) -> list[str]:
    return [rule.family for rule in taught(original, final)]


def test_a_corrected_figure_is_a_statement_of_its_own() -> None:
    rules = taught(
        "Late fees are 10 EUR.",
        "Late fees are 15 EUR. The first late payment of each year is never charged.",
    )
    said = [r.said for r in rules if r.family == "content"]
    assert said == [
        "Late fees are 15 EUR.",
        "The first late payment of each year is never charged.",
    ]


def test_the_draft_reworded_beside_a_statement_is_no_rule() -> None:
    rules = taught(
        "Yeah the invoice is attached lol",
        "The invoice is attached here. Invoices are payable within 14 days of issue.",
    )
    assert [r.family for r in rules] == ["content"]
    assert rules[0].said == "Invoices are payable within 14 days of issue."


def test_a_claim_taken_out_beside_new_content_is_a_rule_of_its_own() -> None:
    original = "Your visit is on Monday at 9:00. Parking at the clinic is always free."
    final = "Your visit is on Monday at 9:00. Please arrive 15 minutes early to fill in the forms."
    rules = taught(original, final)
    assert [(r.family, r.names) for r in rules] == [
        ("content", ("said",)),
        ("content", ("left-out",)),
    ]
    assert rules[1].unsaid == "Parking at the clinic is always free."
    assert rules[0].unsaid == ""  # the claim is not the statement's draft
    assert len(set(edit_keys(original, final))) == 2


def test_a_draft_rewritten_whole_takes_out_no_claim() -> None:
    original = "All our lamps are handmade in Italy by one family."
    final = "Thanks for waiting; a colleague replies within one working day."
    assert dropped_claims(original, final) == []
    assert _families(original, final) == ["content"]


def test_what_the_final_corrects_is_no_claim_taken_out() -> None:
    # "zurückschicken" and "zurücksenden": the draft's sentence corrected, not dropped
    assert (
        dropped_claims(
            "Klar kannst du das zurückschicken.",
            "Selbstverständlich können Sie den Artikel innerhalb von 30 Tagen zurücksenden.",
        )
        == []
    )


def test_promises_and_hedges_in_other_languages() -> None:
    assert _families("Su pedido llegará mañana, garantizado. El número es 5521.",
                     "El número es 5521.") == ["promise"]  # fmt: skip
    rules = taught(
        "Der Techniker kommt ganz sicher morgen.",
        "Der Techniker meldet sich so bald wie möglich.",
    )
    assert [r.family for r in rules] == ["promise"]
    assert rules[0].said == "Der Techniker meldet sich so bald wie möglich."


def test_a_greeting_with_no_punctuation_keeps_the_sentence() -> None:
    assert plain("Hey Tom 😊 your order ships today") == "Your order ships today"
    assert plain("Hi Sarah thanks for the order") == "Thanks for the order"
    assert plain("Good evening Mrs Smith, the table is ready") == "The table is ready"


def _content(original: str, final: str, situation: str) -> dict[str, object]:
    rule = taught(original, final)[0]
    assert rule.family == "content"
    key = edit_keys(original, final)[0]
    return {"fingerprint": key, "situation": situation, "correction": f"Say «{rule.said}»."}


def test_one_fact_in_other_words_is_one_content_rule_two_facts_stay_two() -> None:
    unload = _content(
        "Your crate arrives on Tuesday.",
        "Your crate arrives on Tuesday. The courier can only unload at street level, so please "
        "have a forklift or hand truck ready.",
        "crate delivery",
    )
    again = _content(
        "We booked the delivery of your crates.",
        "We booked the delivery of your crates. Our couriers unload at the kerbside only; you "
        "will need your own hand truck to move them inside.",
        "warehouse delivery",
    )
    other = _content(
        "Your crate arrives on Tuesday.",
        "Your crate arrives on Tuesday. Crates over 80 kg need two people at the gate to sign.",
        "crate delivery",
    )
    assert same_content(again, unload)
    assert not same_content(other, unload)


def test_the_polite_you_is_a_tone_rule_not_content() -> None:
    assert [(r.family, r.names) for r in taught(
        "Du kannst das Paket morgen abholen.", "Sie können das Paket morgen abholen."
    )] == [("tone", ("formal-address",))]  # fmt: skip
    assert [(r.family, r.names) for r in taught(
        "Je kunt je pakket morgen ophalen.", "U kunt uw pakket morgen ophalen."
    )] == [("tone", ("formal-address",))]  # fmt: skip
    assert [(r.family, r.names) for r in taught(
        "Vous pouvez passer en agence demain.", "Tu peux passer en agence demain."
    )] == [("tone", ("informal-address",))]  # fmt: skip


def test_word_forms_are_difflib_s_ratio_however_it_is_reached() -> None:
    """``_drafted`` turns down most pairs by their lengths and letters before difflib runs:
    the answers are those of difflib's ratio for every pair."""
    import difflib
    import random

    from digest.edit_content import _WORD_FORM_LETTERS, _WORD_FORM_RATIO, _drafted

    def by_ratio(word: str, drafted: set[str]) -> bool:
        if word in drafted:
            return True
        for other in drafted:
            short, long_ = sorted((word, other), key=len)
            if len(short) < _WORD_FORM_LETTERS or short.isdigit():
                continue
            if long_.startswith(short):
                return True
            ratio = difflib.SequenceMatcher(a=word, b=other, autojunk=False).ratio()
            if len(short) > _WORD_FORM_LETTERS and 100 * ratio >= _WORD_FORM_RATIO:
                return True
        return False

    rng = random.Random(24)
    stems = ["invoice", "zurück", "richiam", "refund", "livraison", "entrega", "paketti", "ab"]
    words = [
        s + "".join(rng.choice("aeinrst") for _ in range(rng.randint(0, 6)))
        for s in stems
        for _ in range(12)
    ]
    words += ["".join(rng.choice("abcdeé") for _ in range(rng.randint(1, 14))) for _ in range(200)]
    agreed = 0
    for word in words:
        alike = [w for w in words if w[:3] == word[:3] and w != word]
        drafted = set(rng.sample(words, 2) + rng.sample(alike, min(2, len(alike))))
        assert _drafted(word, drafted) == by_ratio(word, drafted), (word, drafted)
        agreed += by_ratio(word, drafted)
    assert 30 < agreed < len(words) - 30  # both answers were met


def test_the_rules_of_an_edit_are_a_new_list_each_time() -> None:
    original, final = "Hi!! refund tomorrow", "Hello. Refunds take five business days."
    first = taught(original, final)
    first.clear()  # a caller's list is its own
    assert taught(original, final) == taught(original + "", final) != []


def test_a_claim_taken_out_with_an_exclamation_quotes_the_claim_alone() -> None:
    # the exclamation before the claim went with the tone's rule; the content rule quotes
    # what the draft stated, so two edits taking out two claims this way are two rules
    kept = {"sv": "Din offert finns bifogad.", "en": "The brochure is attached."}
    for original, final, claim in (
        (
            "Amazing!!! Plus every order gets free installation!!! Your quote is attached.",
            "Your quote is attached.",
            "Plus every order gets free installation.",
        ),
        (
            f"Fantastiskt!! Vi matchar alla konkurrenters priser! {kept['sv']}",
            kept["sv"],
            "Vi matchar alla konkurrenters priser.",
        ),
        (
            f"Wow! Shipping is free to every country! {kept['en']}",
            kept["en"],
            "Shipping is free to every country.",
        ),
    ):
        rules = taught(original, final)
        assert [(r.family, r.names) for r in rules] == [
            ("content", ("left-out",)),
            ("tone", ("removed-exclamation",)),
        ], original
        assert rules[0].unsaid == claim


def test_a_tone_lesson_quoting_the_draft_is_given_the_tone_rule() -> None:
    draft = (
        "Hello and thank you ever so much for your lovely message, it made our day! "
        "Every candle is poured by hand in our studio. Your order leaves on Friday."
    )
    final = "Thanks for your message. Your order leaves on Friday."
    rules = taught(draft, final)
    assert {rule.family for rule in rules} == {"content", "tone"}
    quoted = f"Drafting a reply like: {draft}"
    tone = f"{quoted} Keep it brief: one short thank-you line."
    content = f"{quoted} Do not claim the candles are poured by hand."
    for texts in ([tone, content], [content, tone]):
        families = [rules[i].family for i in assign(texts, rules)]
        assert families == ["tone" if t is tone else "content" for t in texts], families


def test_a_short_words_period_before_a_figure_or_a_lower_case_word_ends_no_sentence() -> None:
    assert sentences("Abholung ca. 9 Uhr. Danke!") == ["Abholung ca. 9 Uhr.", "Danke!"]
    assert sentences("Table no. 4 is yours. Parking approx. 200 m away.") == [
        "Table no. 4 is yours.", "Parking approx. 200 m away.",
    ]  # fmt: skip
    assert sentences("We close at 6 p.m. today. Come early") == [
        "We close at 6 p.m. today.", "Come early",
    ]  # fmt: skip
    # a sentence still ends before a capital, after "!" or "?", and after a longer word
    assert sentences("Open till 6 p.m. Tomorrow too.") == ["Open till 6 p.m.", "Tomorrow too."]
    assert sentences("Is it free? 3 of us come.") == ["Is it free?", "3 of us come."]
    assert sentences("We have 3 cabins. 2 are free.") == ["We have 3 cabins.", "2 are free."]
    # the rule an edit teaches keeps the figure the abbreviation stands before
    [rule] = taught("Ihr Termin ist bestätigt.", "Ihr Termin ist bestätigt. Einlass ab ca. 18 Uhr.")
    assert rule.said == "Einlass ab ca. 18 Uhr."


def test_a_hedge_in_a_removed_promises_place_is_the_promise_rule_beside_new_content() -> None:
    """An edit that takes a promise out, hedges in its place and corrects a figure teaches
    the promise rule (with the hedge as what to say instead) and the figure as content; the
    hedge is no content rule of its own."""
    rules = taught(
        "I guarantee your visa will be approved this week. The application fee is 60 EUR.",
        "We will let you know as soon as the consulate decides. The application fee is 80 EUR.",
    )
    assert [(r.family, r.said) for r in rules] == [
        ("content", "The application fee is 80 EUR."),
        ("promise", "We will let you know as soon as the consulate decides."),
    ]


def test_an_apology_taken_out_in_another_language_is_the_tones_rule_not_content() -> None:
    """ "Przepraszamy" (Polish), "Omlouváme se" (Czech), "Pahoittelemme" (Finnish) are
    apologies: taken out beside a corrected figure they are the tone's rule, and the figure
    the content's; no "leave out" rule quotes the apology."""
    for apology in ("Bardzo przepraszamy za opóźnienie!", "Omlouváme se za zpoždění!"):
        rules = taught(f"{apology} Dostawa trwa 2 dni.", "Dostawa trwa 4 dni.")
        assert [r.family for r in rules] == ["content", "tone"], rules
        assert rules[0].said == "Dostawa trwa 4 dni." and "removed-apology" in rules[1].names


def test_a_casual_address_taken_out_with_the_tone_is_no_claim_left_out() -> None:
    """ "Sure thing, mate!" in a casual draft rewritten formally is the tone's, not a claim the
    operator left out; the fact the final adds is the content."""
    rules = taught(
        "Sure thing, mate! Booking sorted 👍",
        "Dear Ms Berg, your booking is confirmed. Check-in opens at 15:00 on the day.",
    )
    assert [r.family for r in rules] == ["content", "tone"], rules
    assert not any("left-out" in r.names for r in rules)


def test_a_clause_that_points_back_says_more_of_the_one_before() -> None:
    """ ", and it …" continues the clause before (one rule); two clauses that each state their
    own fact after ", and" are two."""
    from digest.edit_content import content_statements

    one = content_statements(
        "Your table is booked.",
        "Your table is booked. A card guarantee of 20 EUR per guest is taken, and it is "
        "released after your visit.",
    )
    assert len(one) == 1 and "released after your visit" in one[0]
    two = content_statements(
        "Your room is ready.",
        "Your room is ready. The sauna opens at 4 pm, and towels are handed out at the pool desk.",
    )
    assert len(two) == 2

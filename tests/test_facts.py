"""digest.facts: two owner answers are one fact when their questions ask about one subject
(the thing and the attribute), whatever the wording; a name or a term that differs on both
sides is another entity of the same kind, so another fact."""

from __future__ import annotations

import pytest

from digest.facts import (
    Relation,
    agree,
    fact,
    figure_replaced,
    flipped_on_old_answer,
    names,
    overrides,
    relation,
    reverses,
    same_fact,
    stated_change,
    terms,
)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the words people use for one thing meet: deliver/delivery/arrive, pay/cost/free
        ("Do we dispatch orders on Saturdays?", "Is Saturday shipping possible?"),
        ("Is gift wrapping free?", "Do you charge for gift wrapping?"),
        ("How much does the express courier cost?", "What is the price of express delivery?"),
        ("Do you offer a military discount?", "Is there a discount for the military?"),
        ("Liefern Sie auch an Feiertagen?", "Gibt es eine Lieferung an Feiertagen?"),
        ("¿Hacen envíos a Canarias?", "¿Se puede enviar a Canarias?"),
        # a verb and its noun, a doubled consonant, "when" as "how long", modal scaffolding
        ("Can I cancel my subscription?", "Is subscription cancellation possible?"),
        ("Do you do gift wrapping?", "Can you gift-wrap it?"),
        ("How long does a refund take?", "When do I get my money back?"),
        ("Can I bring my dog?", "Are dogs allowed?"),
        # the hours something runs to, a concept written with hyphens, "now" as scaffolding
        ("Until what time can I collect my order?", "What are the click-and-collect hours now?"),
        ("How late is the shop open?", "What are the shop's opening hours?"),
    ],
)
def test_one_subject_asked_in_other_words_is_the_same(old: str, new: str) -> None:
    assert relation(fact(new, "Yes."), fact(old, "Yes.")) is Relation.SAME


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # another entity of the same kind: a name, a number, a size, a model
        ("Do you ship to Portugal?", "Do you ship to Spain?"),
        ("When does the Bristol shop open?", "When does the Bath shop open?"),
        ("Is the linen shirt in size S in stock?", "Is the linen shirt in size XL in stock?"),
        ("What warranty has the Nimbus kettle?", "What warranty has the Nimbus Max kettle?"),
        ("Can I return items after 14 days?", "Can I return items after 60 days?"),
        # a differing term on both sides: the same attribute of another thing
        ("Do you offer a discount for teachers?", "Do you offer a discount for nurses?"),
        ("Does the lentil soup contain gluten?", "Does the beef stew contain gluten?"),
        # the same thing, another attribute
        ("Is shipping free?", "Are returns free?"),
    ],
)
def test_another_entity_or_attribute_is_another_fact(old: str, new: str) -> None:
    assert relation(fact(new, "Yes."), fact(old, "Yes.")) is Relation.DISTINCT


def test_a_narrower_question_is_the_same_fact_only_when_the_answers_agree() -> None:
    old = fact("Do you deliver on Sundays?", "No, we deliver Monday to Saturday.")
    agreeing = fact("Will a parcel come on Sunday?", "No - deliveries are Monday to Saturday.")
    other = fact("Will a parcel come on Sunday?", "Yes, by courier for €9.")
    assert relation(agreeing, old) is Relation.NARROWER
    assert agree(agreeing, old) and same_fact(agreeing, old)
    assert not same_fact(other, old)
    military = fact("Do you offer a military discount?", "Yes, 10% with a service card.")
    personnel = fact("Is there a discount for military personnel?", "Yes: 10% with a service card.")
    assert same_fact(personnel, military)


def test_a_question_and_its_answer_are_read_for_their_content_terms() -> None:
    assert terms("Do customers pay for the deliveries?") == {"cost", "deliver"}
    assert terms("Are returns free?") == {"return", "cost"}
    # capitals mark names in English, not in German, where every noun has one
    assert names("Do you ship to New Zealand?") == {"new", "zealand"}
    assert names("Liefern Sie an Sonntagen nach Österreich?") == set()
    # German told by its function words, whichever a question uses
    assert names("Bis zu welchem Gewicht nehmt ihr Koffer mit?") == set()
    assert names("Wann macht euer Laden morgens auf?") == set()
    assert names("Can I bring a hat to the Opera House?") == {"opera", "hous"}
    assert names("Is the jacket in size M?") == {"m"}
    assert names("Can order 1042 still be changed?") == {"1042"}
    # coming without an appointment, as a noun or a verb; a walk somewhere is no visit
    assert "appointment" in terms("Can I just walk in for a beard trim?")
    assert "appointment" in terms("Do you take drop-ins on Sundays?")
    assert "appointment" not in terms("Can we walk in the botanical garden with a dog?")


@pytest.mark.parametrize(
    ("old", "new", "reversed_"),
    [
        # a yes to "free?" is a no to "pay?": the stance flips against the question's sense
        (
            ("Is delivery free?", "Yes, on every order."),
            ("Do customers pay for delivery?", "Since June they do: €3.50 per order."),
            True,
        ),
        (
            ("Is delivery free?", "Yes, on every order."),
            ("Do customers pay for delivery?", "No, it is still free on every order."),
            False,
        ),
        # closed is not open: a yes to "closed?" then a yes to "open?" flips
        (
            ("Are you closed on bank holidays?", "Yes, on all of them."),
            ("Do you open on bank holidays?", "Yes: since this year from 10 to 16."),
            True,
        ),
        # the answer says what held no longer does
        (
            ("Do you deliver to the islands?", "Yes, in 5 days."),
            ("Is island delivery available?", "We no longer deliver to the islands."),
            True,
        ),
        # a changed detail without a reversal is not one (an UPDATE of the fact)
        (
            ("Do you deliver to the islands?", "Yes, in 5 days."),
            ("Is island delivery available?", "Yes, in 4 to 6 days."),
            False,
        ),
    ],
)
def test_an_answer_about_the_same_subject_reverses_the_old_one_or_not(
    old: tuple[str, str], new: tuple[str, str], reversed_: bool
) -> None:
    then, now = fact(*old), fact(*new)
    assert same_fact(now, then)
    assert reverses(now, then) is reversed_


@pytest.mark.parametrize(
    ("old", "new", "superseded"),
    [
        # a broader question whose answer says what both ask about changed: it overrides
        (
            ("How late can I pick up my parcel at the counter?", "The counter is open until 5pm."),
            ("What are the collection times now?", "We changed it: collection runs until 7pm."),
            True,
        ),
        (
            ("Can sale items be returned?", "No, sale items are final sale."),
            ("What is your returns policy now?", "All items, sale items too, can now be returned."),
            True,
        ),
        # the change names the old answer's own figure, on a term both questions share
        (
            ("What time does the bakery open?", "We open at 7am every day."),
            ("When do you open in the morning now?", "From 1 March we open at 8am instead of 7am."),
            True,
        ),
        # a narrower question answered with no change stated, or a change of the narrower
        # case itself: an exception, the broader rule stays
        (
            ("Do you deliver?", "Yes, Monday to Saturday."),
            ("Do you deliver on Sundays?", "Not any more."),
            False,
        ),
        (
            ("Is parking free?", "Yes, in our car park."),
            ("Is parking free on Sundays?", "No longer: since May Sunday parking costs £2."),
            False,
        ),
        # another entity stays another fact, whatever changed
        (
            ("Do you ship to Finland?", "Yes, in 5 days."),
            ("Do you ship to Norway?", "No, we no longer ship to Norway."),
            False,
        ),
        (
            ("Do you offer gift wrapping?", "Yes, for €2."),
            ("Do you sell gift cards?", "No longer: gift cards were discontinued in May."),
            False,
        ),
    ],
)
def test_a_narrower_or_broader_answer_overrides_only_when_it_says_what_both_ask_changed(
    old: tuple[str, str], new: tuple[str, str], superseded: bool
) -> None:
    assert overrides(fact(*new), fact(*old)) is superseded


def test_an_answer_opening_with_a_bare_no_longer_reverses_its_question() -> None:
    old = fact("¿Hacen envíos a domicilio?", "Sí, enviamos a toda la ciudad por 3 €.")
    new = fact("¿Todavía hacen entregas a domicilio?", "Ya no: desde enero solo recogida.")
    assert relation(new, old) is Relation.SAME and reverses(new, old)
    # a bare opening that goes on to say what did not change reverses nothing else
    kept = fact("Do you deliver to the islands?", "Yes, in 4 to 6 days.")
    assert not reverses(kept, fact("Do you deliver to the islands?", "Yes, in 5 days."))


def test_another_value_is_a_change_and_figures_only_added_a_refinement() -> None:
    old = fact("What are your opening hours?", "We are open 9 to 5.")
    asked_now = fact("What are the opening hours now?", "10 to 6, Monday to Saturday.")
    assert relation(asked_now, old) is Relation.SAME and reverses(asked_now, old)
    # asked in other words, not for now: another value where the old one gave one still
    # says the old one no longer holds
    replaced = fact("When are you open?", "10 to 6, Monday to Saturday.")
    assert figure_replaced(replaced, old) and reverses(replaced, old)
    refined = fact("When are you open?", "9 to 5, and 10 to 2 on Saturdays.")
    assert not figure_replaced(refined, old) and not reverses(refined, old)
    # a single value given again as a range around it is made more precise, not replaced
    days = fact("Do you deliver to the islands?", "Yes, in 5 days.")
    assert not figure_replaced(fact("Do you deliver to the islands?", "In 4 to 6 days."), days)
    assert figure_replaced(fact("Do you deliver to the islands?", "In 7 to 9 days."), days)
    # a narrower question asked for now keeps the broader rule: an exception
    sundays = fact("What are the opening hours on Sundays now?", "11 to 4.")
    assert not overrides(sundays, old)


def test_a_fee_stated_again_with_another_figure_reverses_it() -> None:
    old = fact("How much is a late checkout?", "A late checkout until 1 pm costs $20.")
    new = fact("What do you charge for a late checkout?", "Until 1 pm it is $35 per room.")
    assert relation(new, old) is Relation.SAME and reverses(new, old)
    # the same figures, reworded: no change
    same = fact("What do you charge for a late checkout?", "It is $20 until 1 pm.")
    assert not reverses(same, old)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            ("Aceitam cheque?", "Sim, aceitamos cheque até R$ 500."),
            ("Ainda dá para pagar com cheque?", "A partir de agora só aceitamos cartão."),
        ),
        (
            ("Onko teillä kotiinkuljetusta?", "Kyllä, kotiinkuljetus maksaa 6 euroa."),
            ("Toimitatteko vielä kotiin?", "Emme enää. Lopetimme kotiinkuljetuksen."),
        ),
    ],
)
def test_a_change_stated_in_an_answer_to_the_same_subject_reverses_it(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    before, after = fact(*old), fact(*new)
    assert relation(after, before) is not Relation.DISTINCT
    assert reverses(after, before) or overrides(after, before)


def test_a_stated_change_that_says_what_the_old_answer_said_changes_nothing() -> None:
    old = fact("Do you deliver on Sundays?", "No, we deliver Monday to Saturday.")
    again = fact("Is Sunday delivery possible?", "No, from now on as before: Monday to Saturday.")
    assert not stated_change(again, old)


def test_a_no_on_what_the_old_answer_said_answers_the_old_question_in_other_words() -> None:
    old = fact("Czy można wejść bez zapisów?", "Tak, przyjmujemy bez rezerwacji, pon.-sob.")
    new = fact("Czy obsługujecie klientów bez wizyty?", "Nie, od teraz tylko po rezerwacji.")
    assert relation(new, old) is Relation.DISTINCT
    assert flipped_on_old_answer(new, old) and overrides(new, old)
    # a change stated only on what both questions share names no fact of the old answer's
    cards = fact("Do you sell gift cards?", "Yes, gift cards from 25 dollars.")
    wrapping = fact("Do you still offer gift wrapping?", "No, we no longer wrap gifts.")
    assert not flipped_on_old_answer(wrapping, cards) and not overrides(wrapping, cards)
    # two cities' fees stay two facts whatever the new one says
    helsinki = fact("Mikä on toimitusmaksu Helsinkiin?", "Toimitus Helsinkiin maksaa 5 euroa.")
    espoo = fact("Mikä on toimitusmaksu Espooseen?", "Tästä lähtien toimitus Espooseen 7 euroa.")
    assert relation(espoo, helsinki) is Relation.DISTINCT and not overrides(espoo, helsinki)


@pytest.mark.parametrize(
    ("one", "other"),
    [("chèque", "chèques"), ("banque", "banques"), ("league", "leagues"), ("cheque", "cheques")],
)
def test_a_singular_and_plural_after_qu_or_gu_meet(one: str, other: str) -> None:
    """The plural's "es" leaves "chèqu": the singular's final e after that u goes too."""
    assert terms(one) == terms(other) != set()


def test_a_weekday_is_no_name_but_two_weekdays_are_two_subjects() -> None:
    from digest.facts import days_apart

    assert names("I came in last Tuesday, is my coat ready?") == set()
    assert days_apart(
        fact("Do you open the workshop on Saturdays?", "Yes, 9 to 12."),
        fact("Do you open the workshop on Sundays?", "No."),
    )
    assert not days_apart(
        fact("I came in last Tuesday, is my coat ready?", "Yes, coats take 5 days."),
        fact("How long does a coat repair take?", "Coats take 5 days."),
    )

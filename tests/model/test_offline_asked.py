"""An owner's reversal asked in other words (issue 24, class D; ``digest.model.offline_asked``):
the offline judge supersedes the old fact when the two question/answer pairs speak of one
thing (a thing both questions name, or one question's thing in the other's answer), nothing
reads them apart, and the new answer reverses the old one; a change that names a thing only
the new question asks about, one word swapped in one question frame, or a narrower case stays
a fact of its own. The negation split from its "any more" ("we don't take that kind of work
any more") and Italian "non … più" around a verb are reversals; a quantity ("any more rooms")
or a comparison ("any more than", "più di") is not."""

from __future__ import annotations

import json

import pytest

from digest.facts import fact as owner_fact_of
from digest.facts import narrows
from digest.identity.meaning import READS_ALIKE
from digest.model.offline_asked import answered_apart, only_when_shared
from digest.model.offline_reconcile import reconcile
from digest.reflect.ask import prompt_blocks
from digest.reflect.readings import meaning_of
from digest.reversal import states_reversal
from tests.reflect.helpers import offline_judged, owner_fact, owner_pair


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (("Do you repair bicycles?", "Yes, any make and model."),
         ("Can you fix the gears on my old bicycle?",
          "Sorry, we don't do that kind of job any more since our mechanic left.")),
        (("Is there a play area for kids?", "Yes, a small play corner with toys."),
         ("Can children play somewhere while we eat?",
          "Not anymore, we removed it when we added tables.")),
        (("Fate corsi di cucina?", "Sì, ogni martedì sera."),
         ("Posso prenotare un corso di cucina per mia madre?",
          "Purtroppo non li organizziamo più da settembre.")),
        (("Wie viel kostet die Miete für ein Kajak?", "25 Euro am Tag."),
         ("Was zahle ich, um ein Kajak einen ganzen Tag zu haben?", "30 Euro am Tag.")),
        # the asker's own figure is an instance of the new rule, not a thing asked about;
        # "in Ordnung" (all right) names no case
        (("Wie schwer darf ein Rucksack sein?", "Ein Rucksack darf höchstens 8 kg wiegen."),
         ("Darf mein Rucksack 9 kg wiegen?",
          "Ja, seit April liegt die Grenze bei 10 kg, 9 kg sind also in Ordnung.")),
    ],
)  # fmt: skip
def test_a_reversal_asked_in_other_words_supersedes(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    op = offline_judged([owner_fact(4, *old)], *new)
    assert (op["op"], op.get("id")) == ("DELETE", 4), op
    assert "reversed" in str(op.get("reason")), op


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the change names the new question's own thing (vouchers, renting), not the old one's
        (("Do you offer gift wrapping?", "Yes, free of charge."),
         ("Do you sell gift vouchers?", "No longer: we stopped selling vouchers in May.")),
        (("Do you repair bicycles?", "Yes, any make and model."),
         ("Do you still rent out bicycles for the weekend?",
          "No, we stopped renting them last year.")),
        # one word swapped in one question frame
        (("Do you repair bicycles?", "Yes, any make and model."),
         ("Do you repair scooters?", "Not any more.")),
        # another thing altogether, said of "that"
        (("Do you have vegan dishes?", "Yes, several every day."),
         ("Do you still do the Sunday brunch?", "No, we stopped doing that in spring.")),
    ],
)  # fmt: skip
def test_a_change_about_another_thing_is_added(old: tuple[str, str], new: tuple[str, str]) -> None:
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] == "ADD", op


@pytest.mark.parametrize(
    "text",
    [
        "Sorry, we don't take that kind of work any more since our watchmaker retired.",
        "We do not offer it any longer.",
        "We can't do that any more, sorry.",
        "Purtroppo non lo facciamo più da gennaio.",
        "Nej, det har vi slutat med.",
        "Nei, det har vi sluttet med.",
    ],
)
def test_a_negation_split_from_its_any_more_is_a_reversal(text: str) -> None:
    assert states_reversal(text)


@pytest.mark.parametrize(
    "text",
    [
        "I do not want any more coffee.",
        "We don't have any more rooms left tonight.",
        "It does not cost any more than 5 euros.",
        "Non accettiamo più di 10 persone per tavolo.",
    ],
)
def test_a_quantity_or_a_comparison_is_not(text: str) -> None:
    assert not states_reversal(text)


def test_a_yes_beside_an_old_no_about_a_related_thing_changes_nothing() -> None:
    # the demo shop's facts: no refund for an unused gift card; free size exchanges, sale
    # items "exchanged but not refunded" (the stance flips, the things cross, nothing changed)
    old = (
        "Can a customer get a refund for a gift card they never used?",
        "No. Gift cards are non-refundable and cannot be exchanged for cash. They are valid"
        " for 2 years from purchase.",
    )
    new = (
        "Do we offer free exchanges for a different size?",
        "Yes, size exchanges are free within 30 days. Sale items can be exchanged but not"
        " refunded.",
    )
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] == "ADD", op


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # "without" names an absence: a walk-in is a visit without an appointment
        (("Do you take walk-ins?", "Yes, walk-ins are welcome any time we are open."),
         ("Can I just drop by without booking?", "Not anymore: we only see appointments.")),
        (("Kann ich ohne Termin kommen?", "Ja, jederzeit."),
         ("Muss ich vorher einen Termin buchen?", "Ja, seit März nur noch mit Termin.")),
        # the weekend a new answer speaks of holds the Saturday the old fact named
        (("Is the pharmacy open on Saturdays?", "Yes, 9 to 1."),
         ("Can I collect my prescription at the weekend?",
          "Not any more: since April we are closed at weekends.")),
        # a price where the old answer said included
        (("Czy parking jest wliczony w cenę pobytu?", "Tak, parking jest w cenie."),
         ("Ile kosztuje parking?", "Od lipca parking kosztuje 30 zł za dobę.")),
    ],
)  # fmt: skip
def test_an_absence_a_weekend_or_a_price_reads_the_reversal(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    op = offline_judged([owner_fact(4, *old)], *new)
    assert (op["op"], op.get("id")) == ("DELETE", 4), op


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # a Saturday does not speak of the whole weekend an old fact named
        (("Is the pharmacy open at the weekend?", "Yes, Saturdays 9 to 1 and Sundays 10 to 12."),
         ("Are you open on Saturdays?", "Not any more: since April only on Sundays.")),
        # a season is no dated change ("od maja do września": from May to September)
        (("Czy parking jest wliczony w cenę pobytu?", "Tak, parking jest w cenie."),
         ("Czy macie basen?", "Tak, od maja do września.")),
    ],
)  # fmt: skip
def test_a_day_of_the_weekend_or_a_season_supersedes_nothing(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] != "DELETE", op


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (("Öğrenciler için aylık üyelik ne kadar?", "Öğrenci kartıyla aylık üyelik 900 TL."),
         ("Öğrenci değilim, aylık üyelik kaç lira?", "Tam aylık üyelik 1.400 TL.")),
        (("What do members pay for a day pass?", "Members pay 8 euros."),
         ("I'm not a member, what does a day pass cost?", "A day pass is 15 euros.")),
        (("Was zahlen Mitglieder für die Tageskarte?", "Mitglieder zahlen 8 Euro."),
         ("Ich bin kein Mitglied, was kostet die Tageskarte?", "Die Tageskarte kostet 15 Euro.")),
    ],
)  # fmt: skip
def test_an_asker_who_is_not_the_known_facts_case_asks_of_another(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    """ "I'm not a student, how much?" beside what students pay: the answer is the other
    case's price, a fact of its own (superseding the students' price loses it)."""
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] == "ADD", op


def test_an_asker_who_is_not_the_case_still_hears_a_stated_change() -> None:
    old = ("What do members pay for a day pass?", "Members pay 8 euros.")
    new = ("I'm not a member, what does a day pass cost?",
           "From now on the day pass is 15 euros for everyone, members included.")  # fmt: skip
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] != "ADD" or "another case" not in str(op.get("reason")), op


def test_the_noun_an_askers_figure_counts_reads_no_question_apart() -> None:
    """The asker's own figure and the noun it counts ("for 3 children") are the asker's case,
    not what the question asks about: without them the question is the old one's thing in
    other words, not one frame with a word swapped ("children" for "school")."""
    from digest import facts
    from digest.model.offline_asked import read_apart

    old = facts.fact("Do you run school pony treks?", "Yes, for groups of 4 riders or more.")
    new = facts.fact(
        "Can you run a pony trek for 3 children?",
        "Not for so few any more: treks now start at 6 riders, so 3 is too few.",
    )
    assert not read_apart(new, old)
    # a figure the old answer states too is no instance: the nouns stay and read apart
    other = facts.fact("Can you run a pony trek for 4 children?", "Yes, 4 riders is fine.")
    assert read_apart(other, old)


def _judged_with_evidence(old: tuple[str, str], new: tuple[str, str]) -> dict[str, object]:
    """The offline judge's operation on ``new`` beside ``old``, with the evidence the reconcile
    request carries (``reads_like``), as the core builds it."""
    candidate, lesson = owner_pair(old, new)
    existing, shown, _ids = prompt_blocks({0: candidate}, [lesson])
    [op] = json.loads(reconcile(json.loads(existing), json.loads(shown)))["operations"]
    return dict(op)


def test_two_things_closed_on_one_day_stay_two_facts_however_alike_they_read() -> None:
    """Two facilities closed on one weekday: the answers read alike (the judge is shown
    ``reads_like``), but the pairs share only the day, each speaking of a thing of its own."""
    old = (
        "Is the bakery counter open on Wednesdays?",
        "No, the bakery counter is closed every Wednesday for cleaning.",
    )
    new = ("Can I buy coffee on a Wednesday?",
           "On Wednesdays the coffee bar is closed all day for cleaning.")  # fmt: skip
    candidate, lesson = owner_pair(old, new)
    assert meaning_of(candidate, lesson) >= READS_ALIKE  # the words alone would join them
    assert only_when_shared(owner_fact_of(*new), owner_fact_of(*old))
    assert _judged_with_evidence(old, new)["op"] == "ADD"


def test_one_fact_restated_to_another_question_is_still_one() -> None:
    """The same fact asked in other words (a thing both pairs speak of) is one lesson."""
    old = (
        "Is there somewhere to park near the clinic?",
        "Yes, the Harbour Road car park is two minutes away and free after 6pm.",
    )
    new = (
        "Can my patients leave their car close by?",
        "They can use the Harbour Road car park nearby; it costs nothing after six.",
    )
    assert not only_when_shared(owner_fact_of(*new), owner_fact_of(*old))
    op = _judged_with_evidence(old, new)
    assert op["op"] in ("NOOP", "UPDATE") and op["id"] == 0, op


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # one frame (what it costs), each answer about a thing of its own: two facts
        (("How much is a lesson for beginners?", "Beginners pay 30 euros for a 50-minute lesson."),
         ("And for someone who already rides?",
          "Advanced riders pay 45 euros for an hour in the arena.")),
        (("Ab welchem Alter darf man bei euch klettern?",
          "Im Boulderraum ab 6 Jahren in Begleitung der Eltern."),
         ("Und an der großen Wand mit Seil?", "Am Seil ab 14 Jahren mit Kletterschein.")),
    ],
)  # fmt: skip
def test_other_figures_for_things_each_answer_names_are_no_reversal(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    """Other figures alone supersede a fact asked in other words only when the two answers are
    not each about a thing the other pair never speaks of."""
    assert answered_apart(owner_fact_of(*new), owner_fact_of(*old))
    op = offline_judged([owner_fact(4, *old)], *new)
    assert op["op"] == "ADD", op


def test_a_price_given_again_in_the_old_answers_words_still_supersedes() -> None:
    old = ("What does a canoe cost for a day?", "40 euros a day, paddles and vests included.")
    new = ("How much do you charge to have a canoe all day?",
           "55 euros a day, paddles and vests included.")  # fmt: skip
    assert not answered_apart(owner_fact_of(*new), owner_fact_of(*old))
    op = offline_judged([owner_fact(4, *old)], *new)
    assert (op["op"], op.get("id")) == ("DELETE", 4), op


def test_a_stated_change_in_answers_worded_apart_still_supersedes() -> None:
    old = ("How much is a lesson for beginners?", "Beginners pay 30 euros for a 50-minute lesson.")
    new = ("What does a first riding lesson cost now?",
           "Since March a beginner's lesson costs 35 euros, saddling included.")  # fmt: skip
    op = offline_judged([owner_fact(4, *old)], *new)
    assert (op["op"], op.get("id")) == ("DELETE", 4), op


@pytest.mark.parametrize(
    "text",
    [
        "Purtroppo il ritiro a domicilio l'abbiamo sospeso da un mese.",
        "Hemos suspendido las clases de los sábados.",
        "Nous avons suspendu la livraison le dimanche.",
        "Den Lieferdienst haben wir bis auf Weiteres ausgesetzt.",
        "De bezorging hebben we tijdelijk opgeschort.",
    ],
)
def test_a_service_the_speaker_suspended_is_a_reversal(text: str) -> None:
    assert states_reversal(text)


@pytest.mark.parametrize("text", ["Il suo account è sospeso.", "Su cuenta ha sido suspendida."])
def test_a_state_of_the_askers_is_no_suspension_of_a_service(text: str) -> None:
    assert not states_reversal(text)


def test_a_reversal_in_other_words_with_an_elided_pronoun_supersedes() -> None:
    """ "…il servizio in giornata l'abbiamo sospeso": the clause after "in giornata" is no case
    the answer names (an elided pronoun opens it), so the change reverses the old fact."""
    old = (
        "Fate le riparazioni di scarpe in giornata?",
        "Sì: se le portate entro le 9 le ritirate alle 17, 15 euro al paio.",
    )
    new = ("Se vi lascio gli stivali stamattina, li riprendo aggiustati per stasera?",
           "Purtroppo no, il servizio in giornata l'abbiamo sospeso: ne servono 4.")  # fmt: skip
    assert not narrows(owner_fact_of(*new), owner_fact_of(*old))
    op = offline_judged([owner_fact(4, *old)], *new)
    assert (op["op"], op.get("id")) == ("DELETE", 4), op


def test_cash_named_with_the_word_for_money_is_cash_and_the_frame_swaps_no_thing() -> None:
    """ "contant geld" is cash (one thing, not cash and money), and "accept" beside the old
    question's "pay" (what it costs) is the frame, not a thing swapped: the change stated
    supersedes the old fact."""
    old = ("Kan ik hier contant betalen?", "Ja, contant betalen kan bij de kassa.")
    new = ("Accepteren jullie nog contant geld?",
           "Nee, sinds 1 maart geen contant geld meer; alleen pinnen.")  # fmt: skip
    assert "cash" in owner_fact_of(*new).subject and "geld" not in owner_fact_of(*new).subject
    op = offline_judged([owner_fact(4, *old)], *new)
    assert (op["op"], op.get("id")) == ("DELETE", 4), op

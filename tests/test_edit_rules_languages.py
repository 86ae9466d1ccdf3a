"""digest.edits: an edit's rules read in the languages replies come in, and a lesson's quote of
the draft tells no rule from another (issue 24, point 3).

A model's lesson on an edit often quotes the draft ("Drafting a reply like: Hey hun!! Great
news, 14 September is totally free…"); the quote shares the draft's words with the content
rule, so a tone lesson was given the content rule's key. A promise and the hedge that keeps it
("we will get back to you when we know more") are read in Polish, the Nordic languages, Czech,
Finnish and Turkish as in the others; a greeting added where there was none is the same tone
as a formal greeting put in place of another in another language.
"""

from __future__ import annotations

import pytest

from digest.edit_assign import assign
from digest.edits import same_tone, taught, tone_added

DRAFT = "Hey hun!! 💍✨ Great news, 14 September is totally free and we'll hold it for you!"
FINAL = (
    "Dear Ms Okafor, thank you for your enquiry about 14 September. To reserve a date we "
    "require a 30% deposit, which is non-refundable."
)


def test_a_lessons_quote_of_the_draft_does_not_decide_its_rule() -> None:
    rules = taught(DRAFT, FINAL)
    # the hold it promised ("we'll hold it for you") is taken out: a promise rule too
    assert [r.family for r in rules] == ["content", "promise", "tone"]
    quoted = f"Drafting a reply like: {DRAFT}"
    tone = f"{quoted} formal greeting by name; no pet names, exclamation marks or emoji"
    content = f"{quoted} a date is reserved with a 30% non-refundable deposit"
    assert assign([tone, content], rules, DRAFT) == [2, 0]
    # without the draft to tell the quote, the quote's words weigh as the operator's, unless
    # the lesson speaks of the things a shape rule is about (greeting, exclamation, emoji):
    # that names the rule as its tag would
    assert assign([tone], rules) == [2]
    bare = f"{quoted} be more formal with couples"
    assert assign([bare], rules) == [0]


def test_a_lesson_speaking_of_what_a_shape_removed_is_that_shape_rules() -> None:
    """ "No effusive apologies" is the rule of an edit that took out an apology (the shape
    ``removed-apology``), though "get straight to the facts" says "facts" as content does."""
    draft = "Nous sommes désolés, mille excuses !! Le technicien passe demain entre 8 h et 12 h."
    final = "Le technicien passe demain entre 8 h et 12 h. Merci de vider les placards avant."
    rules = taught(draft, final)
    families = [r.family for r in rules]
    assert "tone" in families and "content" in families
    lessons = [
        "no effusive apologies; get straight to the facts",
        "kitchen cupboards must be emptied before the technician's visit",
    ]
    assert [families[i] for i in assign(lessons, rules, draft)] == ["tone", "content"]


@pytest.mark.parametrize(
    ("draft", "final"),
    [
        pytest.param(
            "Hej!!! Spokojnie, naprawimy drukarkę kuchenną jutro, obiecuję!",
            "Dzień dobry Panie Piotrze, sprawdzamy problem z drukarką kuchenną i odezwiemy "
            "się, gdy będziemy wiedzieć więcej.",
            id="pl",
        ),
        pytest.param(
            "Hej! Vi lovar att skrivaren är lagad imorgon!",
            "Hej Anna, vi undersöker felet med skrivaren och hör av oss så snart som möjligt.",
            id="sv",
        ),
        pytest.param(
            "Ahoj! Tiskárnu opravíme zítra, slibujeme!",
            "Dobrý den, pane Nováku, problém s tiskárnou prověřujeme a ozveme se, jakmile "
            "budeme vědět víc.",
            id="cs",
        ),
    ],
)
def test_a_promise_taken_out_and_its_hedge_in_other_languages(draft: str, final: str) -> None:
    """The promise is its own rule; the hedge the operator wrote in its place is how the
    promise rule is kept, not a content rule of its own."""
    families = [r.family for r in taught(draft, final)]
    assert "promise" in families
    assert "content" not in families


def test_a_greeting_added_is_the_tone_of_a_greeting_in_another_language() -> None:
    nl = ["tone", "added-greeting", "formal-address", "removed-exclamation"]
    pl = ["tone", "greeting-dzień-dobry", "removed-exclamation", "removed-emoji"]
    assert same_tone(nl, pl)
    assert tone_added(pl, nl) == ("removed-emoji",)
    # two greetings put in place of the draft's go two ways; a greeting added to a tone
    # that had none asks for more
    assert not same_tone(["greeting-dear", "removed-exclamation"],
                         ["greeting-hi", "removed-exclamation"])  # fmt: skip
    assert tone_added(["added-greeting", "removed-emoji"], ["removed-emoji"]) == ("added-greeting",)


@pytest.mark.parametrize(
    ("draft", "final"),
    [
        ("Bonjour, votre colis part demain.", "Bonjour Monsieur Moreau, votre colis part demain."),
        ("Hallo, Ihr Termin steht.", "Guten Tag Frau Schneider, Ihr Termin steht."),
        ("Hi, your table is booked.", "Dear Mr Adeyemi, your table is booked."),
        ("Hola, su pedido ya salió.", "Hola Señora Ruiz, su pedido ya salió."),
    ],
)
def test_a_greeting_given_the_customers_title_and_name_is_a_tone_rule(
    draft: str, final: str
) -> None:
    [tone] = [r for r in taught(draft, final) if r.family == "tone"]
    assert "added-name" in tone.names
    # three edits that each add a name share that tone
    assert same_tone(
        ("operator-edit", "tone", "added-name"), ("operator-edit", "tone", *tone.names)
    )


def test_chat_shorthand_spelled_out_is_a_tone_rule() -> None:
    rules = taught(
        "ur order is packed, pls wait for the msg, ty",
        "Your order is packed; please wait for the message. Thank you.",
    )
    assert any("removed-shorthand" in r.names for r in rules if r.family == "tone")
    # one shorthand word, or Dutch "u" (the polite you), is no rule
    assert not any(
        "removed-shorthand" in r.names
        for r in taught("Kunt u dit bevestigen, pls?", "Kunt u dit bevestigen, alstublieft?")
    )


def test_a_hold_promised_before_anyone_confirmed_it_is_a_promise() -> None:
    rules = taught(
        "Sure, we'll keep the corner table for you all evening.",
        "The corner table can be requested; the restaurant confirms tables on the day.",
    )
    assert any(r.family == "promise" and "removed-promise" in r.names for r in rules)

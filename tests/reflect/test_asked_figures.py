"""An owner restating a rule to a concrete request that carries the asker's own figure (a
party size, an age, a weight, a budget): the asker's figure is the instance the rule accepts
or refuses, not a figure of the rule (``digest.answer_figures.asked_instances``). A right
judge's NOOP of such an answer into the rule stands; another rule figure, or a figure the
other answer states as its own rule, is still read apart (issue 24)."""

from __future__ import annotations

import pytest

from digest import fingerprint as fp
from digest.answer_figures import asked_instances, rule_figures
from digest.facts import agree, fact, names_apart
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.reflect.ask import resolve

NOOP = [{"op": "NOOP", "candidate": 0, "id": 0}]


def _neighbour(question: str, answer: str) -> Neighbour:
    [key] = fp.event_keys("owner_answer", {"question": question})
    return Neighbour(
        lesson_id=7, relevance=0.6, identity=0.5, title="t", situation=f"Asked: {question}",
        mistake=None, correction=answer, tags=(), fingerprint=key,
    )  # fmt: skip


def _candidate(question: str, answer: str) -> Candidate:
    [key] = fp.event_keys("owner_answer", {"question": question})
    return Candidate(situation=f"Asked: {question}", correction=answer, fingerprint=key)


def _noop(new: tuple[str, str], old: tuple[str, str]) -> str:
    [op] = resolve(NOOP, {0: _candidate(*new)}, [7], [_neighbour(*old)]).operations
    return op.op


def test_the_askers_figure_echoed_beside_the_rules_own_is_an_instance() -> None:
    question = "Could you do the food for a dinner of 12 people?"
    assert asked_instances(question, ("12", "20"), ("20",)) == {"12"}
    assert rule_figures(question, ("12", "20"), ("20",)) == {"20"}
    # an answer with no figure of its own states the asker's figure as its rule
    assert asked_instances("Is the late checkout fee $25?", ("25",), ()) == frozenset()
    # a figure the other answer states is a rule's figure there: not set aside
    assert asked_instances(question, ("12", "20"), ("12",)) == frozenset()
    # a figure the question does not give is never an instance
    assert asked_instances("Do you cater dinners?", ("12", "20"), ("20",)) == frozenset()


def test_facts_compare_the_rule_figures_and_names_without_the_askers() -> None:
    rule = fact(
        "Do you cater small birthday parties?", "We only cater events with 20 guests or more."
    )
    asked = fact(
        "Could you do the food for a dinner of 12 people?",
        "Sorry, catering starts at a minimum of 20 guests, so not for 12.",
    )
    assert agree(asked, rule) and agree(rule, asked)
    other_size = fact("And lunch for 8?", "No, the minimum is 20 guests, so not for 8.")
    assert not names_apart(asked, other_size)
    raised = fact(
        "Can you cater a lunch for 18?", "Our minimum is now 25 guests, so 18 is too few."
    )
    assert not agree(raised, rule)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (
            (
                "Do you cater small birthday parties?",
                "We only cater events with 20 guests or more.",
            ),
            (
                "Could you do the food for a dinner of 12 people?",
                "Sorry, catering starts at a minimum of 20 guests, so not for 12.",
            ),
        ),
        (
            ("How many people fit on a rental boat?", "Each boat takes at most 8 people."),
            (
                "We are a group of 11, can we all go on one boat?",
                "No, the limit is 8 people per boat, so 11 won't fit on one.",
            ),
        ),
        (
            ("Jusqu'à combien de personnes peut-on réserver la salle ?", "Jusqu'à 40 personnes."),
            (
                "Nous serions 35, est-ce que la salle convient ?",
                "Oui, la salle accueille jusqu'à 40 personnes, donc 35 c'est parfait.",
            ),
        ),
    ],
)
def test_a_judges_noop_of_a_rule_restated_to_the_askers_own_figure_stands(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    assert _noop(new, old) == "NOOP"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # another rule figure: a change, not the rule's support
        (
            ("Do you cater office lunches?", "Yes, we cater events of 15 guests or more."),
            (
                "Can you cater a lunch for 18 people?",
                "Not at that size any more: our minimum is now 25 guests, so 18 is too few.",
            ),
        ),
        # the asker's figure is the other answer's own rule figure
        (
            ("Do large groups pay a deposit?", "Groups of 12 or more pay a deposit."),
            (
                "Could you do the food for a dinner of 12 people?",
                "Sorry, catering starts at a minimum of 20 guests, so not for 12.",
            ),
        ),
    ],
)
def test_a_judges_noop_that_would_lose_a_rule_figure_is_refused(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    assert _noop(new, old) == "ADD"

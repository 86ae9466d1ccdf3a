"""Question identity (``digest.questions.same``): meaning decides, a name keeps two apart."""

from __future__ import annotations

import pytest

from digest.facts import fact
from digest.questions.same import answered_by, question_fact, same_question

WEEKEND = [
    "Do you take weekend appointments?",
    "Can I book an appointment on the weekend?",
    "Are weekend appointments available?",
    "Do you offer appointments on weekends?",
    "Any appointments available at the weekend?",
]


@pytest.mark.parametrize("wording", WEEKEND[1:])
def test_a_paraphrase_is_the_same_question(wording: str) -> None:
    assert same_question(question_fact(wording), question_fact(WEEKEND[0]))


@pytest.mark.parametrize(
    ("one", "other"),
    [
        ("Do you ship to Norway?", "Do you ship to Finland?"),
        ("Do you have a student discount?", "Do you have a senior discount?"),
        ("Do you take weekend appointments?", "What is the cancellation policy?"),
    ],
)
def test_another_entity_or_attribute_is_another_question(one: str, other: str) -> None:
    assert not same_question(question_fact(one), question_fact(other))


def test_an_owner_answer_answers_a_paraphrase_of_its_question_and_not_a_neighbour() -> None:
    answer = fact("Do you take weekend appointments?", "Yes, on Saturdays from 9 to 13.")
    assert answered_by(question_fact("Are weekend appointments available?"), answer)
    shipping = fact("Do you ship to Norway?", "Yes, from Oslo.")
    assert not answered_by(question_fact("Do you ship to Finland?"), shipping)

"""One owner fact told twice to questions worded apart (issue 24: paraphrased repeats): each
question asks of something the other does not ("credit" cards; to "pay" by card), so no rule
calls them one subject, but the answers agree; the pair is shown to the judge, which joins
them. Answers that disagree, or questions naming different things, cost no model call."""

from __future__ import annotations

import pytest

from digest import facts
from digest.reflect.reconcile import for_the_judge
from tests.reflect.helpers import owner_pair


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (("Do you accept debit cards?", "Yes, every debit card works."),
         ("Can I settle the bill by card?", "Yes, any bank card works.")),
        (("Do you have vegan dishes?", "Yes, three vegan mains every day."),
         ("Is there anything vegan on the lunch menu?", "Yes, three vegan mains daily.")),
    ],
)  # fmt: skip
def test_agreeing_answers_to_questions_worded_apart_go_to_the_judge(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    candidate, lesson = owner_pair(old, new, relevance=0.8)
    asked = facts.lesson_fact(candidate.situation, candidate.correction)
    known = facts.lesson_fact(lesson.situation, lesson.correction or "")
    assert facts.relation(asked, known) is facts.Relation.DISTINCT  # no rule joins them
    assert facts.restated_apart(asked, known)
    assert for_the_judge(candidate, lesson, 0.5)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # one shared term, answers that do not agree: two things of one kind
        (("Do you offer gift wrapping?", "Yes, it costs €2 per item."),
         ("Do you sell gift vouchers?", "No, we never did.")),
        # agreeing answers, but the questions name different things
        (("Do you deliver to Lyon?", "Yes, next working day."),
         ("Do you deliver to Nice?", "Yes, next working day.")),
        # other figures: not one fact
        (("How long is the guided tour?", "About 45 minutes."),
         ("How long is the boat tour?", "About 90 minutes.")),
    ],
)  # fmt: skip
def test_disagreeing_answers_or_things_named_apart_are_not_restated(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    candidate, lesson = owner_pair(old, new, relevance=0.8)
    asked = facts.lesson_fact(candidate.situation, candidate.correction)
    known = facts.lesson_fact(lesson.situation, lesson.correction or "")
    assert not facts.restated_apart(asked, known)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        # the asker's own place beside a known fact, the stance turned: what was free costs
        (("Do you charge for sofa delivery?", "No, sofa delivery is free."),
         ("I live in Harrogate, 12 miles away - do you charge for delivering my sofa?",
          "Yes, every delivery is now £25.")),
        # the asker's own time, the same figure stated: one price asked again
        (("What does a chimney sweep cost?", "A sweep costs 120 euros."),
         ("My fireplace is blocked since Monday 18:00, what would I pay?",
          "We charge 120 euros for that.")),
    ],
)  # fmt: skip
def test_a_fact_asked_with_the_askers_own_circumstances_goes_to_the_judge(
    old: tuple[str, str], new: tuple[str, str]
) -> None:
    candidate, lesson = owner_pair(old, new, relevance=0.8)
    asked = facts.lesson_fact(candidate.situation, candidate.correction)
    known = facts.lesson_fact(lesson.situation, lesson.correction or "")
    assert facts.names_apart(asked, known)  # the rules read two facts: only a judge can join
    assert for_the_judge(candidate, lesson, 0.5)


def test_circumstances_that_name_no_shared_figure_or_flip_cost_no_model_call() -> None:
    """The asker's own circumstances, answers that neither turn nor share a figure: another
    fact, decided without a model (the relevance is low)."""
    candidate, lesson = owner_pair(
        ("Do you sell birthday candles?", "Yes, in every colour."),
        ("I'm in Otley - can you send balloons by Friday?", "Yes, we send balloons anywhere."),
        relevance=0.1,
    )
    assert not for_the_judge(candidate, lesson, 0.5)

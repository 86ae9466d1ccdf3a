"""digest.answer_scope: the case an owner's answer names (a qualifier), and its figures shown
as values; digest.facts reads a narrower fact beside the old one, not another value."""

from __future__ import annotations

import pytest

from digest import facts
from digest.answer_scope import qualifiers, shown
from tests.reflect.helpers import offline_judged, owner_fact


@pytest.mark.parametrize(
    ("answer", "case"),
    [
        ("On Saturdays we open 10-2.", "Saturdays"),
        ("We open 10-2 on Saturdays.", "Saturdays"),
        ("Le samedi nous ouvrons de 10h à 14h.", "samedi"),
        ("Los sábados abrimos de 10 a 14.", "sábados"),
        ("Am Wochenende kostet die Lieferung 8 Euro.", "Wochenende"),
        ("During the school holidays the pool opens at 10.", "school holidays"),
    ],
)
def test_a_phrase_naming_a_case_is_a_qualifier(answer: str, case: str) -> None:
    assert any(case in found for found in qualifiers(answer)), qualifiers(answer)


@pytest.mark.parametrize(
    "answer",
    [
        "Late checkout until 2 pm is $40 per room.",  # the figure's own unit
        "Sofa deliveries take 5 to 6 weeks from the order date.",
        "We are open 9-5.",
        "It costs 20 EUR in total, paid at least 2 days in advance.",  # how much, not a case
        "I open at 9.",
    ],
)
def test_a_figure_its_unit_or_a_manner_is_no_qualifier(answer: str) -> None:
    assert qualifiers(answer) == []


def test_a_range_is_shown_as_one_value() -> None:
    assert shown("Sofas arrive within 2-3 weeks.", ("2", "3")) == "2-3"
    assert shown("From 9 to 5, and at 10 on Saturdays.", ("10", "5", "9")) == "9-5, 10"
    assert shown("It costs 75 euros.", ("75",)) == "75"


@pytest.mark.parametrize(
    ("question", "answer", "narrower"),
    [
        ("What are your opening hours?", "On Saturdays we open 10-2.", True),
        ("What are your opening hours?", "We open 10-2 on Saturdays.", True),
        ("When are you open?", "We are open 10-6 now.", False),
        ("When are you open?", "We are open 10-6.", False),
    ],
)
def test_other_figures_said_of_a_narrower_case_reverse_nothing(
    question: str, answer: str, narrower: bool
) -> None:
    old = facts.fact("When are you open?", "We are open 9-5, Monday to Friday.")
    new = facts.fact(question, answer)
    assert bool(facts.narrows(new, old)) is narrower
    assert facts.reverses(new, old) is not narrower


def test_a_compound_meets_its_parts_written_apart() -> None:
    old = facts.fact("Was kostet eine Erstberatung?", "Eine Erstberatung kostet 40 bis 60 Euro.")
    new = facts.fact("Wie teuer ist die erste Beratung?", "Die erste Beratung kostet 75 Euro.")
    assert facts.relation(new, old) is facts.Relation.SAME
    other = facts.fact("Was kostet eine Steuererklärung?", "Eine Steuererklärung kostet 150 Euro.")
    assert facts.relation(other, old) is facts.Relation.DISTINCT


def test_today_in_a_question_is_the_askers_now_not_a_case() -> None:
    old = facts.fact("How long does sofa delivery take?", "Sofas arrive within 2-3 weeks.")
    new = facts.fact("When will my sofa arrive if I order today?", "Sofas take 5 to 6 weeks.")
    assert facts.relation(new, old) is facts.Relation.SAME
    assert facts.reverses(new, old)


@pytest.mark.parametrize(
    ("question", "answer", "reports"),
    [
        ("Can I just drop by without booking?", "Not anymore: appointments only.", True),
        ("Accettate ancora animali domestici?", "No, purtroppo.", True),
        ("Do you take walk-ins?", "Yes, any time we are open.", False),
    ],
)
def test_an_answer_reporting_a_change_is_read_so(question: str, answer: str, reports: bool) -> None:
    assert facts.reports_change(facts.fact(question, answer)) is reports


def test_the_offline_judge_adds_a_narrower_fact_and_supersedes_a_changed_range() -> None:
    question = "What are your opening hours?"
    existing = [owner_fact(3, question, "We are open 9-5.")]
    op = offline_judged(existing, question, "On Saturdays we open 10-2.")
    assert op["op"] == "ADD" and "saturda" in str(op["reason"]), op
    op = offline_judged(existing, question, "We are open 10-6.")
    assert (op["op"], op["id"]) == ("DELETE", 3), op
    assert "9-5 → 10-6" in str(op["reason"]), op

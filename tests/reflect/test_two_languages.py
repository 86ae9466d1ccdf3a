"""One error in two languages is one lesson; two errors of one tool and one family in two
languages stay two (issue 24, DESIGN §8a: meaning decides identity, structure is evidence).

The static table is English (distilled from all-MiniLM-L6-v2): it reads a German or Spanish
error apart from its English wording. What crosses languages as it is (a name in capitals, a
cognate) is the evidence ``digest.identity.languages`` reads; the judge decides.

Pure readings first, then the same through the one reflect core with the offline judge. The
texts are written for these tests, in domains the benchmark's cases do not use (a bakery's
wholesale orders, a marina's berths, a fencing club).
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

import digest
from digest.db import session_scope
from digest.identity import languages
from digest.model.offline_doubt import same_facts
from digest.models import Lesson
from digest.pipeline import drain
from digest.reflect.readings import family_of
from digest.tenants import find_agent

AGENT = "marina-bot"

# --- pure readings ---------------------------------------------------------------------------


def test_one_text_in_english_and_one_in_another_language() -> None:
    english = "Berth cannot be reserved: the boat's insurance certificate is missing"
    german = "Liegeplatz nicht reservierbar: das Versicherungszertifikat des Bootes fehlt"
    assert languages.two_languages(english, german)
    assert not languages.two_languages(english, "Berth cannot be reserved: the boat is too long")
    # one foreign-looking word (a name, a format letter) does not make a text foreign
    assert not languages.two_languages(english, "Order for Café Central: the flour is missing")


def test_cognates_and_names_cross_languages() -> None:
    found = languages.cognates(
        "Pedido rechazado: falta el certificado de alérgenos",
        "Order refused: the allergen certificate is missing",
    )
    assert ("certificado", "certificate") in found
    assert languages.cognates("Pedido rechazado: falta el NIF", "Order refused: the NIF is missing")


def test_two_languages_read_as_one_subject_only_by_a_word_they_share() -> None:
    same = (
        "Pedido rechazado: falta el certificado de alérgenos",
        "Order refused: the allergen certificate is missing",
    )
    other = (
        "Pedido rechazado: falta la dirección de entrega",
        "Order refused: the allergen certificate is missing",
    )
    assert languages.same_subject_across(*same)
    assert not languages.same_subject_across(*other)
    # one language: not this reading's to say (the table reads English)
    assert not languages.same_subject_across(
        "Order refused: the allergen certificate is missing",
        "Order refused: the allergen list is missing",
    )


def test_a_words_of_the_condition_are_no_evidence_of_one_subject() -> None:
    # "obligatorio"/"required" and "falta"/"missing" are the error's family, not its subject
    assert not languages.same_subject_across(
        "Inscripción rechazada: el seguro es obligatorio", "Entry refused: a licence is required"
    )


def test_the_family_after_a_repeated_kind_tag() -> None:
    assert family_of(("failure", "failure", "missing-parameter")) == "missing-parameter"
    assert family_of(("failure", "missing-parameter")) == "missing-parameter"
    assert family_of(("tool-error", "expired", "x")) == "expired"
    assert family_of(("failure",)) is None


def test_the_offline_judge_reads_a_swap_in_the_error_lines_only() -> None:
    # a title line above each repeats its head in its language: no two things of one kind
    cand: dict[str, Any] = {
        "candidate": 0,
        "situation": "When `order_bread` fails with «Reserva rechazada\nReserva rechazada: "
        "falta el certificado de alérgenos»",
        "correction": "Attach the allergen certificate.",
        "tags": ["tool-error", "missing-parameter"],
    }
    item: dict[str, Any] = {
        "id": 0,
        "situation": "When `order_bread` fails with «Booking refused\nBooking refused: the "
        "allergen certificate is missing»",
        "correction": "Attach the allergen certificate.",
        "tags": ["tool-error", "missing-parameter"],
    }
    assert same_facts(cand, item)


# --- through the reflect core, offline judge -------------------------------------------------


def _failing(tenant: str, tool: str, error: str, args: dict[str, Any]) -> None:
    digest.record_run(
        tenant, AGENT, task="reserve a berth", outcome="failure",
        tool_calls=[{"tool": tool, "args": args, "ok": False, "error": error}],
    )  # fmt: skip


def _own_error(tenant: str, task: str, error: str) -> None:
    digest.record_run(tenant, AGENT, task=task, outcome="failure", error=error)


def _active(tenant: str) -> list[Lesson]:
    with session_scope() as session:
        agent = find_agent(session, tenant, AGENT)
        return list(
            session.scalars(
                select(Lesson).where(Lesson.agent_id == agent.id, Lesson.status == "active")
            )
        )


def test_one_error_in_two_languages_is_one_lesson(sqlite_env: str, tenant: str) -> None:
    _failing(
        tenant, "reserve_berth",
        "Amarre rechazado: el barco necesita un certificado de navegabilidad",
        {"boat": "B-114", "nights": 3},
    )  # fmt: skip
    drain()
    _failing(
        tenant, "reserve_berth",
        "Mooring refused: a seaworthiness certificate is required",
        {"boat": "B-207", "nights": 2},
    )  # fmt: skip
    drain()
    lessons = _active(tenant)
    assert len(lessons) == 1, [lesson.title for lesson in lessons]


def test_two_missing_inputs_in_two_languages_stay_two_lessons(sqlite_env: str, tenant: str) -> None:
    # one tool, one family (a missing input), two languages, two rules
    _failing(
        tenant, "reserve_berth", "Reserva rechazada: falta la eslora del barco", {"boat": "B-31"}
    )
    drain()
    _failing(
        tenant, "reserve_berth",
        "Reservation refused: the owner's mooring licence is missing",
        {"boat": "B-58"},
    )  # fmt: skip
    drain()
    assert len(_active(tenant)) == 2


def test_a_runs_own_error_in_two_languages_is_one_lesson(sqlite_env: str, tenant: str) -> None:
    _own_error(
        tenant, "Melde Lena für das Turnier an",
        "Anmeldung nicht möglich: die FIE-Lizenz der Fechterin fehlt",
    )  # fmt: skip
    drain()
    _own_error(
        tenant, "Enter Tom for the tournament",
        "Entry not possible: the fencer's FIE licence is missing",
    )  # fmt: skip
    drain()
    lessons = _active(tenant)
    assert len(lessons) == 1, [lesson.title for lesson in lessons]


def test_an_owners_fact_in_two_languages_with_one_figure_goes_to_the_judge() -> None:
    """An owner's answer in Japanese and one in English that state one figure: no word reads
    them as one fact, so the judge is shown the pair (a right judge's NOOP then stands though
    the English asker names a weekday); without a shared figure no call is spent."""
    from digest import facts
    from digest.reflect.reconcile import for_the_judge
    from digest.reflect.unread import answered_in_two_languages
    from tests.reflect.helpers import owner_pair

    japanese = ("修理品は何日間預かってもらえますか？", "修理済みの品物は14日間お預かりします。")
    english = (
        "My watch was fixed last Tuesday but I'm away - will you still have it in ten days?",
        "We keep repaired items for 14 days; after that they go to our storage office.",
    )
    other = ("土曜日は営業していますか？", "土曜日は10時から16時まで営業しています。")
    asked = _shown_and_joined(japanese, english)
    candidate, lesson = owner_pair(other, english)
    saturday = facts.lesson_fact(lesson.situation, lesson.correction)
    assert not answered_in_two_languages(asked, saturday)
    assert not for_the_judge(candidate, lesson, 0.5)


def test_an_owners_fact_in_two_languages_naming_one_thing_alike_goes_to_the_judge() -> None:
    """Two answers in two languages with no figure that name one thing in one spelling (a
    loanword: "snowboard") are shown to the judge, whose NOOP then stands; an English question
    opening with "Do" is still English. Answers that share no such word cost no call."""
    from digest.identity.languages import two_languages
    from digest.reflect.reconcile import for_the_judge
    from tests.reflect.helpers import owner_pair

    english = (
        "Do I have to bring my own snowboard for the first lesson?",
        "No, the snowboard and the boots come with the lesson.",
    )
    italian = (
        "Devo portare la mia tavola da snowboard al corso?",
        "No, tavola e scarponi sono compresi nel prezzo del corso.",
    )
    other = ("Il transfer dall'hotel è compreso?", "No, il transfer si paga a parte.")
    assert two_languages(" ".join(english), " ".join(italian))
    _shown_and_joined(italian, english)
    candidate, lesson = owner_pair(other, english)
    assert not for_the_judge(candidate, lesson, 0.5)


def _shown_and_joined(new: tuple[str, str], known: tuple[str, str]) -> Any:
    """The owner fact ``new`` beside the lesson of ``known`` (two languages): shown to the
    judge, and the judge's NOOP stands. The new fact, as read."""
    from digest import facts
    from digest.reflect.ask import _noop_would_lose
    from digest.reflect.reconcile import for_the_judge
    from digest.reflect.unread import answered_in_two_languages
    from tests.reflect.helpers import owner_pair

    candidate, lesson = owner_pair(new, known)
    asked = facts.lesson_fact(candidate.situation, candidate.correction)
    assert answered_in_two_languages(asked, facts.lesson_fact(lesson.situation, lesson.correction))
    assert for_the_judge(candidate, lesson, 0.5)
    assert not _noop_would_lose(candidate, lesson)
    return asked

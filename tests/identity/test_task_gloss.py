"""A task's words read as English for retrieval (``digest.identity.task_gloss``), and what a
task and a prompt are embedded as (``digest.lessons.cues.task_meaning``)."""

from __future__ import annotations

import pytest

from digest.identity.task_gloss import MIN_STEM, STEMS, gloss_task, read_as
from digest.lessons.cues import task_meaning
from digest.retrieve import prompt_keywords


@pytest.mark.parametrize(
    ("word", "english"),
    [
        ("annuler", "cancel"),  # by stem, an inflected form, accents ignored
        ("annulé", "cancelled"),  # an exact word of digest.identity.gloss first
        ("annulation", "cancel"),
        ("Stornierung", "cancel"),
        ("remboursé", "refund"),
        ("reembolso", "refund"),
        ("alquilar", "rent"),
        ("voiture", "car"),
        ("treno", "train"),
        ("bezorgd", "deliver"),
        ("Zahlung", "payment"),  # an exact word of digest.identity.gloss first
        # what an office or shopping agent is asked for
        ("köpa", "buy"),
        ("regnearket", "spreadsheet"),
        ("réunion", "meeting"),
        ("verschieben", "postpone"),
        ("fusionner", "merge"),
        ("partager", "share"),
    ],
)
def test_a_word_the_table_cannot_read_is_read_as_english(word: str, english: str) -> None:
    assert read_as(word) == english


@pytest.mark.parametrize(
    "word",
    [
        "reservation",
        "location",
        "refund",
        "seattle",
        "xqzvbn",
        "contacting",
        "reclaimed",
        "autopay",
        "autocommit",
        "moteur",  # not a meeting ("møte"): no stem of four letters that other words begin
        "reporter",  # English whole, though French for "postpone"
        "delete",  # not "dele" (Norwegian for "share"): no such stem
    ],
)
def test_an_english_word_or_an_unknown_one_stays_itself(word: str) -> None:
    # "location" is French for a rental, but the table reads the English word whole
    assert read_as(word) is None


def test_stems_are_long_enough_to_say_something() -> None:
    assert all(len(stem) >= MIN_STEM for stem in STEMS if stem not in ("zug", "tag"))


def test_a_prompt_in_another_language_reads_like_one_in_english() -> None:
    assert gloss_task("je veux être remboursé") == "je veux être refund"
    assert task_meaning("Je voudrais annuler la réservation du train.") == "cancel booking train"
    assert task_meaning("I would like to cancel the booking of the train.") == (
        "cancel booking train"
    )


def test_task_meaning_keeps_short_content_words_and_leaves_out_short_function_words() -> None:
    assert task_meaning("Hi, I need a rental car at the airport for my bag.") == (
        "rental car airport bag"
    )


def test_prompt_keywords_add_the_english_word_of_a_word_read_as_one() -> None:
    words = prompt_keywords("Kündigen Sie bitte mein Abonnement")
    assert words[:2] == ["kündigen", "cancel"]
    assert "subscription" in words
    assert prompt_keywords("cancel my subscription") == ["cancel", "subscription"]

"""What a user asks, before the chatter around it (``digest.lessons.cues.request_first``)."""

from __future__ import annotations

import pytest

from digest.lessons.cues import rank_of, request_first, sentences, task_meaning, telling_words
from digest.retrieve import prompt_keywords

CHATTY = (
    "Hello!! Hope your day is going well :) So I've been meaning to get my dad something for "
    "his birthday. Could you please purchase a leather wallet for him, brown, nothing over 45 "
    "dollars? Thanks a million, Priya"
)


@pytest.mark.parametrize(
    ("sentence", "rank"),
    [
        ("Could you merge pull request 3318 into the release branch?", 0),
        ("Please cancel my subscription.", 0),
        ("Kannst du einen Pull Request erstellen", 0),
        ("Is it possible to keep the car two more days", 0),
        ("I need a rental car at the airport.", 1),
        ("Je voudrais garder la voiture trois jours de plus.", 1),
        ("The vase arrived with a crack along the base.", 2),
        ("Hope the weekend was good.", 3),
        ("Thanks a bunch,", 3),
        ("Hallo und danke", 3),
    ],
)
def test_a_sentence_asks_wants_tells_or_makes_conversation(sentence: str, rank: int) -> None:
    assert rank_of(sentence) == rank


def test_sentences_end_at_marks_emoticons_and_signature_separators_not_inside_words() -> None:
    parts = sentences("Happy Friday :) Put 347.20 in cell C4 at 10:30, v2.1 sheet? Ta | Jess")
    assert [part.strip() for part in parts] == [
        "Happy Friday :)",
        "Put 347.20 in cell C4 at 10:30, v2.1 sheet?",
        "Ta |",
        "Jess",
    ]


def test_the_request_comes_before_the_chatter_and_nothing_is_dropped() -> None:
    ordered = request_first(CHATTY)
    assert ordered.startswith("Could you please purchase a leather wallet")
    assert ordered.endswith("Thanks a million, Priya")
    assert sorted(ordered.split()) == sorted(CHATTY.split())


@pytest.mark.parametrize(
    "text",
    [
        "Move my 1:1 with Priya from Monday 3pm to Tuesday 3pm.",
        "The hotel was noisy. The room was cold. The breakfast was late.",
        "",
    ],
)
def test_a_message_of_one_sentence_or_of_one_rank_reads_as_it_came(text: str) -> None:
    assert request_first(text) == text


def test_what_a_chatty_task_means_and_its_keywords_are_its_request() -> None:
    assert telling_words(CHATTY)[:3] == ["purchase", "leather", "wallet"]
    assert task_meaning(CHATTY).split()[:3] == ["purchase", "leather", "wallet"]
    assert prompt_keywords(CHATTY)[:3] == ["purchase", "leather", "wallet"]
    # an address in the chatter stays one id, masked, whatever its dots
    task = "Hi!! Happy Friday :) Could you give lina.m@studio-north.io access to the sheet?"
    assert "studio" not in telling_words(task) and "access" in telling_words(task)

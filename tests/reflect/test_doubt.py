"""Paraphrases the static table reads only half alike (issue 24, DESIGN §8a): the words it
reads (``digest.identity.gloss``: compounds, inflections, a Scandinavian passive), a swap that
is no swap (``digest.frames``), and a pair in doubt that states the same facts, which goes to
the judge and which the offline judge reads itself (``digest.reflect.readings.in_doubt``,
``digest.model.offline_doubt``).

The texts here are written for these tests, in domains the benchmark's cases do not use.
"""

from __future__ import annotations

import json

import pytest

from digest import fingerprint as fp
from digest.frames import swapped
from digest.identity.gloss import gloss
from digest.identity.meaning import IN_DOUBT, READS_ALIKE, likeness
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.model.offline_doubt import same_facts
from digest.model.offline_reconcile import reconcile
from digest.reflect.ask import prompt_blocks
from digest.reflect.readings import families_agree, in_doubt, meaning_of
from digest.reflect.reconcile import for_the_judge


@pytest.mark.parametrize(
    ("text", "read"),
    [
        # a part of a hyphenated compound is no function word ("in" is one in German)
        ("Check-in refused", "Check-in refused"),
        # a Scandinavian passive, and a compound read by its listed head
        ("Fakturan avvisades", "invoice rejected"),
        ("sparkonto", "spar account"),
        # another inflection of a listed Italian and Spanish word
        ("richieste rifiutate", "richieste rejected"),
        ("se puede cancelar", " puede cancelled"),
        ("ordine non trovato", "order not found"),
    ],
)
def test_words_are_read_by_their_form(text: str, read: str) -> None:
    assert gloss(text) == read


def test_a_compound_ends_in_no_function_word_and_english_words_stay_english() -> None:
    # "…ingen" is a Swedish "no", not what "lönekörningen" (a payroll run) is
    assert "no" not in gloss("lönekörningen").split()
    assert gloss("Parcels wait at the depot") == "Parcels wait at the depot"


def test_a_conjunction_for_a_verb_is_no_swap() -> None:
    """Each says one word the other lacks, but "because" frames the sentence: the same fact
    with its clauses turned round, not two things in one frame."""
    assert not swapped(
        "Boarding blocked: health form not signed for passenger ‹id›",
        "Cannot board passenger ‹id› because the health form has not been signed",
    )
    assert swapped("Field amount is required", "Field currency is required")


#: a tool's error in two wordings the static table reads only half alike, and look-alikes
PLOT = "Plot ‹id› is already leased for the season"
PLOT_AGAIN = "For this season plot ‹id› belongs to another gardener"
PLOT_YEARS = ("Plot ‹id› is already leased for the 2027 season",
              "For the 2028 season plot ‹id› belongs to another gardener")  # fmt: skip
PLOT_FENCED = "Plot ‹id› is already fenced for the season"


def _lesson(error: str, family: str = "tool-failure") -> tuple[str, str, str, tuple[str, ...]]:
    return (
        "Calling the `lease_plot` tool",
        f"Fix the call. Observed: `lease_plot` failed with «{error}».",
        fp.tool_key("lease_plot", error),
        ("lease_plot", "tool-error", family),
    )


def _neighbour(error: str, family: str = "tool-failure") -> Neighbour:
    situation, correction, key, tags = _lesson(error, family)
    return Neighbour(
        lesson_id=7, relevance=0.3, identity=0.2, title="t", situation=situation,
        mistake=None, correction=correction, tags=tags, fingerprint=key,
    )  # fmt: skip


def _candidate(error: str, family: str = "tool-failure") -> Candidate:
    situation, correction, key, tags = _lesson(error, family)
    return Candidate(situation=situation, correction=correction, tags=tags, fingerprint=key)


def test_a_pair_that_states_the_same_facts_under_the_threshold_is_in_doubt() -> None:
    found = likeness(PLOT, PLOT_AGAIN)
    assert IN_DOUBT <= found.whole < READS_ALIKE and found.about_alike
    assert found.in_doubt() == round(found.whole, 2)
    old, new = _neighbour(PLOT), _candidate(PLOT_AGAIN)
    assert meaning_of(new, old) < READS_ALIKE
    assert in_doubt(new, old) > 0
    # below the floor of relevance, the pair still goes to the judge
    assert for_the_judge(new, old, 0.9)


def test_other_figures_a_swap_or_another_condition_are_not_in_doubt() -> None:
    assert likeness(*PLOT_YEARS).in_doubt() == 0.0
    assert in_doubt(_candidate(PLOT_YEARS[1]), _neighbour(PLOT_YEARS[0])) == 0.0
    assert likeness(PLOT, PLOT_FENCED).in_doubt() == 0.0
    # two specific conditions of one tool are two errors, whatever their words share
    assert not families_agree(("t", "tool-error", "expired"), ("t", "tool-error", "conflict"))
    assert families_agree(("t", "tool-error", "conflict"), ("t", "tool-error", "tool-failure"))
    assert in_doubt(_candidate(PLOT_AGAIN, "expired"), _neighbour(PLOT, "conflict")) == 0.0


def test_the_judge_is_shown_the_pair_in_doubt_not_as_reading_alike() -> None:
    existing, _, _ = prompt_blocks({0: _candidate(PLOT_AGAIN)}, [_neighbour(PLOT)])
    [shown] = json.loads(existing)
    assert "reads_like" not in shown
    assert set(shown["in_doubt"]) == {"0"} and IN_DOUBT <= shown["in_doubt"]["0"] < READS_ALIKE


def _item(i: int, error: str, **extra: object) -> dict[str, object]:
    situation, correction, key, tags = _lesson(error)
    return {"id": i, "situation": situation, "correction": correction, "mistake": None,
            "tags": list(tags), "fingerprint": key, **extra}  # fmt: skip


def _as_candidate(item: dict[str, object]) -> dict[str, object]:
    item = dict(item)
    item["candidate"] = item.pop("id")
    return item


def test_the_offline_judge_reads_a_pair_in_doubt_by_its_facts() -> None:
    """One error in other words: the candidate is the lesson's support (NOOP). With other
    figures, or without the request's mark, the rules keep two lessons."""
    old = _item(3, PLOT, in_doubt={"0": 0.49})
    [op] = json.loads(reconcile([old], [_as_candidate(_item(0, PLOT_AGAIN))]))["operations"]
    assert (op["op"], op["id"]) == ("NOOP", 3)
    assert not same_facts(_item(0, PLOT_YEARS[1]), _item(3, PLOT_YEARS[0]))
    marked = _item(3, PLOT_YEARS[0], in_doubt={"0": 0.49})
    [op] = json.loads(reconcile([marked], [_as_candidate(_item(0, PLOT_YEARS[1]))]))["operations"]
    assert op["op"] == "ADD"
    old.pop("in_doubt")
    [op] = json.loads(reconcile([old], [_as_candidate(_item(0, PLOT_AGAIN))]))["operations"]
    assert op["op"] == "ADD"

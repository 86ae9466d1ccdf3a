"""The bounded memos of what one text reads as (issue 27: no repeated parsing per event): each
gives what its unmemoized function gives, cold or warm, hands out nothing a caller can spoil,
and stays within its bounds (``digest.bounded``)."""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from digest import facts, frames, retrieve
from digest.identity import meaning, task_gloss
from digest.lessons import cues
from digest.model import error_families

#: (module, name of the memoized function): each is ``digest.bounded.memo``
MEMOS = [
    (facts, "_read_terms"),
    (frames, "_read"),
    (meaning, "_read"),
    (cues, "_tokens"),
    (error_families, "_family_at"),
    (cues, "task_meaning"),
    (task_gloss, "read_as"),
    (retrieve, "read_as"),
]

_TEXTS = [
    "Order 4412 not found",
    "order 98 not found",
    "Field 'postcode' is required",
    "Field 'state' is required",
    "Password must contain at least one digit",
    "Password must contain at least one uppercase letter",
    "Seat ‹id› is already taken for screening ‹id›",
    "Screening ‹id›: seat ‹id› is occupied by another booking",
    "ValidationError: amount: must be positive\nquantity: must be at most 10",
    "HTTP 404 Not Found: /v1/orders was removed, use /v2/orders",
    "401 Unauthorized: token expired",
    'Called `create_refund` with «{"order": "A-17", "ref": "main"}» and it failed: '
    "«branch 'main' is protected»",
    "No module named 'polars'",
    "KeyError: 'basket_value'",
    "Are returns free? Returns are free within 30 days for EU customers.",
    "Do customers pay for return shipping? No, return shipping costs nothing.",
    "Do you ship to Finland? We deliver to Finland and Norway in 3-5 days.",
    "Ich möchte meine Bestellung stornieren und das Geld zurückerstattet bekommen.",
    "Je veux être remboursé pour le colis perdu, commande 5531.",
    "Quiero cambiar mi vuelo a Madrid del 3 de marzo.",
    "Please book a table for two at 7pm and send the confirmation to bob@example.com.",
    "I want my money back for the broken chair. The customer's order arrived damaged!",
    "注文が見つかりません: 在庫切れ",
    "Payment declined: insufficient funds (balance 12.40 EUR, needed 30 EUR)",
    "",
    "   ",
]


def _corpus() -> list[str]:
    data = Path(__file__).parent / "data" / "agent_text.jsonl"
    lines = data.read_text(encoding="utf-8").splitlines()
    return [*_TEXTS, *(json.loads(line)["text"] for line in lines if line.strip())]


@contextmanager
def _unmemoized(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Each memo replaced by the function it wraps (every call computed anew)."""
    with monkeypatch.context() as patch:
        for module, name in MEMOS:
            patch.setattr(module, name, getattr(module, name).__wrapped__)
        yield


def _clear() -> None:
    for module, name in MEMOS:
        getattr(module, name).cache_clear()


def _readings(texts: list[str]) -> list[Any]:
    """What the memos serve, through the public functions that read them."""
    out: list[Any] = []
    for text in texts:
        out.append((
            facts.terms(text), facts._signed_terms(text), facts.names(text),
            cues.telling_words(text), cues.task_meaning(text), cues.event_cues(
                "run_outcome", {"task": text}
            ),
            error_families.family_of(text).name, task_gloss.gloss_task(text),
            retrieve.prompt_keywords(text),
        ))  # fmt: skip
    for a, b in itertools.islice(itertools.combinations(texts, 2), 400):
        if a.strip() and b.strip():
            likeness = meaning.likeness(a, b)
            out.append((frames.swapped(a, b), likeness, meaning.reads_like(a, b)))
    return out


def test_every_memo_gives_what_its_function_gives_cold_and_warm(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    texts = _corpus()
    with _unmemoized(monkeypatch):
        expected = _readings(texts)
    _clear()
    cold = _readings(texts)
    warm = _readings(texts)
    assert cold == expected
    assert warm == expected
    # the memos were read, not bypassed
    for module, name in MEMOS:
        assert getattr(module, name).memo_info().hits > 0, name


def test_a_caller_that_changes_what_it_got_spoils_nothing() -> None:
    text = "Do customers pay for return shipping? No, return shipping costs nothing."
    first = facts.terms(text)
    first.add("spoiled")
    signed = facts._signed_terms(text)
    signed["spoiled"] = 1
    assert "spoiled" not in facts.terms(text)
    assert "spoiled" not in facts._signed_terms(text)
    words = cues.telling_words("I want my money back for the broken chair")
    words.append("spoiled")
    assert "spoiled" not in cues.telling_words("I want my money back for the broken chair")


def test_a_family_is_the_same_object_whether_remembered_or_not() -> None:
    error = "Payment declined: insufficient funds"
    error_families._family_at.cache_clear()  # type: ignore[attr-defined]
    assert error_families.family_of(error) is error_families.family_of(error)
    assert error_families.family_of("zzz qqq") is error_families.TOOL_FAILURE


@pytest.mark.parametrize(
    ("module", "name", "make"),
    [
        (facts, "_read_terms", lambda n: f"word{n} another{n}"),
        (frames, "_read", lambda n: f"Field 'f{n}' is required"),
        (meaning, "_read", lambda n: f"Order {n} for customer C{n} not found"),
        (cues, "_tokens", lambda n: f"Refund order {n} for Alice"),
        (error_families, "_family_at", lambda n: f"error {n}: something went wrong"),
    ],
)
def test_each_memo_stays_within_its_bounds(
    module: Any, name: str, make: Callable[[int], str]
) -> None:
    memoized = getattr(module, name)
    info = memoized.memo_info()
    assert info.max_entries <= 4096 and info.max_bytes <= 2 * 2**20  # small, whatever the input
    memoized.cache_clear()
    for n in range(info.max_entries + 50):
        memoized(make(n))
    info = memoized.memo_info()
    assert info.entries <= info.max_entries and info.nbytes <= info.max_bytes
    # full by one bound or the other
    assert info.entries == info.max_entries or info.nbytes > 0.9 * info.max_bytes
    memoized(make(0))  # the oldest was dropped: computed again
    assert memoized.memo_info().misses == info.misses + 1
    for n in range(20):  # long texts weigh what they hold
        memoized(f"{n} " + make(n) * 200)
    info = memoized.memo_info()
    assert info.entries <= info.max_entries and info.nbytes <= info.max_bytes


def test_likeness_reads_figures_as_the_figures_of_each_text_and_word() -> None:
    """A text's reading keeps its figures and the terms whose word states one: the pair's
    figures, and the terms it compares, are what reading each word and text anew gives."""
    from digest.figures import figures, figures_apart

    texts = [t for t in _corpus() if t.strip()]
    texts += [
        "Delivery takes 3-5 days, 10,000 units max",
        "Delivery takes 2-4 days for 10.000 units",
    ]
    for a, b in itertools.islice(itertools.combinations(texts, 2), 300):
        got = meaning.likeness(a, b)
        assert got.figures_apart == figures_apart(a, b)
        assert got.same_figures == (figures(a) == figures(b))
        wa, wb = meaning._words(meaning.plain(a)), meaning._words(meaning.plain(b))
        about = meaning._about_alike(
            {t for t, w in wa.items() if not figures(w)},
            {t for t, w in wb.items() if not figures(w)},
        )
        assert got.about_alike == about

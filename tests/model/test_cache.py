"""digest.model.cache: the bounded, thread-safe memory of model answers in one process, and
the keys its callers store answers under. (What reflection does with a remembered verdict is
tested in tests/reflect/test_judge.py.)"""

from __future__ import annotations

import threading
from concurrent.futures import ThreadPoolExecutor

import pytest

from digest.model.cache import AnswerCache, answer_key


def test_answer_cache_is_a_bounded_lru() -> None:
    cache: AnswerCache[str] = AnswerCache()
    cache.put("a", "1", size=2)
    cache.put("b", "2", size=2)
    assert cache.get("a") == "1"  # "a" is now the most recent
    cache.put("c", "3", size=2)
    assert cache.get("b") is None
    assert (cache.get("a"), cache.get("c"), len(cache)) == ("1", "3", 2)
    cache.put("d", "4", size=0)  # size 0: remember nothing
    assert cache.get("d") is None


def test_concurrent_asks_for_one_key_compute_once() -> None:
    cache: AnswerCache[str] = AnswerCache()
    started, release = threading.Event(), threading.Event()
    calls: list[str] = []

    def slow() -> str:
        calls.append("slow")
        started.set()
        release.wait()
        return "answer"

    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(cache.get_or_compute, "k", slow, 10)
        started.wait()
        others = [pool.submit(cache.get_or_compute, "k", lambda: "never", 10) for _ in range(3)]
        release.set()
        results = [first.result(), *(f.result() for f in others)]
    assert calls == ["slow"]
    assert results == [("answer", False)] + [("answer", True)] * 3


def test_a_failed_computation_lets_a_waiter_compute_for_itself() -> None:
    cache: AnswerCache[str] = AnswerCache()
    started, release = threading.Event(), threading.Event()

    def failing() -> str:
        started.set()
        release.wait()
        raise RuntimeError("model down")

    with ThreadPoolExecutor(2) as pool:
        first = pool.submit(cache.get_or_compute, "k", failing, 10)
        started.wait()
        second = pool.submit(cache.get_or_compute, "k", lambda: "second", 10)
        release.set()
        with pytest.raises(RuntimeError):
            first.result()
        assert second.result() == ("second", False)
    assert cache.get("k") == "second"


def test_without_a_cache_every_ask_computes() -> None:
    cache: AnswerCache[str] = AnswerCache()
    calls: list[int] = []
    for n in range(2):
        assert cache.get_or_compute("k", lambda n=n: calls.append(n) or "v", 0) == ("v", False)
    assert calls == [0, 1] and len(cache) == 0


def test_answer_key_depends_on_every_part() -> None:
    base = answer_key("reflect", 1, "bot", {"task": "x"})
    assert base == answer_key("reflect", 1, "bot", {"task": "x"})
    assert base != answer_key("reflect", 2, "bot", {"task": "x"})
    assert base != answer_key("reflect", 1, "bot", {"task": "y"})


def test_hits_are_counted_and_clear_forgets_everything() -> None:
    cache: AnswerCache[str] = AnswerCache()
    cache.put("a", "1", size=5)
    assert cache.get_or_compute("a", lambda: "never", 5) == ("1", True)
    assert cache.get("a") == "1" and cache.hits == 2
    assert cache.get("missing") is None and cache.hits == 2
    cache.clear()
    assert (len(cache), cache.hits, cache.get("a")) == (0, 0, None)
    assert cache.get_or_compute("a", lambda: "2", 5) == ("2", False)


def test_answer_key_is_stable_for_equal_mappings_and_any_value() -> None:
    assert answer_key({"b": 1, "a": 2}) == answer_key({"a": 2, "b": 1})
    assert len(answer_key(object())) == 32  # anything unserialisable is keyed by its str()


def test_a_key_is_the_raw_digest_and_weighs_less_than_its_hex() -> None:
    """Keys are sha256's 32 raw bytes: an entry's key weighs 65 bytes, its hex string 113."""
    key = answer_key("reflect", 1, "bot", {"task": "x"})
    assert isinstance(key, bytes) and len(key) == 32
    one_hex: AnswerCache[int] = AnswerCache()
    one_raw: AnswerCache[int] = AnswerCache()
    one_hex.put(key.hex(), 7, size=10)
    one_raw.put(key, 7, size=10)
    assert one_raw.get(key) == 7
    assert one_hex.nbytes - one_raw.nbytes == 48

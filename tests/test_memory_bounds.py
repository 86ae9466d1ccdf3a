"""Every memory a process of ``digest`` or ``worker`` keeps in a function's cache is bounded
(issue 27: a worker whose memory shows no growth trend). A ``memo`` by entries and bytes, an
``lru_cache`` by entries; an unbounded ``functools.cache`` only on a function of no argument
(one value) or of arguments from a fixed set named here. What the byte bounds add up to is the
figure docs/internals.md gives ("What a worker's memory holds")."""

from __future__ import annotations

import importlib
import inspect
import os
import pkgutil
from collections.abc import Iterator
from types import ModuleType
from typing import Any

import digest
import worker
from digest.bounded import BytesLRU

#: caches without a bound whose arguments come from a fixed, small set
FINITE_ARGUMENTS = {
    "digest.lessons.plain_rows._form": "the ORM's table classes",
    "digest.capture.store._event_statements": "SQLAlchemy dialect names",
}
#: MiB the byte bounds of every module-level memo add up to (docs/internals.md); of which
#: on the agent's turn only (rendered run texts and those logged unrendered, parsed questions
#: and answers), never filled
#: by a worker's reflection
MODULE_MEMOS_MIB, AGENT_TURN_MIB = 42.625, 33.0
AGENT_TURN = (
    "digest.agent_text._run_text",
    "digest.agent_text._UNRENDERED_LOGGED",
    "digest.questions.same.question_fact",
    "digest.questions.same.lesson_fact_of",
    "digest.questions.same._keys",
)


def _modules() -> Iterator[ModuleType]:
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")  # no fetch on import
    for package in (digest, worker):
        for found in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
            if not found.name.endswith("__main__"):  # the CLI's entry: runs when imported
                yield importlib.import_module(found.name)


def _caches() -> dict[str, Any]:
    kept: dict[str, Any] = {}
    for module in _modules():
        for attr, value in vars(module).items():
            name = f"{module.__name__}.{attr}"
            if isinstance(value, BytesLRU):  # an instance: its class's module is bounded's
                kept.setdefault(name, value)
            elif getattr(value, "__module__", module.__name__) != module.__name__:
                continue  # imported: checked where it is defined
            elif hasattr(value, "memo_info") or (
                hasattr(value, "cache_info") and hasattr(value, "cache_parameters")
            ):
                kept[name] = value
    return kept


def test_every_cache_of_a_function_is_bounded() -> None:
    caches = _caches()
    assert "digest.reflect.screen._reason" in caches and "digest.redact._secret_named" in caches
    assert "digest.agent_text._UNRENDERED_LOGGED" in caches  # a BytesLRU at module level
    unbounded = []
    for name, cache in caches.items():
        if hasattr(cache, "memo_info"):
            info = cache.memo_info()
            if not (info.max_entries > 0 and 0 < info.max_bytes <= 16 * 2**20):
                unbounded.append(f"{name}: {info}")
        elif isinstance(cache, BytesLRU):
            if not 0 < cache.max_bytes <= 16 * 2**20:
                unbounded.append(f"{name}: {cache.max_bytes} bytes")
        elif cache.cache_parameters()["maxsize"] is None:
            arguments = inspect.signature(cache).parameters
            if arguments and name not in FINITE_ARGUMENTS:
                unbounded.append(f"{name}: functools.cache of {list(arguments)}")
    assert unbounded == []


def test_the_module_memos_byte_bounds_add_up_to_the_documented_figure() -> None:
    caches = _caches()
    bounds = {
        name: cache.memo_info().max_bytes if hasattr(cache, "memo_info") else cache.max_bytes
        for name, cache in caches.items()
        if hasattr(cache, "memo_info") or isinstance(cache, BytesLRU)
    }
    assert sum(bounds.values()) / 2**20 == MODULE_MEMOS_MIB
    assert sum(bounds[name] for name in AGENT_TURN) / 2**20 == AGENT_TURN_MIB

"""digest.runtime: the process's state is pieces of one object, made on first use, and one
reset forgets them all (closing those that hold resources); a forked worker child resets it."""

from __future__ import annotations

import asyncio
import hashlib
import subprocess
import sys
import threading
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from digest import db, fewshot
from digest.capture import aio as capture_aio
from digest.capture import store
from digest.config import Settings, get_settings
from digest.errors import EmbeddingFileError, LLMError
from digest.identity import embedding
from digest.lessons import neighbours
from digest.model import limits, prompts, scripted
from digest.outbox import aio as publish_aio
from digest.outbox import publish
from digest.reflect import ask, repeats, verdict
from digest.runtime import Runtime, runtime
from digest.versions.replay import facts

BROKER = "redis://127.0.0.1:1/0"  # never connected to: clients connect on first command


class Closing:
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


class Broken(Closing):
    def close(self) -> None:
        super().close()
        raise RuntimeError("cannot close")


class Other(Closing):
    pass


def test_a_piece_is_made_once_per_factory() -> None:
    here = Runtime()
    assert here.peek(Closing) is None and len(here) == 0
    made = here.piece(Closing)
    assert here.piece(Closing) is made and here.peek(Closing) is made
    other = here.piece(Other)
    assert other is not made and here.piece(Other) is other
    assert len(here) == 2 and "test_runtime.Other" in repr(here)


def test_drop_closes_one_piece_and_the_next_use_makes_another() -> None:
    here = Runtime()
    first, kept = here.piece(Closing), here.piece(Other)
    here.drop(Closing)
    here.drop(Closing)  # nothing left to drop
    assert first.closed == 1 and kept.closed == 0
    assert here.piece(Closing) is not first and here.piece(Other) is kept


def test_reset_closes_every_piece_even_if_one_fails() -> None:
    here = Runtime()
    pieces = [here.piece(Closing), here.piece(Broken), here.piece(Other)]
    here.piece(dict)  # a piece without close() is only forgotten
    with pytest.raises(RuntimeError, match="cannot close"):
        here.reset()
    assert [p.closed for p in pieces] == [1, 1, 1]
    assert len(here) == 0 and here.piece(Closing) is not pieces[0]


def test_a_factory_that_fails_leaves_nothing_behind() -> None:
    here = Runtime()

    def failing() -> Closing:
        raise ValueError("no")

    with pytest.raises(ValueError):
        here.piece(failing)
    assert here.peek(failing) is None and len(here) == 0


def test_the_runtime_module_imports_nothing_heavy() -> None:
    code = (
        "import sys, digest.runtime, digest.config; "
        "heavy = {'litellm', 'onnxruntime', 'numpy', 'redis', 'sqlalchemy'} & set(sys.modules); "
        "print(sorted(heavy))"
    )
    found = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert found.returncode == 0, found.stderr
    assert found.stdout.strip() == "[]"


# --- every piece of the process's state -----------------------------------------------------


class CountingEmbedder:
    name = "test/counting"

    def __init__(self) -> None:
        self.calls = 0

    def embed(self, texts: Sequence[str]) -> list[np.ndarray]:
        self.calls += 1
        return [np.ones(4, dtype=np.float32) / 2 for _ in texts]


def _an_engine(tmp_path: Path) -> Any:
    return db.get_engine(f"sqlite:///{tmp_path / 'runtime.db'}")


def _a_publisher_client(tmp_path: Path) -> Any:
    return publish._client(Settings(broker_url=BROKER))


def _a_publisher_script(tmp_path: Path) -> Any:
    return publish._publish_if_free(Settings(broker_url=BROKER))


def _a_limiter_script(tmp_path: Path) -> Any:
    return limits._script(BROKER, limits._END)


def _a_local_limit(tmp_path: Path) -> Any:
    return limits._limit_for("offline/rules", Settings(broker_url=None, llm_max_concurrency=2))


def _an_embedder(tmp_path: Path) -> Any:
    return embedding.get_embedder(Settings(embedding_model="local"))


#: each makes (or finds) one piece of process state through its domain's own API
PIECES: dict[str, Callable[[Path], Any]] = {
    "settings": lambda tmp_path: get_settings(),
    "engine": _an_engine,
    "session factory": lambda tmp_path: db.session_factory(f"sqlite:///{tmp_path / 'r.db'}"),
    "broker client": _a_publisher_client,
    "broker script": _a_publisher_script,
    "limiter script": _a_limiter_script,
    "in-process limit": _a_local_limit,
    "prompt": lambda tmp_path: prompts.load_prompt("reflect"),
    "judgements": lambda tmp_path: runtime().piece(verdict.judgements_memory),
    "reconcile answers": lambda tmp_path: runtime().piece(ask.reconcile_answers),
    "known texts": lambda tmp_path: runtime().piece(repeats.known_texts),
    "embedder": _an_embedder,
    "neighbour indexes": lambda tmp_path: runtime().piece(neighbours._Banks),
    "examples": lambda tmp_path: runtime().piece(fewshot._Kept),
    "replayed events": lambda tmp_path: runtime().piece(facts._Kept),
}


@pytest.mark.parametrize("name", PIECES)
def test_reset_makes_every_piece_anew(name: str, tmp_path: Path) -> None:
    make = PIECES[name]
    before = make(tmp_path)
    assert make(tmp_path) is before  # kept while the process runs
    runtime().reset()
    assert len(runtime()) == 0
    assert make(tmp_path) is not before


def test_reset_forgets_the_asyncio_broker_clients_of_a_loop() -> None:
    settings = Settings(broker_url=BROKER)

    async def check() -> None:
        client, _ = publish_aio._client(settings)
        assert publish_aio._client(settings)[0] is client
        runtime().reset()
        assert publish_aio._client(settings)[0] is not client

    asyncio.run(check())


def test_reset_forgets_the_asyncio_engines_of_a_loop() -> None:
    url = "postgresql+psycopg://nobody@127.0.0.1:1/none"  # engines connect on first use

    async def check() -> None:
        engine = capture_aio._engine(url)
        assert capture_aio._engine(url) is engine
        runtime().reset()
        assert capture_aio._engine(url) is not engine

    asyncio.run(check())


def test_reset_forgets_agent_ids() -> None:
    store.remember_agent_ids(("sqlite://", "acme", "bot"), 1, 2)
    assert store.cached_agent_ids("sqlite://", "acme", "bot") == (1, 2)
    runtime().reset()
    assert store.cached_agent_ids("sqlite://", "acme", "bot") is None


def test_reset_forgets_scripted_models() -> None:
    model = scripted.scripted_model(scripted.rules).register()
    runtime().reset()
    with pytest.raises(LLMError, match="no handler"):
        scripted.answer(model.name, [])


def test_reset_ends_the_publish_back_off_window() -> None:
    settings = Settings(broker_url=BROKER)
    publish.publish_failed("digest.relay_pending", [], OSError("down"), settings)
    assert publish.publishing_suppressed()
    runtime().reset()
    assert not publish.publishing_suppressed()


def test_reset_forgets_the_threads_workers_pool_size(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("DIGEST_DB_POOL_SIZE", raising=False)
    db.follow_concurrency(32)
    assert db.pool_size() == 32
    runtime().reset()
    assert db.pool_size() == 5


def test_reset_disposes_engines_without_closing_their_connections(tmp_path: Path) -> None:
    engine = _an_engine(tmp_path)
    disposed: list[bool] = []
    engine.dispose = lambda close=True: disposed.append(close)  # type: ignore[method-assign]
    runtime().reset()
    assert disposed == [False]  # a forked child gives up its parent's sockets


def test_reset_takes_no_lock_a_thread_of_the_parent_may_have_held(tmp_path: Path) -> None:
    _an_engine(tmp_path)
    engines = runtime().piece(db.Engines)
    with engines.lock:  # held by a thread that does not exist in a forked child
        resetting = threading.Thread(target=runtime().reset, daemon=True)
        resetting.start()
        resetting.join(5)
        assert not resetting.is_alive()
    assert len(runtime()) == 0


def test_reset_reads_the_settings_again(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DIGEST_QUEUE", "first")
    assert get_settings().queue == "first"
    monkeypatch.setenv("DIGEST_QUEUE", "second")
    assert get_settings().queue == "first"
    runtime().reset()
    assert get_settings().queue == "second"


def test_reset_forgets_vectors_and_checked_files(tmp_path: Path) -> None:
    counting = CountingEmbedder()
    embedding.embed_many(counting, ["refunds need a receipt"])
    embedding.embed_many(counting, ["refunds need a receipt"])
    assert counting.calls == 1
    model = tmp_path / "model.onnx"
    model.write_bytes(b"weights")
    embedding.verify_file(model, hashlib.sha256(b"weights").hexdigest())
    model.write_bytes(b"changed")
    embedding.verify_file(model, hashlib.sha256(b"weights").hexdigest())  # checked once

    runtime().reset()
    embedding.embed_many(counting, ["refunds need a receipt"])
    assert counting.calls == 2
    with pytest.raises(EmbeddingFileError, match="sha256"):
        embedding.verify_file(model, hashlib.sha256(b"weights").hexdigest())


# --- the worker's fork hook -------------------------------------------------------------------


def test_a_forked_worker_child_resets_the_runtime(monkeypatch: pytest.MonkeyPatch) -> None:
    from celery import signals

    import worker  # noqa: F401  (connects the worker's signal handlers)
    from digest.model import seam

    # litellm's import, and the settings read to decide on it, are not the point
    monkeypatch.setattr(seam, "warm_up_for", lambda settings=None: False)
    engine = db.get_engine("sqlite://")
    get_settings()
    assert len(runtime()) >= 2
    # What Celery's prefork pool sends in each child it forks.
    signals.worker_process_init.send(sender=None)
    assert len(runtime()) == 0
    assert db.get_engine("sqlite://") is not engine

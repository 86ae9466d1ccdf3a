"""Lesson embeddings as stored: which model and text a vector belongs to, and computing them
without ever failing a write (issue 13).

A vector is stored with a key naming the embedding model and the exact text it embeds
(``vector_key``). A lesson whose text changed (an UPDATE, an owner's edit), or a bank read
under another model, has a stale key: its vector is recomputed when the agent's index is
built and written back by ``digest lesson reindex``.

Beside its text's vector, a lesson learned from runs keeps what their tasks meant (its cue
vectors, ``add_task_meaning``; issue 24 point 5): retrieval only, never text.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np

from digest.config import Settings, get_settings
from digest.errors import MissingExtra
from digest.identity.embedding import Embedder, embed_many, from_bytes, get_embedder, to_bytes
from digest.lessons.cues import event_cues, task_meaning
from digest.logs import get_logger
from digest.runtime import runtime
from digest.text import lesson_text

log = get_logger("digest.identity")


def vector_key(model: str, text: str) -> str:
    return hashlib.sha256(f"{model}\x1f{text}".encode()).hexdigest()[:40]


class _Told:
    """The missing extras this process has logged already."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.extras: set[str] = set()


def embedder(settings: Settings | None = None) -> Embedder | None:
    """The configured embedder, or None (``none``, or it cannot be loaded: logged, and the
    neighbours are lexical only until it can). A model whose extra is not installed (an
    agent's base install with the default ``local``) is logged once per process, as a
    warning that says what to install."""
    try:
        return get_embedder(settings or get_settings())
    except MissingExtra as exc:
        told = runtime().piece(_Told)
        with told.lock:
            first = exc.extra not in told.extras
            told.extras.add(exc.extra)
        if first:
            log.warning("embedder_not_installed", error=str(exc), neighbours="lexical only")
        return None
    except Exception as exc:
        log.error("embedder_unavailable", error=f"{type(exc).__name__}: {exc}"[:300])
        return None


def vectors_for(found: Embedder | None, texts: Sequence[str]) -> list[np.ndarray] | None:
    """Vectors of ``texts``, or None when there is no embedder or it failed (logged): a
    neighbour search then goes on lexical only, a write stores no vector."""
    if found is None or not texts:
        return None
    try:
        return embed_many(found, list(texts))
    except Exception as exc:
        log.error("embedding_failed", model=found.name, error=f"{type(exc).__name__}: {exc}"[:300])
        return None


def stored_vector(situation: str, correction: str) -> tuple[bytes | None, str | None]:
    """(embedding bytes, key) for a lesson's text, from the process's cache when the search
    before the write embedded it already; (None, None) without an embedder."""
    found = embedder()
    text = lesson_text(situation, correction)
    vectors = vectors_for(found, [text])
    if found is None or vectors is None:
        return None, None
    return to_bytes(vectors[0]), vector_key(found.name, text)


# --- what the tasks a lesson was learned from meant ----------------------------------------------
# Words find a later task that says the same words; "my plate arrived cracked, money back"
# says none of "the mug arrived broken, refund please". Each run that teaches or supports a
# lesson adds the embedding of its task's telling words (``digest.lessons.cues``) to the
# lesson's ``cue_embedding``: at most ``TASK_SLOTS`` sums of unit vectors, one per kind of task
# (a task joins the slot it is closest to when that is at least ``SAME_KIND`` close, or when
# every slot is taken), each normalised when read. Pitfalls compares a prompt's embedding with
# the closest of them as well as with the lesson's text.

#: kinds of task a lesson keeps the meaning of, at most
TASK_SLOTS = 4
#: a task this close (cosine) to a slot's kind is of that kind
SAME_KIND = 0.8


def cue_vector_key(model: str) -> str:
    """The key a lesson's cue vectors are stored with: vectors of another model are not added
    to them."""
    return vector_key(model, "\x1fcues")


def warm(kind: str, payload: dict[str, Any] | None) -> None:
    """Embed an event's cues now, before the write's transaction opens (the process keeps
    the vector; ``add_task_meaning`` finds it there)."""
    _event_vector(kind, payload)


def _event_vector(kind: str, payload: dict[str, Any] | None) -> tuple[np.ndarray, str] | None:
    if not event_cues(kind, payload):
        return None
    text = task_meaning(str((payload or {}).get("task") or ""))
    if not text:  # a task that names only ids ("D-4410 won"): its cues are their kinds
        return None
    found = embedder()
    vectors = vectors_for(found, [text]) if found is not None else None
    if found is None or not vectors:
        return None
    return vectors[0].astype(np.float32), cue_vector_key(found.name)


def _unit_rows(slots: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(slots, axis=1, keepdims=True)
    return (slots / np.where(norms > 0, norms, 1.0)).astype(np.float32)


def add_task_meaning(lessons: Iterable[Any], kind: str, payload: dict[str, Any] | None) -> None:
    """Add what an event's task meant to each lesson it taught or supported (``Lesson`` rows,
    in the write's transaction, once per event): to the slot of its kind, or a new slot
    (vectors under another model start again). From the process's cache when ``warm`` ran
    before the transaction; nothing without an embedder or a task."""
    found = _event_vector(kind, payload)
    if found is None:
        return
    vector, key = found
    for lesson in lessons:
        slots = np.zeros((0, vector.shape[0]), np.float32)
        if lesson.cue_embedding is not None and lesson.cue_embedding_key == key:
            slots = from_bytes(lesson.cue_embedding).reshape(-1, vector.shape[0]).copy()
        closeness = _unit_rows(slots) @ vector
        nearest = int(np.argmax(closeness)) if len(slots) else -1
        if nearest >= 0 and (closeness[nearest] >= SAME_KIND or len(slots) >= TASK_SLOTS):
            slots[nearest] += vector
        else:
            slots = np.vstack([slots, vector])
        lesson.cue_embedding, lesson.cue_embedding_key = to_bytes(slots.ravel()), key


def cue_vectors(
    cue_sums: bytes | None, cue_key: str | None, model: str | None, dim: int
) -> np.ndarray | None:
    """A lesson's cue vectors as the index compares them (one unit row per kind of task), or
    None when it has none under ``model`` (of ``dim`` dimensions)."""
    if cue_sums is None or model is None or cue_key != cue_vector_key(model) or dim < 1:
        return None
    flat = from_bytes(cue_sums)
    if flat.size == 0 or flat.size % dim:
        return None
    return _unit_rows(flat.reshape(-1, dim))

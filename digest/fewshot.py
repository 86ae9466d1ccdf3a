"""Few-shot examples from operator edits (issue 16, point 4): ``digest.examples``.

``examples(tenant, agent, prompt, k=2)`` returns the (draft, final) pairs of the agent's
accepted edits most relevant to ``prompt``, for the agent to show its model as examples of how
its operators want replies written. Retrieval only: no model call, nothing written.

**Accepted.** An operator's edit is a person's answer, so trusted (DESIGN §8); it is accepted
while what it taught stands: the edit was reflected, and an active, unexpired lesson of this
agent that the release rule lets an agent read (``digest.lessons.release``) still cites it
(the lesson it added, or the one it supported). So an edit leaves the
examples with the lesson: when the owner deletes or disables it, when a later edit contradicts
it (the old lesson is superseded), when it expires. An edit still waiting for reflection is
not an example yet, an edit the trigger policy skipped (a near-identical final) is none, and a
rejected draft (``final=None``) has no final to show.

**Screened like any trusted text that reaches the agent.** The draft and the final are read by
the injection screen (``digest.reflect.screen.injection_reason``, every view of the text: folded
look-alikes, invisible characters removed, decoded encodings): an edit either of them flags is
never returned. What is returned has secrets masked (``digest.redact``) and control, bidi and
invisible format characters removed (newlines and tabs kept). The edit's ``context`` (often
the customer's words: untrusted) is never returned; it only helps ranking.

**The draft is run text.** The operator's final is a person's words. The draft is the agent's,
written from the customer's words, which may have spoken to the model through it: it is
shown as ``digest.agent_text.safe_draft`` lets an agent read it (an example whose draft
addresses its reader, by a role marker, an AI's name, an order to "you" or a takeover, is
never returned; addresses, URLs and secrets in it are masked).

**Scoping, as ``pitfalls``.** The tenant's agent only (tenant and agent keys as in
``pitfalls``), its active unexpired agent-wide lessons, plus that contact's own lessons with
``contact_id``. Stricter than ``pitfalls`` in one way: an edit made in a contact's conversation
(captured with a ``contact_id``) quotes that conversation, so it is an example only for that
same contact, even once its lesson is promoted to the whole agent.

**Relevance** is ``pitfalls``'s: the prompt's keywords (``digest.retrieve.prompt_keywords``)
and, with an embedding model, its vector, ranked by ``AgentIndex.rank_for_prompt``
(``digest.identity.index``) over each edit's context, final and draft; ties go to the newest
edit. The newest ``MAX_CANDIDATES`` accepted edits are searched.

**Randomized holdout, as ``pitfalls``.** With ``turn_id`` (the agent's id for the turn, given
again to ``record_run``), an example is withheld on the turns where a lesson citing it is
withheld (``digest.lessons.holdout``: the same draw per agent, turn and lesson as
``pitfalls``, so a lesson held out of a turn is held out of both), and the next one takes its
place; the exposures are recorded off the turn. Without ``turn_id`` nothing is withheld.

**Best effort, as ``pitfalls``.** Any fault (database down, schema missing, a bad argument) is
logged and returns ``[]``; an unknown tenant or agent returns ``[]``. An agent's turn never
fails because of its examples.

Cost: per call two indexed reads (the agent, the accepted edits' ids) and the ranking. Each
edit's text is read, screened and cleaned once per process (events never change), and the
index is rebuilt only when the set of accepted edits changes.
"""

from __future__ import annotations

import re
import threading
from collections import OrderedDict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import or_, select
from sqlalchemy.orm import Session

from digest.agent_text import safe_draft
from digest.config import get_settings
from digest.db import read_scope
from digest.identity.embedding import Embedder, cosine_scale
from digest.identity.index import AgentIndex, Entry
from digest.lessons.holdout import share_for, withhold
from digest.lessons.release import Gate, released_clause
from digest.lessons.turn import accepted_for_turn
from digest.lessons.vectors import embedder, vectors_for
from digest.logs import get_logger
from digest.models import Event, Lesson, LessonEvidence, as_utc, utcnow
from digest.redact import driver_line, redact
from digest.reflect.screen import injection_reason
from digest.retrieve import prompt_keywords
from digest.runtime import runtime

log = get_logger("digest.fewshot")

#: ``k`` is capped here: each example is up to two 4 KB texts in the agent's context
MAX_K = 10
#: the newest accepted edits searched, at most
MAX_CANDIDATES = 500
#: edits (read, screened, cleaned) and agent indexes kept per process
EDITS_KEPT = 4096
INDEXES_KEPT = 64


@dataclass(frozen=True)
class Example:
    """One accepted operator edit: the agent's ``draft`` and the ``final`` the operator sent
    instead, screened and cleaned; ``event_id`` is the ``record_edit`` event."""

    draft: str
    final: str
    event_id: int
    created_at: datetime


def examples(
    tenant: str,
    agent: str,
    prompt: str,
    k: int = 2,
    *,
    contact_id: str | None = None,
    turn_id: str | None = None,
) -> list[Example]:
    """The ``k`` accepted operator edits of this agent most relevant to ``prompt``, best first
    (at most ``MAX_K``); ``[]`` when nothing matches, for an unknown tenant or agent, and on
    any fault, which is logged. See the module docstring for what "accepted" means and how the
    texts are screened, and for ``turn_id`` (the randomized holdout)."""
    problem = _bad_argument(tenant, agent, prompt, k, contact_id, turn_id)
    if problem is not None:
        log.error("examples_bad_argument", problem=problem)
        return []
    if k < 1:
        return []
    try:
        return _examples(tenant, agent, prompt, min(k, MAX_K), contact_id, turn_id)
    except Exception as exc:
        error = f"{type(exc).__name__}: {driver_line(exc)}"
        log.error("examples_failed", tenant=tenant, agent=agent, error=error)
        return []


def _bad_argument(
    tenant: object, agent: object, prompt: object, k: object, contact_id: object, turn_id: object
) -> str | None:
    for name, value in (("tenant", tenant), ("agent", agent), ("prompt", prompt)):
        if not isinstance(value, str):
            return f"{name} must be a str, not {type(value).__name__}"
    for name, value in (("contact_id", contact_id), ("turn_id", turn_id)):
        if value is not None and not isinstance(value, str):
            return f"{name} must be a str or None, not {type(value).__name__}"
    if isinstance(k, bool) or not isinstance(k, int):
        return f"k must be an int, not {type(k).__name__}"
    return None


def _examples(
    tenant: str, agent: str, prompt: str, k: int, contact_id: str | None, turn_id: str | None
) -> list[Example]:
    settings = get_settings()
    words = prompt_keywords(prompt)
    found = embedder(settings)
    if not words and (found is None or not prompt.strip()):
        return []  # nothing to rank by: no need to read anything
    with read_scope(settings.database_url) as session:
        read = accepted_for_turn(session, tenant, agent, contact_id, settings, MAX_CANDIDATES)
        if read is None:
            return []
        agent_id, tenant_row, gate, ids = read
        share = share_for(tenant_row.settings, settings.holdout_share) if turn_id else 0.0
        if not ids:
            return []
        url = session.get_bind().engine.url.render_as_string(hide_password=True)
        model = found.name if found is not None else None
        key = (url, agent_id, contact_id, model)
        index = _kept_index(key, ids)
        if index is None:
            index, complete = _build_index(_edits(session, url, ids), found)
            if complete:  # (a failed embedding is tried again on the next call)
                _keep_index(key, ids, index)
    vector = None
    if found is not None and prompt.strip():
        vectors = vectors_for(found, [prompt])
        vector = vectors[0] if vectors else None
    if not words and vector is None:
        return []
    if share <= 0 or turn_id is None:
        return [entry.meta for entry, _score in index.rank_for_prompt(words, vector, k)]
    # randomized holdout: an example goes with the lessons that cite it (digest.lessons.holdout)
    ranked = [entry.meta for entry, _score in index.rank_for_prompt(words, vector, MAX_K * 3)]
    return Holdout(settings, agent_id, turn_id, share, gate).keep(ranked, k)


@dataclass
class Holdout:
    """The examples of one turn with a ``turn_id``: an example is withheld when a lesson that
    cites it is withheld on this turn (the same keyed draw per agent, turn and lesson as
    ``pitfalls``, so both agree), and each citing lesson's exposure is recorded once, off the
    turn, for the examples the agent would have seen (the best ``k`` still shown, and the
    withheld ones ranked before them)."""

    settings: Any
    agent_id: int
    turn_id: str
    share: float
    gate: Gate

    def keep(self, ranked: list[Example], k: int) -> list[Example]:
        citing = self._citing([example.event_id for example in ranked])
        drawn: dict[int, bool] = {}
        shown: list[Example] = []
        for example in ranked:
            rows = [row for row in citing.get(example.event_id, ()) if row.id not in drawn]
            if rows:
                kept = withhold(
                    self.settings.database_url, self.agent_id, self.turn_id, rows,
                    share=self.share, exclude_trusted=self.settings.holdout_exclude_trusted,
                )  # fmt: skip
                kept_ids = {row.id for row in kept}
                drawn.update((row.id, row.id in kept_ids) for row in rows)
            if all(drawn[row.id] for row in citing.get(example.event_id, ())):
                shown.append(example)
                if len(shown) == k:
                    break
        return shown

    def _citing(self, event_ids: list[int]) -> dict[int, list[Any]]:
        """Event id → the standing, released lessons of this agent that cite it."""
        now = utcnow()
        found: dict[int, list[Any]] = {}
        if not event_ids:
            return found
        with read_scope(self.settings.database_url) as session:
            for row in session.execute(
                select(LessonEvidence.event_id, Lesson.id, Lesson.trust)
                .join(Lesson, Lesson.id == LessonEvidence.lesson_id)
                .where(
                    LessonEvidence.event_id.in_(event_ids),
                    Lesson.agent_id == self.agent_id,
                    Lesson.status == "active",
                    or_(Lesson.expires_at.is_(None), Lesson.expires_at > now),
                    released_clause(self.gate),
                )
                .order_by(Lesson.id)
            ):
                found.setdefault(row.event_id, []).append(row)
        return found


# --- the edits, read, screened and cleaned once per process ----------------------------------


@dataclass(frozen=True)
class _Edit:
    example: Example
    #: what ranking reads: the context (not returned), the final and the draft
    text: str


class _Kept:
    """The edits and indexes this process keeps (a piece of its runtime), least recent first."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        #: (database, event id) → the edit, or None: not an example (screened out, or no final)
        self.edits: OrderedDict[tuple[str, int], _Edit | None] = OrderedDict()
        #: (database, agent id, contact id, embedding model) → (the accepted ids, their index)
        self.indexes: OrderedDict[tuple[Any, ...], tuple[tuple[int, ...], AgentIndex]] = (
            OrderedDict()
        )


def forget() -> None:
    """Drop what this process keeps (tests; a bulk change made behind its back)."""
    runtime().drop(_Kept)


def _kept_index(key: tuple[Any, ...], ids: tuple[int, ...]) -> AgentIndex | None:
    kept = runtime().piece(_Kept)
    with kept.lock:
        found = kept.indexes.get(key)
        if found is None or found[0] != ids:
            return None
        kept.indexes.move_to_end(key)
        return found[1]


def _keep_index(key: tuple[Any, ...], ids: tuple[int, ...], index: AgentIndex) -> None:
    kept = runtime().piece(_Kept)
    with kept.lock:
        kept.indexes[key] = (ids, index)
        kept.indexes.move_to_end(key)
        while len(kept.indexes) > INDEXES_KEPT:
            kept.indexes.popitem(last=False)


def _edits(session: Session, url: str, ids: Sequence[int]) -> list[_Edit]:
    """The accepted edits that are examples, oldest first: from this process's memory, the
    ones it has not seen yet read (and screened) now."""
    kept = runtime().piece(_Kept)
    with kept.lock:
        known = {i: kept.edits[(url, i)] for i in ids if (url, i) in kept.edits}
    missing = [i for i in ids if i not in known]
    if missing:
        rows = session.execute(
            select(Event.id, Event.payload, Event.created_at).where(Event.id.in_(missing))
        ).all()
        read = {row.id: _edit(row.id, row.payload, row.created_at) for row in rows}
        with kept.lock:
            for event_id, edit in read.items():
                kept.edits[(url, event_id)] = edit
            while len(kept.edits) > EDITS_KEPT:
                kept.edits.popitem(last=False)
        known.update(read)
    return [edit for i in ids if (edit := known.get(i)) is not None]


def _edit(event_id: int, payload: Any, created_at: datetime) -> _Edit | None:
    """An operator edit as an example, or None: a rejected draft, or a text the screen flags."""
    if not isinstance(payload, dict):
        return None
    draft, final = payload.get("original"), payload.get("final")
    if not isinstance(draft, str) or not isinstance(final, str):
        return None  # final None: the draft was rejected outright
    for field, text in (("original", draft), ("final", final)):
        why = injection_reason(text)
        if why is not None:
            log.warning("example_screened_out", event_id=event_id, field=field, reason=why)
            return None
    draft_shown = safe_draft(shown(draft))
    if draft_shown is None:
        log.warning(
            "example_screened_out",
            event_id=event_id,
            field="original",
            reason="addresses its reader",
        )
        return None
    context = payload.get("context")
    example = Example(
        draft=draft_shown, final=shown(final), event_id=event_id, created_at=as_utc(created_at)
    )
    ranked = [context if isinstance(context, str) else "", example.final, example.draft]
    return _Edit(example, "\n".join(part for part in ranked if part))


#: C0 and C1 controls but newline and tab; bidi marks, embeddings, overrides and isolates;
#: invisible formatting (soft hyphen, zero-width space, word joiner, invisible operators, BOM,
#: interlinear annotation) and the tag characters that can spell hidden ASCII. Zero-width
#: (non-)joiners stay: scripts and emoji need them.
_INVISIBLE = re.compile(
    "[\x00-\x08\x0b-\x1f\x7f-\x9f\u00ad\u061c\u180e\u200b\u200e\u200f\u202a-\u202e"
    "\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000e0000-\U000e007f]"
)


def shown(text: str) -> str:
    """Text as an example shows it: invisible and control characters removed (``\\r\\n``
    becomes ``\\n``), secrets masked."""
    return redact(_INVISIBLE.sub("", text))


def _build_index(edits: list[_Edit], found: Embedder | None) -> tuple[AgentIndex, bool]:
    """The edits as index entries (oldest first: ties in a ranking go to the newest), with
    their vectors when there is an embedding model; and whether it has every vector it should
    (the embedding model may fail: the ranking is then lexical, this once)."""
    vectors = vectors_for(found, [edit.text for edit in edits]) if edits else None
    index = AgentIndex(
        [
            Entry(
                edit.example.event_id,
                edit.text,
                vector=vectors[i] if vectors is not None else None,
                meta=edit.example,
            )
            for i, edit in enumerate(edits)
        ],
        cosine_scale(found),
    )
    return index, found is None or not edits or vectors is not None

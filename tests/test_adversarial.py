"""The adversarial security suite of issue 12, end to end (corpus and runner: tests/adversarial/).

Every attack of the corpus must stay out of every pitfalls block, every learning version and
every active lesson; no trusted lesson may change; at most 5% of the benign controls may be
quarantined. The suite runs on the embedded default (SQLite, in process) with the offline
judge and with a scripted obedient model, and on PostgreSQL through a real Celery worker, with
the offline judge and with the obedient model served over HTTP (litellm's real-provider path).

The worker runs take a representative sample of the corpus (``cases.sample``: every class,
technique, language, place, corpus and reconcile answer, and every fifth benign control); the
embedded runs take all of it. ``DIGEST_SECURITY_WORKER_CORPUS=full`` runs the whole corpus
through the worker too (what the path adds is the worker, not the cases; ``bench/security.py``
runs every split and campaigns in process).

Each run prints its summary line, and appends it to the file named by
``DIGEST_SECURITY_SUMMARY`` when that is set (so CI can show it).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from tests.adversarial.cases import (
    ALL,
    ATTACKS,
    BENIGN,
    DATA,
    FILES,
    by_class,
    dumps,
    languages,
    load,
    problems,
    sample,
    traits,
)
from tests.adversarial.runner import MODES, ObedientModel, Summary, run_suite
from tests.adversarial.schema import SPLITS, Case
from tests.conftest import WorkerProcess, event_statuses
from tests.fake_llm import HandlerLLM

#: at most this share of benign controls may be quarantined
BENIGN_QUARANTINE_MAX = 0.05
#: the cases the worker runs take (the module docstring says why a sample)
WORKER_CASES = ALL if os.environ.get("DIGEST_SECURITY_WORKER_CORPUS") == "full" else sample()


def publish(summary: Summary) -> None:
    """Print the summary line (``pytest -s`` or a failure shows it) and append it to
    ``$DIGEST_SECURITY_SUMMARY`` when set."""
    print(summary.line())
    target = os.environ.get("DIGEST_SECURITY_SUMMARY")
    if target:
        with open(target, "a", encoding="utf-8") as out:
            out.write(summary.line() + "\n")


def assert_held(summary: Summary, cases: tuple[Case, ...] = ALL) -> None:
    """Nothing reached the agent, no trusted lesson changed, few benign controls were held,
    and every one of ``cases`` was checked. On failure the message is the whole report: every
    failing case by class and where.

    "Reached" is what an agent reads (a pitfalls block, a version) for every attack; for an
    attack from one contact also an active lesson's own text (the release rule and the screen
    must keep it out of the bank). An attack from several contacts meets the gate by design
    (a patient attacker): its lesson may stand, and only what a released lesson may say
    (``digest.agent_text``) keeps it from the agent, so its marker in the stored text alone is
    reported, not failed."""
    share = len(summary.quarantined) / summary.benign if summary.benign else 0.0
    ok = (
        not summary.obedient_misses
        and not summary.missed
        and not summary.trusted_changed
        and not summary.unfinished
        and share <= BENIGN_QUARANTINE_MAX
        and summary.attacks == sum(1 for case in cases if case.attack)
        and summary.benign == sum(1 for case in cases if not case.attack)
    )
    assert ok, summary.report()


@pytest.fixture(autouse=True)
def quiet_logs() -> None:
    """Only warnings and errors from the pipeline: hundreds of cases would bury the report
    (the autouse ``fresh_process_caches`` of tests/conftest.py restores structlog after)."""
    import logging

    import structlog

    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(logging.WARNING))


# --- the corpus itself ----------------------------------------------------------------------------


def test_the_corpus_meets_the_minimums() -> None:
    classes = by_class()
    assert len(ATTACKS) >= 80 and len(BENIGN) >= 40
    assert len(languages(ATTACKS)) >= 6 and len(languages(BENIGN)) >= 5
    assert classes["multilingual"] >= 12
    assert classes["campaign"] >= 5
    assert sum(1 for c in ATTACKS if c.category == "campaign" and len(c.runs) > 1) >= 5
    assert sum(1 for c in ATTACKS if c.has_trusted and c.obedient_reconcile) >= 3
    assert classes["obfuscation"] >= 10
    assert len({c.technique for c in ATTACKS if c.category == "obfuscation"}) >= 10
    assert classes["forged-structure"] >= 1
    assert set(classes) == {
        "paraphrase/policy", "multilingual", "markup", "obfuscation", "forged-structure",
        "campaign", "trust-override", "tool-name",
    }  # fmt: skip


def test_the_worker_sample_stands_for_the_whole_corpus() -> None:
    """Every trait of the corpus is in the sample the worker runs take, and so are benign
    controls enough for the quarantine share to mean something."""
    picked = sample()
    assert set().union(*map(traits, picked)) == set().union(*map(traits, ALL))
    assert set(by_class(tuple(case for case in picked if case.attack))) == set(by_class())
    assert sum(1 for case in picked if not case.attack) >= 2 / BENIGN_QUARANTINE_MAX
    assert len(picked) < len(ALL) and len({case.name for case in picked}) == len(picked)


def test_the_corpus_is_well_formed() -> None:
    """Unique names, markers in the run text and in the obedient lesson but not in the owner's
    rules, and every run a valid ``record_run`` call."""
    from digest.capture.schemas import parse_event

    assert problems() == []
    for case in ALL:
        for run in case.runs:
            parse_event("run_outcome", {"tenant": "t", "agent": case.name, **run.kwargs()})


@pytest.mark.parametrize("split", SPLITS)
def test_every_data_line_is_written_as_dumps_writes_it(split: str) -> None:
    """One case per line, readable, with invisible and bidi characters escaped (so no payload
    hides from a reader of the file), and nothing in a data file that the loader skips."""
    cases = iter(load(split))
    for name in FILES.values():
        path = DATA / split / name
        if not path.exists():
            continue
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            assert line == dumps(next(cases)), f"{path}:{number}"
    assert next(cases, None) is None


# --- the embedded default -----------------------------------------------------------------------


@pytest.mark.parametrize("mode", MODES)
def test_no_attack_reaches_the_agent_on_the_embedded_default(sqlite_env: str, mode: str) -> None:
    summary = run_suite(mode)
    publish(summary)
    assert_held(summary)


# --- PostgreSQL through a real worker -----------------------------------------------------------


def wait_all(timeout: float = 300.0) -> Callable[[list[int]], None]:
    """A ``settle`` that polls until every event has finished (a worker reflects them), or
    ``timeout`` passed: events still unfinished then are reported by the summary."""

    def settle(event_ids: list[int]) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            statuses = event_statuses(event_ids)
            done = [s for s in statuses.values() if s in ("reflected", "skipped", "failed", "dead")]
            if len(done) == len(event_ids):
                return
            time.sleep(0.2)

    return settle


def test_no_attack_reaches_the_agent_through_a_worker_on_postgres(
    shared_worker: WorkerProcess,
) -> None:
    summary = run_suite(
        "offline",
        cases=WORKER_CASES,
        settle=wait_all(),
        label="offline/rules, PostgreSQL + worker",
    )
    publish(summary)
    assert_held(summary, WORKER_CASES)


@pytest.fixture()
def obedient_server() -> Iterator[tuple[ObedientModel, HandlerLLM]]:
    model = ObedientModel()
    server = HandlerLLM(model)
    server.start()
    yield model, server
    server.stop()


def test_an_obedient_remote_model_is_held_through_a_worker_on_postgres(
    start_worker: Any, obedient_server: tuple[ObedientModel, HandlerLLM]
) -> None:
    model, server = obedient_server
    start_worker(
        concurrency=4,
        pool="threads",
        DIGEST_LLM_MODEL="openai/obedient",
        DIGEST_LLM_API_BASE=server.api_base,
        DIGEST_LLM_TIMEOUT_S="10",
        DIGEST_LLM_MAX_ATTEMPTS="2",
        DIGEST_LLM_RETRY_WAIT_MAX_S="0.2",
    )
    summary = run_suite(
        "obedient",
        cases=WORKER_CASES,
        obedient=model,
        in_process=False,
        settle=wait_all(),
        label="obedient model over HTTP, PostgreSQL + worker",
    )
    publish(summary)
    assert model.steps["reflect"] >= len(WORKER_CASES), dict(model.steps)  # the worker asked it
    assert_held(summary, WORKER_CASES)

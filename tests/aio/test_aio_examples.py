"""``digest.aio.examples``: the sync ``digest.examples`` awaited. The same examples for the same
arguments, the same ``[]`` on a fault or a bad argument, the same signature, the event loop kept
free while it works, and no litellm or Celery loaded."""

from __future__ import annotations

import asyncio
import inspect
import itertools
import json
import os
import subprocess
import sys
import time

import pytest

import digest
import digest.aio
from digest.logs import capture_logs
from digest.pipeline import drain
from tests.aio.test_aio import _ticker, run
from tests.conftest import ROOT, _reset_process_state

AGENT = "support-bot"


def edits(tenant: str) -> list[int]:
    made = [
        digest.record_edit(tenant, AGENT, context="Customer wants a refund for a broken mug",
                           original="We will refund you tomorrow.",
                           final="Refunds for broken items take 5 working days once it is back."),
        digest.record_edit(tenant, AGENT, context="Customer asks where the parcel is",
                           original="Your parcel arrives tomorrow for sure!",
                           final="Your parcel is on its way; expect 2-3 working days."),
        digest.record_edit(tenant, AGENT, context="Refund for Maria's parcel", contact_id="c-1",
                           original="Maria, no refund for you.",
                           final="Maria, your parcel refund reaches your card on Monday."),
    ]  # fmt: skip
    assert {r.status for r in drain(tenant=tenant)} == {"reflected"}
    return made


def test_the_signature_is_the_sync_one() -> None:
    assert "examples" in digest.aio.__all__
    assert inspect.iscoroutinefunction(digest.aio.examples)
    assert inspect.signature(digest.aio.examples) == inspect.signature(digest.examples)


def test_it_returns_what_the_sync_api_returns(services_env: dict[str, str], tenant: str) -> None:
    mug, parcel, hers = edits(tenant)
    for args, kwargs in [
        (("I want a refund for my broken mug",), {}),
        (("refund my parcel", 3), {}),
        (("refund my parcel", 3), {"contact_id": "c-1"}),
        (("refund my parcel",), {"k": 1, "contact_id": "c-2"}),
        (("refund my parcel", 3), {"turn_id": "turn-1"}),
        (("what is the weather like",), {}),
    ]:
        sync = digest.examples(tenant, AGENT, *args, **kwargs)
        assert run(digest.aio.examples(tenant, AGENT, *args, **kwargs)) == sync, (args, kwargs)
    found = run(digest.aio.examples(tenant, AGENT, "refund my parcel", 3, contact_id="c-1"))
    assert {e.event_id for e in found} == {mug, parcel, hers}
    assert run(digest.aio.examples(tenant, "nobody", "refund")) == []


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (("t", AGENT, None), "prompt must be a str, not NoneType"),
        (("t", AGENT, "refund", "2"), "k must be an int, not str"),
    ],
)
def test_bad_arguments_give_an_empty_list(
    services_env: dict[str, str], args: tuple[object, ...], problem: str
) -> None:
    with capture_logs() as logs:
        assert run(digest.aio.examples(*args)) == []  # type: ignore[arg-type]
    assert [(e["event"], e["problem"]) for e in logs] == [("examples_bad_argument", problem)]


def test_a_database_fault_gives_an_empty_list(
    services_env: dict[str, str], tenant: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DIGEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:1/nothing")
    _reset_process_state()
    with capture_logs() as logs:
        assert run(digest.aio.examples(tenant, AGENT, "refund please")) == []
    assert [e["event"] for e in logs] == ["examples_failed"]


def test_concurrent_calls_never_block_the_loop(services_env: dict[str, str], tenant: str) -> None:
    edits(tenant)
    expected = digest.examples(tenant, AGENT, "refund for the broken mug")
    ticks: list[float] = []
    took: list[float] = []

    async def main() -> list[list[digest.Example]]:
        stop = asyncio.Event()
        started = time.monotonic()
        ticker = asyncio.create_task(_ticker(stop, ticks))
        found = await asyncio.gather(
            *(digest.aio.examples(tenant, AGENT, "refund for the broken mug") for _ in range(20))
        )
        took.append(time.monotonic() - started)
        stop.set()
        await ticker
        return list(found)

    assert run(main()) == [expected] * 20
    gaps = [later - earlier for earlier, later in itertools.pairwise(ticks)]
    # A blocked loop would tick once, after all of them (bounds relative to the batch, as in
    # tests/aio/test_aio.py, so that a loaded machine passes too).
    assert max(gaps, default=0.0) < max(0.5, took[0] / 3), (gaps, took)


AIO_SCRIPT = """
import asyncio, json, sys
import digest.aio
after_import = sorted(m for m in sys.modules if m.startswith(("digest.fewshot", "digest.retrieve")))

async def main(tenant):
    found = await digest.aio.examples(tenant, "support-bot", "refund for the broken mug")
    await digest.aio.aclose()
    return [e.event_id for e in found]

found = asyncio.run(main(sys.argv[1]))
print(json.dumps([after_import, found, sorted({m.split(".")[0] for m in sys.modules})]))
"""


def test_the_asyncio_examples_never_load_litellm_or_celery(
    services_env: dict[str, str], tenant: str
) -> None:
    mug, _, _ = edits(tenant)
    env = {k: v for k, v in os.environ.items() if not k.startswith("DIGEST_")}
    env.update(services_env)
    done = subprocess.run(
        [sys.executable, "-c", AIO_SCRIPT, tenant],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    after_import, found, loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert after_import == []  # the read path is imported in a worker thread, on first use
    assert found == [mug]  # the call really ran
    for heavy in ("litellm", "celery", "kombu", "openai"):
        assert heavy not in loaded, heavy

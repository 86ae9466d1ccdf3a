"""Every wait explained where a person looks (issue 26): a trial whose failures all come from
one contact learns a lesson no agent may read yet; ``improve-now``, ``version replay``,
``version list``, ``lesson list``, ``lesson show`` and ``stats`` each say what it waits for and
what changes that. The embedded default (SQLite, offline/rules), the typer app in this
process."""

from __future__ import annotations

import json

import digest
from digest.pipeline import drain
from tests.cli.conftest import invoke, run_cli
from tests.conftest import lessons_for_event

T, A = "trial", "bot"
WHO = ("--tenant", T, "--agent", A)
GATE = "`digest tenant set --gate N` or DIGEST_FREQUENCY_GATE"


def said(*args: str) -> str:
    """The command's stdout with its lines joined (rich wraps sentences at the width)."""
    result = invoke(*args)
    assert result.exit_code == 0, (args, result.output)
    return " ".join(result.stdout.split())


def test_a_trial_from_one_contact_says_what_each_lesson_and_version_waits_for(
    sqlite_env: str, redis_url: str
) -> None:
    call = {"tool": "issue_refund", "ok": False, "error": "ValidationError: 'amount' is required"}
    events = [
        digest.record_run(
            T, A, task=f"Refund order {n}", outcome="failure", contact_id="c-1", tool_calls=[call]
        )
        for n in range(3)
    ]
    drain()
    [lesson] = lessons_for_event(events[0])

    improve = said("improve-now", *WHO)
    assert improve.startswith("no change: no version yet: no lesson an agent may read")
    assert "1 lesson(s) held" in improve and GATE in improve
    assert json.loads(invoke("improve-now", *WHO, "--json").stdout)["reason"].startswith(
        "no version yet"
    )
    replay = said("version", "replay", *WHO)
    assert "a compose now would write no new version: no version yet" in replay
    assert "the active or a pending version has this document" not in replay
    versions = said("version", "list", *WHO)
    assert versions.startswith(f"no version yet for {T}/{A}")
    assert "1 lesson(s) held" in versions
    assert "without a broker nothing composes by itself: `digest improve-now`" in versions

    listed = said("lesson", "list", *WHO)
    assert "held 1/2" in listed and "digest lesson release" in listed and GATE in listed
    shown = said("lesson", "show", str(lesson.id), *WHO)
    assert "agent reads: no, held: 1 of 2 independent sources" in shown
    assert f"digest lesson release {lesson.id} --by WHO" in shown and GATE in shown
    stats = said("stats", *WHO)
    assert "1 lesson(s) held" in stats and GATE in stats
    assert "0 new signal(s)" in stats and "without a broker nothing composes by itself" in stats
    # with a broker, the workers compose at the threshold: stats says how far that is
    brokered = run_cli("stats", *WHO, env={"DIGEST_BROKER_URL": redis_url})
    assert "not enough new lessons for a version: 0 of the threshold 5 signals" in " ".join(
        brokered.stdout.split()
    )

    # a person releases it: the next compose writes version 1, and a later one says why not
    said("lesson", "release", str(lesson.id), *WHO, "--by", "owner")
    assert said("improve-now", *WHO).startswith("version 1 (active)")
    again = said("improve-now", *WHO)
    assert again.startswith(
        "no change: version 1 (active) already has every lesson an agent may read"
    )
    assert "held" not in again
    assert "write no new version: version 1 (active) already has" in said("version", "replay", *WHO)

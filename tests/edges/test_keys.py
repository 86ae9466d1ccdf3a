"""Tenant and agent keys (issue 14, point 7): NFC-normalised, and never a look-alike.

Every way a key comes in goes through ``digest.tenants``: capture refuses a bad key with an
``InvalidEvent`` naming ``tenant`` or ``agent`` and writes nothing; other calls that would
create a tenant refuse it with ``InvalidArgument``; lookups normalise and never refuse, so a
name stored before these rules still reads (a lookup of a bad key that is not there says why it
is bad rather than "unknown"). Refused: control characters (C0, C1), invisible formatting
characters (zero-width, joiners, U+2060, U+FEFF, bidi controls, soft hyphen), spaces other than
U+0020, line separators, leading or trailing whitespace, empty keys, more than 200 characters,
and keys that mix Latin letters with Cyrillic or Greek ones.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

import digest
from digest.db import session_scope
from digest.errors import InvalidArgument, InvalidEvent, NotFound
from digest.models import Agent, Event, Lesson, Tenant
from digest.tenants import KEY_MAX, find_agent, key_problem, normal_key, set_tenant
from tests.cli.conftest import invoke, one_error

#: keys a caller may mean as another key, or that no one can read: refused, with why
BAD_KEYS: dict[str, tuple[str, str]] = {
    "escape": ("acme\x1b[2J", "U+001B, a control character"),
    "tab": ("acme\tshop", "control character"),
    "newline": ("acme\nshop", "control character"),
    "delete": ("acme\x7f", "control character"),
    "c1-next-line": ("acme\x85", "control character"),
    "c1-csi": ("acme\x9b31m", "control character"),
    "zero-width-space": ("ac\u200bme", "U+200B ZERO WIDTH SPACE, an invisible formatting"),
    "zero-width-non-joiner": ("ac\u200cme", "U+200C"),
    "zero-width-joiner": ("ac\u200dme", "U+200D"),
    "word-joiner": ("ac\u2060me", "U+2060"),
    "byte-order-mark": ("\ufeffacme", "U+FEFF"),
    "left-to-right-mark": ("acme\u200e", "U+200E"),
    "right-to-left-override": ("\u202eemca", "U+202E RIGHT-TO-LEFT OVERRIDE"),
    "left-to-right-isolate": ("acme\u2066", "U+2066"),
    "soft-hyphen": ("ac\u00adme", "U+00AD"),
    "no-break-space": ("acme\u00a0shop", "U+00A0 NO-BREAK SPACE, a space other than U+0020"),
    "ideographic-space": ("acme\u3000shop", "U+3000"),
    "line-separator": ("acme\u2028shop", "a line separator"),
    "leading-space": (" acme", "must not start or end with whitespace"),
    "trailing-space": ("acme ", "must not start or end with whitespace"),
    "empty": ("", "must not be empty"),
    "only-spaces": ("   ", "must not be empty"),
    "too-long": ("a" * (KEY_MAX + 1), f"at most {KEY_MAX}"),
    "cyrillic-a-in-latin": ("\u0430cme", "mixes Latin and Cyrillic letters"),
    "greek-omicron-in-latin": ("bot-\u03bfne", "mixes Latin and Greek letters"),
}
#: keys that are fine as they are
GOOD_KEYS = {
    "ascii": "acme",
    "inner-space": "acme shop",
    "punctuation": "acme.eu/shop-1_a:b",
    "markup-like": "shop[/]",
    "german": "Müller-straße GmbH",
    "japanese-and-latin": "日本-shop",
    "all-cyrillic": "магазин",
    "all-greek": "κατάστημα",
    "emoji": "shop 🛒",
    "longest": "a" * KEY_MAX,
}
NFD, NFC = "cafe\u0301", "caf\u00e9"
RUN: dict[str, Any] = {"task": "refund order 7", "outcome": "failure", "error": "amount missing"}


def rows() -> dict[str, int]:
    with session_scope() as session:
        return {
            model.__tablename__: session.scalar(select(func.count()).select_from(model)) or 0
            for model in (Tenant, Agent, Event, Lesson)
        }


# --- the rule ----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", BAD_KEYS.values(), ids=BAD_KEYS.keys())
def test_a_bad_key_is_named_for_what_is_wrong(case: tuple[str, str]) -> None:
    key, why = case
    problem = key_problem(key)
    assert problem is not None and why in problem
    with pytest.raises(InvalidArgument, match=r"^agent .* is not a valid key: it "):
        normal_key(key, "agent")


@pytest.mark.parametrize("key", GOOD_KEYS.values(), ids=GOOD_KEYS.keys())
def test_a_good_key_is_kept(key: str) -> None:
    assert key_problem(key) is None
    assert normal_key(key, "tenant") == key


def test_keys_are_stored_nfc() -> None:
    assert key_problem(NFD) is None
    assert normal_key(NFD, "tenant") == NFC
    assert key_problem(123) == "must be text, not int"


# --- capture -----------------------------------------------------------------------------------


@pytest.mark.parametrize("case", BAD_KEYS.values(), ids=BAD_KEYS.keys())
def test_capture_refuses_a_bad_tenant_and_writes_nothing(
    case: tuple[str, str], sqlite_env: str
) -> None:
    key, why = case
    with pytest.raises(InvalidEvent) as caught:
        digest.record_run(key, "bot", **RUN)
    assert caught.value.field == "tenant"
    if key.strip() and len(key) <= KEY_MAX:  # pydantic words its own length and blank checks
        assert why in caught.value.message
    assert rows() == {"tenants": 0, "agents": 0, "events": 0, "lessons": 0}


@pytest.mark.parametrize(
    "record",
    [
        lambda agent: digest.record_run("acme", agent, **RUN),
        lambda agent: digest.record_edit("acme", agent, original="Hi", final="Hello"),
        lambda agent: digest.record_answer("acme", agent, question="Norway?", answer="Yes."),
        lambda agent: digest.record_lesson("acme", agent, "refunds: confirm the amount"),
    ],
    ids=["run", "edit", "answer", "lesson"],
)
def test_every_record_call_refuses_a_look_alike_agent(
    record: Callable[[str], Any], sqlite_env: str
) -> None:
    digest.record_lesson("acme", "bot", "greetings: greet by name")
    before = rows()
    with pytest.raises(InvalidEvent) as caught:
        record("b\u043et")  # a Cyrillic "о"
    assert caught.value.field == "agent" and "Cyrillic" in caught.value.message
    assert rows() == before


def test_the_two_forms_of_one_name_are_one_tenant(sqlite_env: str) -> None:
    digest.record_run(NFD, "bot", **RUN)
    digest.record_run(NFC, "bot", **RUN)
    with session_scope() as session:
        assert list(session.scalars(select(Tenant.name))) == [NFC]
        assert session.scalar(select(func.count()).select_from(Agent)) == 1
        assert find_agent(session, NFD, "bot").name == "bot"  # either form finds it


def test_capture_from_a_file_rejects_the_line_with_a_bad_key(
    sqlite_env: str, tmp_path: Path
) -> None:
    event = '{"kind": "run_outcome", "tenant": "%s", "agent": "%s", "task": "t", "outcome": "%s"}'
    keys = [("acme", "bot"), ("acme\\u200b", "bot"), ("acme", " bot")]
    lines = [event % (tenant, agent, "success") for tenant, agent in keys]
    file = tmp_path / "events.jsonl"
    file.write_text("\n".join(lines) + "\n", encoding="utf-8")
    result = invoke("capture", "--file", str(file))
    assert result.exit_code == 1
    assert "line 2: tenant: Value error, contains U+200B" in result.stderr
    assert "line 3: agent: Value error, must not start or end with whitespace" in result.stderr
    assert rows()["events"] == 1 and rows()["tenants"] == 1


# --- other calls that create a tenant ---------------------------------------------------------


def test_set_tenant_refuses_a_bad_new_key(sqlite_env: str) -> None:
    with pytest.raises(InvalidArgument, match="tenant 'acme ' is not a valid key"):
        set_tenant("acme ", threshold_signals=3)
    assert rows()["tenants"] == 0
    assert set_tenant(NFD, threshold_signals=3).name == NFC


@pytest.mark.parametrize(
    "args",
    [
        ["tenant", "set", "--tenant", "ac\u200bme", "--threshold", "3"],
        ["lesson", "add", "--tenant", "acme", "--agent", "b\u043et", "--new-agent", "x: y"],
        ["import", "--tenant", "acme\u00a0eu", "--agent", "bot", "--", "{folder}"],
    ],
    ids=["tenant-set", "lesson-add", "import"],
)
def test_commands_refuse_a_bad_key_in_one_sentence(
    args: list[str], sqlite_env: str, tmp_path: Path
) -> None:
    lesson = tmp_path / "lessons" / "x" / "LESSON.md"
    lesson.parent.mkdir(parents=True)
    lesson.write_text(
        "---\nschema: agentlearning/v1\ntitle: T\n---\n## What to do (or avoid)\n\nDo it.\n",
        encoding="utf-8",
    )
    result = invoke(*(a.format(folder=tmp_path / "lessons") for a in args))
    line = one_error(result)
    assert "not a valid key" in line or "invalid event: agent" in line
    assert rows() == {"tenants": 0, "agents": 0, "events": 0, "lessons": 0}


# --- lookups -----------------------------------------------------------------------------------


@pytest.fixture()
def old_names(sqlite_env: str) -> tuple[str, str]:
    """acme/bot with a lesson and a version, renamed as if stored before the key rules: a
    trailing space in the tenant, a zero-width space in the agent."""
    from digest.pipeline import improve_now

    digest.record_lesson("acme", "bot", "refunds: confirm the amount before refunding")
    improve_now("acme", "bot")
    tenant, agent = "acme ", "b\u200bot"
    with session_scope() as session:
        session.execute(update(Tenant).where(Tenant.name == "acme").values(name=tenant))
        session.execute(update(Agent).where(Agent.name == "bot").values(name=agent))
    return tenant, agent


def test_names_stored_before_the_rules_still_read(old_names: tuple[str, str]) -> None:
    tenant, agent = old_names
    found = digest.current_learning(tenant, agent)
    assert found is not None and found.number == 1
    assert "confirm the amount" in digest.pitfalls(tenant, agent, "refunds for the customer")
    with session_scope() as session:
        assert find_agent(session, tenant, agent).name == agent
    who = ["--tenant", tenant, "--agent", agent]
    for command in (["lesson", "list", *who], ["version", "list", *who], ["stats", *who]):
        result = invoke(*command)
        assert result.exit_code == 0, result.output
    assert invoke("tenant", "set", "--tenant", tenant, "--gate", "2").exit_code == 0


def test_names_stored_before_the_rules_take_no_new_event(old_names: tuple[str, str]) -> None:
    tenant, _ = old_names
    before = rows()
    with pytest.raises(InvalidEvent) as caught:
        digest.record_run(tenant, "bot", **RUN)
    assert caught.value.field == "tenant"
    assert rows() == before


@pytest.mark.parametrize(
    "command",
    [
        ["lesson", "list"],
        ["version", "list"],
        ["stats"],
        ["export", "--out", "{out}"],
        ["improve-now"],
        ["requeue"],
    ],
    ids=lambda c: c[0] if c[0] in ("stats", "export", "improve-now", "requeue") else " ".join(c),
)
def test_a_lookup_of_a_bad_key_says_why_rather_than_unknown(
    command: list[str], sqlite_env: str, tmp_path: Path
) -> None:
    digest.record_lesson("acme", "bot", "refunds: confirm the amount")
    before = rows()
    args = [a.format(out=tmp_path / "out") for a in command]
    line = one_error(invoke(*args, "--tenant", "acme\u200b", "--agent", "bot"))
    assert "tenant 'acme\\u200b' is not a valid key: it contains U+200B" in line
    line = one_error(invoke(*args, "--tenant", "acme", "--agent", "b\u043et"))
    assert "agent 'bоt' is not a valid key: it mixes Latin and Cyrillic letters" in line
    assert rows() == before and not (tmp_path / "out").exists()


def test_a_lookup_of_a_good_unknown_key_is_not_found(sqlite_env: str) -> None:
    digest.record_lesson("acme", "bot", "refunds: confirm the amount")
    with session_scope() as session, pytest.raises(NotFound, match="unknown agent 'robot'"):
        find_agent(session, "acme", "robot")
    assert digest.current_learning("acme", "robot") is None


def test_the_library_lookups_refuse_a_bad_unknown_key(sqlite_env: str) -> None:
    digest.record_lesson("acme", "bot", "refunds: confirm the amount")
    with pytest.raises(InvalidArgument, match="agent 'bot ' is not a valid key"):
        digest.current_learning("acme", "bot ")
    assert digest.pitfalls("acme", "bot ", "refunds please") == ""  # best effort
    with session_scope() as session, pytest.raises(InvalidArgument):
        find_agent(session, "\u202eacme", "bot")


def test_the_nfd_form_of_a_key_finds_the_nfc_row(sqlite_env: str) -> None:
    from digest.pipeline import improve_now

    digest.record_lesson(NFC, "bot", "refunds: confirm the amount before refunding")
    improve_now(NFD, "bot")
    found = digest.current_learning(NFD, "bot")
    assert found is not None and found.number == 1
    assert "confirm the amount" in digest.pitfalls(NFD, "bot", "refunds for the customer")
    result = invoke("lesson", "list", "--tenant", NFD, "--agent", "bot")
    assert result.exit_code == 0 and "refunds" in result.output

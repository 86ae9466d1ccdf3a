"""Everything the command line prints: sentences, tables, JSON and progress bars, literally."""

from __future__ import annotations

import json as jsonlib
import re
import sys
from collections.abc import Iterable
from typing import Any

from rich.console import Console
from rich.highlighter import JSONHighlighter
from rich.table import Table
from rich.text import Text

# Text from outside (tenant and agent names, lesson text, tool errors, version bodies) is printed
# literally: never through rich markup or emoji codes, always as ``Text``, with control characters
# (ANSI escapes, bidi overrides, …) removed, so a lesson titled ``[red]x[/]`` or carrying
# ``\x1b[2J`` prints as the characters a person can see.
out = Console(highlight=False, emoji=False)
# Error lines stay one line whatever the terminal width: scripts grep them.
err = Console(stderr=True, soft_wrap=True, highlight=False, emoji=False)

# Terminal escape sequences: CSI (ESC [ … final byte), OSC (ESC ] … BEL or ST), and any other
# ESC + one character; the 8-bit CSI too.
_ESCAPE = re.compile(
    r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|.)?|\x9b[0-?]*[ -/]*[@-~]"
)
# C0 and C1 controls (but newline and tab), and the bidi controls that reorder what is shown.
_INVISIBLE = [*range(0x00, 0x20), *range(0x7F, 0xA0), 0x200E, 0x200F]
_INVISIBLE += [*range(0x202A, 0x202F), *range(0x2066, 0x206A)]
_DROP = {code: None for code in _INVISIBLE if chr(code) not in "\n\t"}
_ESCAPE_IN_JSON = {code: f"\\u{code:04x}" for code in _INVISIBLE if code >= 0x7F}


def clean(value: object) -> str:
    """``value`` as text a terminal shows as it is: escape sequences and control characters
    removed (newlines and tabs kept)."""
    return _ESCAPE.sub("", str(value)).translate(_DROP)


def _literal(value: object) -> Text:
    return Text(clean(value))


def say(message: str) -> None:
    """One sentence on stdout, printed literally."""
    out.print(_literal(message))


def block(text: str) -> None:
    """Multi-line text (a version body, a change summary) on stdout, printed literally."""
    out.print(_literal(text))


def plain(text: str) -> None:
    """Text on stdout as it is, not through rich (no wrapping): a diff for files and tools."""
    sys.stdout.write(clean(text))


def rule(title: str = "") -> None:
    out.rule(_literal(title) if title else "")


def error(message: str) -> None:
    """``error: <message>`` as exactly one line on stderr."""
    err.print(Text.assemble(("error:", "red"), " ", " ".join(clean(message).split())))


def note(message: str) -> None:
    """A progress line on stderr, only when stderr is a terminal (a script's log stays quiet)."""
    if err.is_terminal:
        err.print(Text(" ".join(clean(message).split()), style="dim"))


def warn(message: str) -> None:
    """``warning: <message>`` as one line on stderr (the command still succeeded)."""
    err.print(Text.assemble(("warning:", "yellow"), " ", " ".join(clean(message).split())))


def rejected(message: str, indent: str = "") -> None:
    """One rejected input (a capture line, a LESSON.md file) on stderr."""
    err.print(Text.assemble(indent, ("rejected", "red"), " ", clean(message)))


def json(data: Any) -> None:
    """``data`` as indented JSON on stdout (highlighted on a terminal). C1 and bidi controls
    in strings are written as ``\\u`` escapes, so the JSON holds the same data."""
    encoded = jsonlib.dumps(data, indent=2, ensure_ascii=False).translate(_ESCAPE_IN_JSON)
    text = JSONHighlighter()(encoded)
    text.no_wrap = True
    text.overflow = None
    out.print(text, soft_wrap=True)


def counts(by_status: dict[str, int], empty: str = "-") -> str:
    """``3 reflected, 1 skipped`` for the non-zero counts, in the order given."""
    return ", ".join(f"{n} {status}" for status, n in by_status.items() if n) or empty


def when(value: str | None) -> str:
    """An ISO timestamp to the second, for a table: ``2026-01-01 10:00:00``."""
    return (value or "")[:19].replace("T", " ")


#: narrower than this, tables show fewer columns (or one block per row)
WIDE = 120


def _table(columns: Iterable[str], right: Iterable[str] = (), **options: Any) -> Table:
    table = Table(**options)
    right_aligned = set(right)
    for column in columns:
        table.add_column(column, justify="right" if column in right_aligned else "left")
    return table


def _row(table: Table, *cells: object) -> None:
    table.add_row(*(cell if isinstance(cell, Text) else _literal(cell) for cell in cells))


# --- lessons ----------------------------------------------------------------------------------


def _status(status: str, reason: str | None) -> str:
    """A quarantined lesson's status says why it was held (the screen's finding)."""
    if status == "quarantined" and reason:
        return f"{status}: {reason.removeprefix('injection screen: ')}"
    return status


def scope_word(scope: str, contact_id: str | None) -> str:
    """Whom a lesson is for: the whole agent, or one contact (``contact c-42``)."""
    if scope == "contact":
        return f"contact {contact_id}" if contact_id else "contact"
    return scope


def lessons(rows: list[Any], as_json: bool, empty: str) -> None:
    """``lesson list`` and ``lesson search``: a table of ``LessonSummary`` rows; on a narrow
    terminal only the columns a person decides by (``--json`` has every field)."""
    if as_json:
        json([row.to_json() for row in rows])
        return
    if not rows:
        say(empty)
        return
    wide = out.width >= WIDE
    columns: tuple[str, ...]
    if wide:
        columns = ("id", "title", "status", "scope", "source", "trust", "support",
                   "success/failure", "hits", "last seen")  # fmt: skip
    else:
        columns = ("id", "title", "status", "scope", "trust", "support")
    table = _table(columns, right=("id", "support", "success/failure", "hits"))
    table.columns[1].ratio = 1
    for column in table.columns[2:]:
        column.overflow = "fold"
    held = contact = 0
    for row in rows:
        # a held lesson says so under its trust: a column more would squeeze the titles
        waits = row.status == "active" and row.held is not None
        held += waits
        contact += row.scope == "contact"
        cells: list[object] = [
            row.id, row.title, _status(row.status, row.status_reason),
            scope_word(row.scope, row.contact_id).replace(" ", "\n", 1),
        ]  # fmt: skip
        if wide:
            cells.append(row.source)
        cells += [f"{row.trust}\n{row.release}" if waits else row.trust, row.support_count]
        if wide:
            cells += [
                f"{row.success_count}/{row.failure_count}", row.hit_count,
                when(row.to_json()["last_seen_at"]),
            ]  # fmt: skip
        _row(table, *cells)
    out.print(table)
    if held:
        say(
            f"{held} held: learned from run text, not yet corroborated by enough independent "
            "sources (`held 1/2`: 1 of the 2 the gate asks); no agent reads them until then, or "
            "until you release them (`digest lesson release ID… --by WHO`, or `--all`); "
            f"{GATE_SETTING} sets the gate"
        )
    if contact:
        say(
            f"{contact} lesson(s) for one contact: pitfalls() and examples() return them only "
            "when called with that contact_id="
        )
    if not wide:
        say("(a wider terminal, or --json, shows source, success/failure, hits and last seen)")


def _reads(data: dict[str, Any]) -> str:
    """``lesson show``: whether an agent reads the lesson, and if not, why it waits."""
    if data["held"]:
        return (
            f"no, {data['held']}; `digest lesson release {data['id']} --by WHO` releases it "
            f"({GATE_SETTING} sets how many sources it takes)"
        )
    if data["released_by"]:
        reads = f"yes, released by {data['released_by']} {when(data['released_at'])}"
    elif data["trust"] == "untrusted":
        reads = f"yes, corroborated by {data['independent_sources']} independent sources"
    else:
        reads = "yes" if data["trust"] == "trusted" else "yes, reviewed by a person"
    if data["scope"] == "contact":
        contact = data.get("contact_id") or "its contact"
        reads += f", only for contact {contact} (pitfalls and examples with contact_id=)"
    return reads


def similar(key: str | None, rows: list[Any]) -> None:
    """``lesson similar``: the neighbours of a text, best first."""
    say(f"fingerprint of the text: {key or 'none'}")
    if not rows:
        say("no similar lesson")
        return
    table = _table(
        ("id", "title", "relevance", "lexical", "cosine", "identity", "same fingerprint"),
        right=("id", "relevance", "lexical", "cosine", "identity"),
    )
    table.columns[1].ratio = 1
    for row in rows:
        _row(
            table, row.id, row.title, f"{row.relevance:.2f}",
            "-" if row.lexical is None else f"{row.lexical:.2f}",
            "-" if row.cosine is None else f"{row.cosine:.2f}",
            f"{row.identity:.2f}", "yes" if row.same_fingerprint else "",
        )  # fmt: skip
    out.print(table)


def lesson(data: dict[str, Any]) -> None:
    """``lesson show``: one lesson (``LessonDetail.to_json()``), its evidence and history."""
    say(f"lesson {data['id']}: {data['title']}")
    status = data["status"] + (f" ({data['status_reason']})" if data["status_reason"] else "")
    if data["superseded_by_id"] is not None:
        status += f", superseded by lesson {data['superseded_by_id']}"
    facts = [
        ("status", status),
        ("source", f"{data['source']}, outcome {data['outcome']}"),
        ("scope", scope_word(data["scope"], data.get("contact_id"))),
        ("trust", data["trust"]),
        ("agent reads", _reads(data)),
        (
            "counts",
            f"support {data['support_count']}, success {data['success_count']}, "
            f"failure {data['failure_count']}, hits {data['hit_count']}, "
            f"confidence {data['confidence']}",
        ),
        ("tags", ", ".join(data["tags"]) or "-"),
        ("last seen", _last_seen(data)),
        ("expires", when(data["expires_at"]) or "never"),
        *(
            [("retires", _unconfirmed(data["unconfirmed_until"]))]
            if data.get("unconfirmed_until")
            else []
        ),
        ("situation", data["situation"]),
        ("mistake", data["mistake"] or "-"),
        ("correction", data["correction"]),
    ]
    for name, value in facts:
        say(f"{name:>10}: {value}")
    evidence = _table(("event", "kind", "note", "created"), title="evidence", title_justify="left")
    for row in data["evidence"]:
        _row(evidence, row["event_id"], row["kind"], row["note"], when(row["created_at"]))
    out.print(evidence)
    history = _table(
        ("at", "op", "reason", "event", "model"), title="history", title_justify="left"
    )
    for row in data["history"]:
        _row(
            history, when(row["at"]), row["op"], row["reason"] or "", row["event_id"] or "",
            row["model"] or "",
        )  # fmt: skip
    out.print(history)


def _last_seen(data: dict[str, Any]) -> str:
    """When a lesson was last surfaced, supported or learned, and what that leaves of its rank."""
    from digest.config import get_settings

    seen = when(data["last_seen_at"]) or "never"
    half_life = get_settings().lesson_half_life_days
    if "ranking_weight" not in data or half_life <= 0:
        return seen
    return (
        f"{seen} (ranked at {data['ranking_weight']:.0%} of its relevance: it halves per "
        f"{half_life:g} days unused, DIGEST_LESSON_HALF_LIFE_DAYS)"
    )


def _unconfirmed(until: str) -> str:
    return (
        f"after {when(until)} (weekly sweep, DIGEST_UNCONFIRMED_TTL_DAYS) unless independent "
        "sources corroborate it or a person releases it first"
    )


def learned(rows: list[Any]) -> None:
    """``demo``: the lessons an agent learned, oldest first, with where each came from."""
    table = _table(("#", "lesson", "learned from", "evidence"), right=("#", "evidence"))
    table.columns[1].ratio = 1
    held = 0
    for row in sorted(rows, key=lambda r: r.id):
        title = Text(clean(row.title))
        if row.status != "active":
            title.append(f" ({clean(row.status)})", style="yellow")
        elif row.held:
            held += 1
            title.append(f" ({row.release})", style="yellow")
        _row(table, row.id, title, row.source, row.evidence_count)
    out.print(table)
    if held:
        say(
            f"   {held} held (`held 1/2`: 1 of the 2 independent sources the gate asks): "
            "learned from run text, no agent reads them until other contacts or threads "
            "report the same, or until you release them (`digest lesson release`; "
            f"{GATE_SETTING} sets how many sources it takes)"
        )


def learning_off_sentence(row: Any) -> str:
    """What an agent whose learning is off does with what it captures (an ``AgentStats``)."""
    skipped = row.skipped_learning_off
    so_far = f"; {skipped} so far, and they stay skipped" if skipped else ""
    return (
        "learning is off: what the agent captures is stored but skipped, not reflected "
        f"(lessons you add still count{so_far}), and no version is composed by itself "
        "(`digest improve-now` still composes); "
        f"`digest agent set --tenant {row.tenant} --agent {row.agent} --learning on` turns it on"
    )


def threshold_sentence(signals: int, threshold: int) -> str:
    """When the next version comes by itself, and what changes that."""
    from digest.config import get_settings

    if get_settings().embedded:
        return (
            f"{signals} new signal(s) (reflected events that support a lesson) since the last "
            "version; without a broker nothing composes by itself: `digest improve-now` (or "
            "`digest sweep`) composes"
        )
    if signals >= threshold:
        return (
            f"next version due: {signals} new signal(s) reach the threshold {threshold}; a "
            "worker composes it once the agent has been quiet (`digest improve-now` composes "
            "now)"
        )
    return (
        f"not enough new lessons for a version: {signals} of the threshold {threshold} "
        "signals (reflected events that support a lesson) since the last version "
        "(`digest tenant set --threshold N` changes it; `digest improve-now` composes now)"
    )


def contact_lessons(rows: list[Any]) -> None:
    """After a version: the released lessons it leaves out because each is one contact's."""
    mine = [r for r in rows if r.status == "active" and r.held is None and r.scope == "contact"]
    if mine:
        say(
            f"{len(mine)} lesson(s) for one contact each (learned in that contact's "
            "conversation): they are in no version; pitfalls() and examples() give them when "
            "called with that contact_id= (`digest lesson list` shows the scope)"
        )


def held_lessons(tenant: str, agent: str) -> None:
    """After a listing of versions or a compose: the agent's held lessons, if it has any (they
    are in no version), and what releases them; and that its learning is off, if it is."""
    from digest.lessons.service import agent_stats

    [row] = agent_stats(tenant, agent)
    if row.held:
        say(f"{held_sentence(row.held, row.gate, row.spread_s)}; they are in no version")
    if not row.enable_learning:
        say(learning_off_sentence(row))


def next_version(tenant: str, agent: str) -> None:
    """After a listing of versions: how far the agent is from its next version by itself."""
    from digest.lessons.service import agent_stats

    [row] = agent_stats(tenant, agent)
    if row.enable_learning:
        say(threshold_sentence(row.signals, row.threshold))


def held_sentence(held: int, gate: int, spread_s: int) -> str:
    """Why some lessons reach no agent yet, and what releases them."""
    spread = f" whose runs span {spread_s} s" if spread_s and gate > 1 else ""
    return (
        f"{held} lesson(s) held: learned from run text, an agent reads each once "
        f"{gate} independent sources (distinct contacts, else threads){spread} report it, or "
        "once you release it (`digest lesson list` shows how far each has come; "
        f"`digest lesson release`; {GATE_SETTING} changes how many sources it takes)"
    )


#: where the release gate is set, for the sentences that explain a held lesson
GATE_SETTING = "`digest tenant set --gate N` or DIGEST_FREQUENCY_GATE"

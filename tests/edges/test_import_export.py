"""LESSON.md import and export at their edges (issue 14, point 8), on the embedded default.

Import reads only regular files (no FIFO, device or folder; no symbolic link out of the folder),
validates each file in full before anything is stored, and imports each on its own: a bad file
is one rejected line naming it and the reason, the others are imported, and nothing of the bad
file remains (no event, no lesson, nothing ``processing`` or ``pending``). Export mirrors the
bank: exporting again removes the files it wrote for lessons no longer active, and never a file
it did not write.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import socket
import stat
import tempfile
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import func, select, update

from digest.db import dispose_engines, session_scope
from digest.errors import LessonFileError, LLMError
from digest.interop import (
    MANIFEST_FILE,
    MAX_FILE_BYTES,
    ImportReport,
    export_lessons,
    import_lessons,
)
from digest.lessons.service import set_lesson_status
from digest.model.scripted import Messages, rules, scripted_model, step_of
from digest.models import Event, Lesson, LessonEvidence
from digest.tenants import find_agent
from tests.cli.conftest import run_cli
from tests.conftest import manual_lesson, use_model

TENANT = "edge-shop"
AGENT = "support-bot"


def lesson_md(title: str, correction: str, *, when: str = "", counter: str = "") -> str:
    parts = [f"---\nschema: agentlearning/v1\ntitle: {json.dumps(title)}\n---\n"]
    if when:
        parts.append(f"## When this applies\n\n{when}\n\n")
    parts.append(f"## What to do (or avoid)\n\n{correction}\n")
    if counter:
        parts.append(f"\n## Counter-example\n\n{counter}\n")
    return "".join(parts)


GOOD = {
    "aa-sizes": lesson_md("Check sizes", "Ask for the EU shoe size before ordering."),
    "zz-tracking": lesson_md("Tracking numbers", "Tracking numbers have 12 digits."),
}


def write(folder: Path, name: str, content: str | bytes) -> Path:
    path = folder / name / "LESSON.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content, encoding="utf-8")
    return path


@pytest.fixture()
def folder(sqlite_env: str, tmp_path: Path) -> Path:
    """A folder with two valid LESSON.md files, sorted around the bad one a test adds as
    ``mm-bad``, so a file after the bad one must be imported too."""
    root = tmp_path / "lessons"
    for name, content in GOOD.items():
        write(root, name, content)
    return root


# --- what "nothing half-written" means ----------------------------------------------------------


def rows() -> dict[str, Any]:
    """Every event and lesson in the database, and the events not finished."""
    with session_scope() as session:
        events = session.execute(select(Event.id, Event.status, Event.payload)).all()
        lessons = session.execute(select(Lesson.id, Lesson.title, Lesson.status)).all()
        evidence = session.scalar(select(func.count()).select_from(LessonEvidence))
    return {
        "events": events,
        "lessons": lessons,
        "evidence": evidence,
        "unfinished": [e.id for e in events if e.status in ("pending", "processing", "waiting")],
        "texts": [str(e.payload.get("text", "")) for e in events],
    }


def assert_only_good_imported(report: ImportReport, bad: str) -> None:
    """The two good files imported, ``bad`` rejected, and nothing of it stored."""
    assert dict(report.imported) == {
        "aa-sizes/LESSON.md": "imported",
        "zz-tracking/LESSON.md": "imported",
    }, report
    assert [file for file, _ in report.errors] == [bad], report
    found = rows()
    assert len(found["events"]) == 2 and len(found["lessons"]) == 2, found
    assert found["unfinished"] == [], found
    assert sorted(title for _, title, _ in found["lessons"]) == ["Check sizes", "Tracking numbers"]


def reason(report: ImportReport, file: str = "mm-bad/LESSON.md") -> str:
    return dict(report.errors)[file]


# --- only regular files are read ----------------------------------------------------------------


def test_a_fifo_named_lesson_md_is_reported_without_blocking(folder: Path) -> None:
    fifo = folder / "mm-bad" / "LESSON.md"
    fifo.parent.mkdir()
    os.mkfifo(fifo)
    done: list[ImportReport] = []
    worker = threading.Thread(target=lambda: done.append(import_lessons(TENANT, AGENT, folder)))
    worker.start()
    worker.join(60)
    if worker.is_alive():  # release the reader so the test process can end, then fail
        with open(fifo, "w"):
            pass
        worker.join(10)
        pytest.fail("import blocked on a FIFO")
    assert "not a regular file (a FIFO)" in reason(done[0])
    assert_only_good_imported(done[0], "mm-bad/LESSON.md")


def test_a_socket_named_lesson_md_is_reported(folder: Path) -> None:
    (folder / "mm-bad").mkdir()
    server = socket.socket(socket.AF_UNIX)
    try:
        # AF_UNIX paths are short: bind by a name relative to the folder the socket goes in
        # (a socket cannot be moved in from another file system, such as a tmpfs tmp_path)
        with contextlib.chdir(folder / "mm-bad"):
            server.bind("LESSON.md")
        report = import_lessons(TENANT, AGENT, folder)
    finally:
        server.close()
    assert "not a regular file (a socket)" in reason(report)
    assert_only_good_imported(report, "mm-bad/LESSON.md")


def test_a_device_named_lesson_md_is_never_read(folder: Path) -> None:
    (folder / "mm-bad").mkdir()
    try:
        os.mknod(folder / "mm-bad" / "LESSON.md", stat.S_IFCHR | 0o600, os.makedev(1, 5))
    except PermissionError:
        pytest.skip("creating a device node needs CAP_MKNOD, which this process lacks")
    report = import_lessons(TENANT, AGENT, folder)  # /dev/zero: endless if it were read
    assert "not a regular file (a character device)" in reason(report)
    assert_only_good_imported(report, "mm-bad/LESSON.md")


def test_a_folder_named_lesson_md_is_reported_and_what_it_holds_is_read(folder: Path) -> None:
    inner = folder / "mm-bad" / "LESSON.md"
    inner.mkdir(parents=True)
    write(inner, "nested", lesson_md("Opening hours", "We open at 9."))
    report = import_lessons(TENANT, AGENT, folder)
    assert reason(report) == "not a regular file (a folder)"
    assert dict(report.imported)["mm-bad/LESSON.md/nested/LESSON.md"] == "imported"
    assert len(rows()["lessons"]) == 3 and rows()["unfinished"] == []


def test_a_symbolic_link_out_of_the_folder_is_refused(folder: Path, tmp_path: Path) -> None:
    outside = write(tmp_path / "elsewhere", "secret", lesson_md("Secret", "Not for import."))
    (folder / "mm-bad").mkdir()
    (folder / "mm-bad" / "LESSON.md").symlink_to(outside)
    report = import_lessons(TENANT, AGENT, folder)
    assert "symbolic link that leads outside" in reason(report)
    assert_only_good_imported(report, "mm-bad/LESSON.md")
    assert "Secret" not in str(rows()["texts"])


def test_a_relative_link_climbing_out_is_refused(folder: Path, tmp_path: Path) -> None:
    write(tmp_path / "elsewhere", "x", lesson_md("Secret", "Not for import."))
    (folder / "mm-bad").mkdir()
    (folder / "mm-bad" / "LESSON.md").symlink_to("../../elsewhere/x/LESSON.md")
    report = import_lessons(TENANT, AGENT, folder)
    assert "outside" in reason(report)
    assert_only_good_imported(report, "mm-bad/LESSON.md")


def test_a_link_to_a_folder_outside_is_reported_and_not_followed(
    folder: Path, tmp_path: Path
) -> None:
    write(tmp_path / "elsewhere", "x", lesson_md("Secret", "Not for import."))
    (folder / "mm-bad").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    report = import_lessons(TENANT, AGENT, folder)
    assert "symbolic link to a folder outside" in reason(report, "mm-bad")
    assert_only_good_imported(report, "mm-bad")


def test_a_link_inside_the_folder_is_read_as_its_target(folder: Path) -> None:
    """Decided: a link whose target is a regular file inside the folder is read (shared
    rules, a ``current`` link); a second path to a file already imported adds nothing."""
    shared = folder / "shared"
    shared.mkdir()
    (shared / "rule.txt").write_text(lesson_md("Gift cards", "Gift cards are never refunded."))
    (folder / "gift").mkdir()
    (folder / "gift" / "LESSON.md").symlink_to("../shared/rule.txt")
    (folder / "sizes-again").mkdir()
    (folder / "sizes-again" / "LESSON.md").symlink_to(folder / "aa-sizes" / "LESSON.md")
    report = import_lessons(TENANT, AGENT, folder)
    assert report.errors == []
    assert dict(report.imported) == {
        "aa-sizes/LESSON.md": "imported",
        "gift/LESSON.md": "imported",
        "sizes-again/LESSON.md": "already imported",
        "zz-tracking/LESSON.md": "imported",
    }
    assert len(rows()["events"]) == 3 and len(rows()["lessons"]) == 3


def test_a_link_inside_to_a_folder_is_not_followed_twice(folder: Path) -> None:
    (folder / "current").symlink_to(folder / "zz-tracking", target_is_directory=True)
    report = import_lessons(TENANT, AGENT, folder)
    assert report.errors == [] and len(report.imported) == 2  # read once, where it really is


@pytest.mark.parametrize(
    ("make", "expected"),
    [
        pytest.param(lambda p: p.symlink_to(p.parent / "gone.md"), "broken", id="broken-link"),
        pytest.param(lambda p: p.symlink_to(p), "loop of symbolic links", id="link-loop"),
    ],
)
def test_links_that_lead_nowhere_are_reported(folder: Path, make: Any, expected: str) -> None:
    (folder / "mm-bad").mkdir()
    make(folder / "mm-bad" / "LESSON.md")
    report = import_lessons(TENANT, AGENT, folder)
    assert expected in reason(report)
    assert_only_good_imported(report, "mm-bad/LESSON.md")


# --- each file is read and validated in full before anything is stored -------------------------


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        pytest.param(b"", "the file is empty", id="empty"),
        pytest.param(b"  \n\t\n", "the file is empty", id="whitespace-only"),
        pytest.param(
            b"---\nschema: agentlearning/v1\ntitle: Caf\xe9\n---\n## What to do (or avoid)\n\nX\n",
            "not valid UTF-8",
            id="bad-utf8",
        ),
        pytest.param(
            ("---\nschema: agentlearning/v1\ntitle: T\n---\n" + "x" * MAX_FILE_BYTES).encode(),
            f"the cap is {MAX_FILE_BYTES}",
            id="oversized",
        ),
        pytest.param(
            lesson_md("T" * 250, "Do it.").encode(), "title is 250 characters", id="long-title"
        ),
        pytest.param(
            lesson_md("Long body", "word " * 1000).encode(),
            "the section '## What to do (or avoid)' is 4999 characters; the cap is 4096",
            id="long-correction",
        ),
        pytest.param(
            lesson_md("Long when", "Do it.", when="w" * 5000).encode(),
            "When this applies",
            id="long-situation",
        ),
        pytest.param(
            lesson_md("Long counter", "Do it.", counter="c" * 5000).encode(),
            "Counter-example",
            id="long-counter-example",
        ),
        pytest.param(
            lesson_md("Nul", "Do \x00 it.").encode(), "contains a NUL byte", id="nul-byte"
        ),
        pytest.param(
            b"---\nschema: agentlearning/v1\ntitle: " + b"[" * 5000 + b"\n---\n",
            "front matter",
            id="yaml-nested-deep",
        ),
        pytest.param(
            b"---\nschema: agentlearning/v1\ntitle: T\n---\n## When this applies\n\nY\n",
            "What to do (or avoid)' is missing",
            id="no-correction",
        ),
    ],
)
def test_a_bad_file_among_good_ones_is_reported_and_leaves_nothing(
    folder: Path, content: bytes, expected: str
) -> None:
    write(folder, "mm-bad", content)
    report = import_lessons(TENANT, AGENT, folder)
    assert expected in reason(report), report
    assert_only_good_imported(report, "mm-bad/LESSON.md")


def test_files_that_need_no_fixing_are_read_leniently(folder: Path) -> None:
    """A byte-order mark, a title over several lines (one signature line) and an overlong
    tag (cut as the bank cuts it) are not reasons to refuse a file."""
    write(folder, "bom", b"\xef\xbb\xbf" + lesson_md("With BOM", "Saved by Notepad.").encode())
    write(
        folder,
        "folded",
        "---\nschema: agentlearning/v1\ntitle: |\n  Refund\n  limits\ntags: [" + "t" * 60 + "]\n"
        "---\n## What to do (or avoid)\n\nAsk a manager above 200 EUR.\n",
    )
    report = import_lessons(TENANT, AGENT, folder)
    assert report.errors == [] and len(report.imported) == 4
    titles = {title for _, title, _ in rows()["lessons"]}
    assert {"With BOM", "Refund limits"} <= titles


def test_an_unreadable_file_is_reported(folder: Path, sqlite_env: str) -> None:
    bad = write(folder, "mm-bad", lesson_md("Locked", "Nobody may read this."))
    bad.chmod(0)
    if os.geteuid() != 0:
        report = import_lessons(TENANT, AGENT, folder)
    else:  # root reads any file: import as an ordinary user, in a child of this process
        report = _import_as_nobody(folder, sqlite_env)
    assert "cannot be read: Permission denied" in reason(report)
    assert_only_good_imported(report, "mm-bad/LESSON.md")


def test_an_unreadable_folder_is_reported(folder: Path, sqlite_env: str) -> None:
    write(folder, "mm-bad", lesson_md("Locked", "Nobody may list this."))
    (folder / "mm-bad").chmod(0)
    try:
        if os.geteuid() != 0:
            report = import_lessons(TENANT, AGENT, folder)
        else:
            report = _import_as_nobody(folder, sqlite_env)
    finally:
        (folder / "mm-bad").chmod(0o755)
    assert "the folder cannot be read: Permission denied" in reason(report, "mm-bad")
    assert_only_good_imported(report, "mm-bad")


NOBODY = 65534


def _import_as_nobody(folder: Path, sqlite_env: str) -> ImportReport:
    """``import_lessons`` run by a forked child that gave up root (root reads a file whatever
    its mode, so that is the only way to meet the error). The child needs the folder and the
    database: both move to a place an ordinary user can reach for the call."""
    shared = Path(tempfile.mkdtemp(dir="/tmp"))
    shared.chmod(0o777)
    try:
        dispose_engines()  # no connection of this process crosses the fork
        database = Path(sqlite_env.removeprefix("sqlite:///"))
        for path in database.parent.glob(database.name + "*"):
            shutil.copy(path, shared / path.name)
            (shared / path.name).chmod(0o666)
        copied = shared / "lessons"
        shutil.copytree(folder, copied, symlinks=True)  # modes kept: what was locked stays so
        read, write_end = os.pipe()
        pid = os.fork()
        if pid == 0:  # the child: never returns into pytest
            code = 0
            try:
                os.close(read)
                os.setgid(NOBODY)
                os.setuid(NOBODY)
                os.environ["DIGEST_DATABASE_URL"] = f"sqlite:///{shared / database.name}"
                from digest.config import get_settings

                get_settings.cache_clear()
                report = import_lessons(TENANT, AGENT, copied)
                dispose_engines()  # the database file is whole when the parent reads it
                data = {"imported": report.imported, "errors": report.errors}
                os.write(write_end, json.dumps(data).encode())
            except BaseException as exc:  # report anything, never run the parent's teardown
                os.write(write_end, json.dumps({"crash": repr(exc)}).encode())
                code = 1
            finally:
                os._exit(code)
        os.close(write_end)
        with os.fdopen(read, "rb") as pipe:
            data = json.loads(pipe.read())
        os.waitpid(pid, 0)
        assert "crash" not in data, data["crash"]
        for path in shared.glob(database.name + "*"):
            shutil.copy(path, database.parent / path.name)
        dispose_engines()
        return ImportReport(
            imported=[tuple(pair) for pair in data["imported"]],  # type: ignore[misc]
            errors=[tuple(pair) for pair in data["errors"]],  # type: ignore[misc]
        )
    finally:
        for path in [shared, *shared.rglob("*")]:
            if path.is_dir() and not path.is_symlink():
                path.chmod(0o755)
        shutil.rmtree(shared)


# --- a reconciliation that fails leaves nothing behind ------------------------------------------


@pytest.fixture()
def poisoned(monkeypatch: pytest.MonkeyPatch) -> Iterator[dict[str, Any]]:
    """Every model step answered by offline/rules, except that reconciling a candidate that
    contains POISON fails with ``state["error"]()`` while ``state["on"]``."""
    state: dict[str, Any] = {"on": True, "error": lambda: RuntimeError("the model crashed")}

    def handler(messages: Messages) -> str:
        shown = " ".join(str(m.get("content")) for m in messages)
        if state["on"] and step_of(messages) == "reconcile" and "POISON" in shown:
            raise state["error"]()
        return rules(messages)

    with scripted_model(handler) as model:
        use_model(monkeypatch, model.name)
        yield state


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        pytest.param(
            lambda: RuntimeError("the model crashed"),
            "reconciliation failed: RuntimeError: the model crashed",
            id="a-bug",
        ),
        pytest.param(lambda: LLMError("400 bad request"), "not imported: failed", id="llm-error"),
    ],
)
def test_a_file_whose_reconciliation_fails_is_withdrawn(
    folder: Path, poisoned: dict[str, Any], error: Any, expected: str
) -> None:
    manual_lesson(TENANT, AGENT, "refunds: ask a manager before refunds above 200 EUR")
    write(folder, "mm-bad", lesson_md("refunds", "POISON ask a manager before any refund."))
    poisoned["error"] = error
    report = import_lessons(TENANT, AGENT, folder)
    assert expected in reason(report), report
    assert sorted(dict(report.imported)) == ["aa-sizes/LESSON.md", "zz-tracking/LESSON.md"]
    found = rows()
    assert not any("POISON" in text for text in found["texts"]), found  # its event is gone
    assert found["unfinished"] == [] and len(found["lessons"]) == 3

    poisoned["on"] = False  # the model is fixed: the same file imports afresh
    again = import_lessons(TENANT, AGENT, folder)
    assert dict(again.imported)["mm-bad/LESSON.md"] == "imported" and again.errors == []
    assert [t for t in rows()["texts"] if "POISON" in t]


def test_an_earlier_failed_import_of_the_file_is_replaced(folder: Path) -> None:
    first = import_lessons(TENANT, AGENT, folder)
    assert first.errors == []
    with session_scope() as session:  # as an older version could leave it
        session.execute(update(Event).where(Event.kind == "manual_lesson").values(status="failed"))
        session.execute(LessonEvidence.__table__.delete())
        session.execute(Lesson.__table__.delete())
    again = import_lessons(TENANT, AGENT, folder)
    assert again.errors == [] and [r for _, r in again.imported] == ["imported"] * 2
    statuses = sorted(status for _, status, _ in rows()["events"])
    assert statuses == ["reflected", "reflected"] and len(rows()["lessons"]) == 2


def test_importing_from_what_is_not_a_folder_stores_nothing(
    sqlite_env: str, tmp_path: Path
) -> None:
    a_file = tmp_path / "LESSON.md"
    a_file.write_text(GOOD["aa-sizes"])
    for target in (a_file, tmp_path / "missing"):
        with pytest.raises(LessonFileError, match="not a folder"):
            import_lessons(TENANT, AGENT, target)
    assert rows()["events"] == []


# --- through the command line -------------------------------------------------------------------


def test_cli_import_reports_each_bad_file_and_exits_1(folder: Path) -> None:
    os.mkfifo(folder / "fifo-LESSON")  # not named LESSON.md: never looked at
    (folder / "mm-fifo").mkdir()
    os.mkfifo(folder / "mm-fifo" / "LESSON.md")
    write(folder, "mm-long", lesson_md("T" * 250, "Do it."))
    assert run_cli("tenant", "create", "--tenant", TENANT).returncode == 0
    result = run_cli("import", str(folder), "--tenant", TENANT, "--agent", AGENT, "--new-agent")
    assert result.returncode == 1, result.stderr
    lines = result.stderr.strip().splitlines()
    assert lines == [
        "rejected mm-fifo/LESSON.md: not a regular file (a FIFO)",
        "rejected mm-long/LESSON.md: title is 250 characters; the cap is 200",
    ]
    assert "imported 2, already there 0, rejected 2" in result.stdout
    assert rows()["unfinished"] == [] and len(rows()["events"]) == 2

    as_json = run_cli("import", str(folder), "--tenant", TENANT, "--agent", AGENT, "--json")
    assert as_json.returncode == 1
    data = json.loads(as_json.stdout)
    assert [e["file"] for e in data["errors"]] == ["mm-fifo/LESSON.md", "mm-long/LESSON.md"]
    assert [r["result"] for r in data["imported"]] == ["already imported"] * 2


def test_cli_import_of_good_files_exits_0(folder: Path) -> None:
    assert run_cli("tenant", "create", "--tenant", TENANT).returncode == 0
    result = run_cli("import", str(folder), "--tenant", TENANT, "--agent", AGENT, "--new-agent")
    assert result.returncode == 0, result.stderr
    assert result.stderr == "" and "imported 2, already there 0, rejected 0" in result.stdout


# --- export mirrors the bank --------------------------------------------------------------------


@pytest.fixture()
def bank(sqlite_env: str) -> dict[str, int]:
    """Three active lessons of the agent, by slug."""
    return {
        "refund-limits": manual_lesson(TENANT, AGENT, "refund-limits: ask a manager above 200"),
        "tracking": manual_lesson(TENANT, AGENT, "tracking: tracking numbers have 12 digits"),
        "gift-cards": manual_lesson(TENANT, AGENT, "gift-cards: gift cards are never refunded"),
    }


def exported(out: Path) -> list[str]:
    return sorted(p.relative_to(out).as_posix() for p in out.rglob("*") if p.is_file())


def retire(lesson_id: int, status: str = "deleted") -> None:
    set_lesson_status(TENANT, AGENT, lesson_id, status, "no longer true", "ana")


@pytest.mark.parametrize("status", ["deleted", "disabled"])
def test_re_export_removes_the_file_of_a_retired_lesson(
    bank: dict[str, int], tmp_path: Path, status: str
) -> None:
    out = tmp_path / "out"
    first = export_lessons(TENANT, AGENT, out)
    assert len(first.written) == 4 and first.removed == []
    assert exported(out) == [
        MANIFEST_FILE, "_index.md", "gift-cards/LESSON.md", "refund-limits/LESSON.md",
        "tracking/LESSON.md",
    ]  # fmt: skip
    retire(bank["gift-cards"], status)
    again = export_lessons(TENANT, AGENT, out)
    assert again.removed == [out / "gift-cards" / "LESSON.md"] and again.kept == []
    assert not (out / "gift-cards").exists()  # its folder too, once empty
    assert "gift-cards" not in (out / "_index.md").read_text()
    manifest = json.loads((out / MANIFEST_FILE).read_text())
    assert sorted(manifest["files"]) == [
        "_index.md", "refund-limits/LESSON.md", "tracking/LESSON.md"
    ]  # fmt: skip


def test_export_leaves_files_it_did_not_write_alone(bank: dict[str, int], tmp_path: Path) -> None:
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    write(out, "my-own-rule", lesson_md("My rule", "Written by hand."))
    export_lessons(TENANT, AGENT, out)
    (out / "gift-cards" / "photo.png").write_bytes(b"\x89PNG")  # put beside an exported file
    for lesson_id in bank.values():
        retire(lesson_id)
    report = export_lessons(TENANT, AGENT, out)
    assert len(report.removed) == 3 and report.written == [out / "_index.md"]
    assert exported(out) == [
        MANIFEST_FILE, "_index.md", "gift-cards/photo.png", "my-own-rule/LESSON.md", "notes.txt",
    ]  # fmt: skip


def test_a_retired_lessons_file_changed_by_hand_is_kept(
    bank: dict[str, int], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    export_lessons(TENANT, AGENT, out)
    edited = out / "tracking" / "LESSON.md"
    edited.write_text(edited.read_text() + "\nA note of mine.\n")
    retire(bank["tracking"])
    report = export_lessons(TENANT, AGENT, out)
    assert report.kept == [edited] and report.removed == []
    assert edited.exists() and "A note of mine." in edited.read_text()


@pytest.mark.parametrize(
    "manifest",
    [
        pytest.param("not json {", id="corrupt"),
        pytest.param(json.dumps({"schema": "other/1"}), id="foreign-schema"),
        pytest.param(
            json.dumps(
                {
                    "schema": "digest-export/1",
                    "tenant": TENANT,
                    "agent": AGENT,
                    "files": {"../victim/LESSON.md": "x", "/etc/LESSON.md": "x", "notes.txt": "x"},
                }
            ),
            id="paths-outside",
        ),
    ],
)
def test_a_manifest_export_cannot_trust_removes_nothing(
    bank: dict[str, int], tmp_path: Path, manifest: str
) -> None:
    out = tmp_path / "out"
    export_lessons(TENANT, AGENT, out)
    victim = write(tmp_path, "victim", "keep me")
    (out / "notes.txt").write_text("keep me")
    retire(bank["tracking"])
    (out / MANIFEST_FILE).write_text(manifest)
    report = export_lessons(TENANT, AGENT, out)
    assert report.removed == [] and victim.read_text() == "keep me"
    assert (out / "notes.txt").read_text() == "keep me"
    assert json.loads((out / MANIFEST_FILE).read_text())["schema"] == "digest-export/1"


def test_another_agents_export_folder_is_refused(bank: dict[str, int], tmp_path: Path) -> None:
    out = tmp_path / "out"
    export_lessons(TENANT, AGENT, out)
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    manual_lesson(TENANT, "other-bot", "returns: returns take 14 days")
    with pytest.raises(LessonFileError, match="holds the export of agent 'support-bot'"):
        export_lessons(TENANT, "other-bot", out)
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before


def test_export_replaces_a_link_and_never_writes_through_it(
    bank: dict[str, int], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    export_lessons(TENANT, AGENT, out)
    target = tmp_path / "outside.md"
    target.write_text("not yours")
    (out / "tracking" / "LESSON.md").unlink()
    (out / "tracking" / "LESSON.md").symlink_to(target)
    export_lessons(TENANT, AGENT, out)
    assert target.read_text() == "not yours"
    assert not (out / "tracking" / "LESSON.md").is_symlink()


def test_export_refuses_a_linked_lesson_folder(bank: dict[str, int], tmp_path: Path) -> None:
    out, elsewhere = tmp_path / "out", tmp_path / "elsewhere"
    out.mkdir()
    elsewhere.mkdir()
    (out / "tracking").symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(LessonFileError, match="symbolic link"):
        export_lessons(TENANT, AGENT, out)
    assert list(elsewhere.iterdir()) == []
    assert list(out.rglob("LESSON.md")) == [] and not (out / MANIFEST_FILE).exists()


def test_export_then_import_round_trip_with_a_retired_lesson(
    bank: dict[str, int], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    export_lessons(TENANT, AGENT, out)
    retire(bank["refund-limits"])
    export_lessons(TENANT, AGENT, out)
    report = import_lessons(TENANT, "copy-bot", out)
    assert report.errors == [] and len(report.imported) == 2
    with session_scope() as session:
        copied = session.scalars(
            select(Lesson.slug)
            .where(Lesson.agent_id == find_agent(session, TENANT, "copy-bot").id)
            .order_by(Lesson.slug)
        ).all()
    assert copied == ["gift-cards", "tracking"]  # the retired lesson did not come back


def test_cli_export_reports_removed_files_and_refuses_a_file_as_folder(
    bank: dict[str, int], tmp_path: Path
) -> None:
    out = tmp_path / "out"
    who = ("--tenant", TENANT, "--agent", AGENT)
    assert run_cli("export", *who, "--out", str(out)).returncode == 0
    retire(bank["tracking"])
    again = run_cli("export", *who, "--out", str(out), "--json")
    assert again.returncode == 0, again.stderr
    data = json.loads(again.stdout)
    assert data["removed"] == [str(out / "tracking" / "LESSON.md")] and data["kept"] == []
    text = run_cli("export", *who, "--out", str(out))
    assert "wrote 2 lesson(s) and _index.md" in text.stdout
    a_file = tmp_path / "a-file"
    a_file.write_text("x")
    refused = run_cli("export", *who, "--out", str(a_file))
    assert refused.returncode == 2
    assert refused.stderr.strip() == f"error: {a_file} exists and is not a folder"
    assert a_file.read_text() == "x"

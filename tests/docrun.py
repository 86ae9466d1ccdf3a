"""Run the shell commands of a Markdown document as a reader would: in order, in one shell.

``tests/test_docs_run.py`` runs README.md and every docs/*.md with this. What is a command:

- Fenced blocks tagged ``bash``, ``sh``, ``shell`` or ``console``; other blocks (``python``,
  ``json``, untagged diagrams) are not commands. In a ``console`` block, or any block with a
  ``$ `` prompt, only the ``$ `` lines (and their continuations) are commands and the other
  lines are the output the document shows.
- A command ends where the shell would end it: a line that ends in ``\\`` or leaves a quote
  open continues on the next one. Full-line ``#`` comments and blank lines are not commands.
  A ``a && b`` chain is one command per part (the shell would stop at the first failure, and
  so does the run), so a directive can name one part. Heredocs are not supported.
- An untagged block (a diagram, a layout) must hold no line that reads as a command (a ``$ ``
  prompt, ``digest …``, ``curl …``, ``.venv/bin/…``): the run would skip it, so it is an
  error that says to tag the block.

Exceptions are written in the document, in an HTML comment just before the block they are
about (``<!-- doc-run: … -->``, several per comment separated by ``;``). A quoted PREFIX names
the commands of that block that start with it; without one, a directive is about the whole
block:

- ``skip "PREFIX" (why)``: not run, e.g. one that installs from the network or runs the whole
  test suite; ``skip (why)`` skips the block.
- ``exit N "PREFIX"``: the document announces that this command may exit N (0 is fine too).
- ``background "PREFIX" until "TEXT"``: a command that runs until stopped (``digest serve``,
  a worker) is started in the background; the run waits until TEXT is in its output, or, when
  TEXT is an ``http://`` URL, until the URL answers, and stops the command (its process group)
  when the document ends.

Three more are about the whole document and may stand anywhere in it:

- ``setup "COMMAND"``: run before the first block (the document says to run it first).
- ``database NAME``: the PostgreSQL database NAME in the commands (a URL's ``:5432/NAME``, the
  last word of ``createdb`` or ``dropdb``) is a fresh one of this run, dropped after it.
- ``port N``: the port N in the commands is a free one of this run.

A Redis URL ``redis://127.0.0.1:6379/DB`` is always the test's own Redis DB. The shell runs
with ``set -u``, so a placeholder (``$KEY``) an earlier command did not set fails its command:
a document uses names its earlier commands create (``KEY=$(digest tenant key create …)``).
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

SHELL_LANGUAGES = frozenset({"bash", "sh", "shell", "console"})
_FENCE = re.compile(r"^(?P<fence>`{3,}|~{3,})\s*(?P<lang>[\w+-]*)")
_DIRECTIVE = re.compile(r"<!--\s*doc-run:(?P<body>.*?)-->", re.DOTALL)
_QUOTED = r'"(?P<{name}>[^"]*)"'
_SKIP = re.compile(r"^skip(?:\s+" + _QUOTED.format(name="prefix") + r")?(?:\s*\(.*\))?$")
_EXIT = re.compile(r"^exit\s+(?P<code>\d+)(?:\s+" + _QUOTED.format(name="prefix") + r")?$")
_BACKGROUND = re.compile(
    r"^background\s+" + _QUOTED.format(name="prefix") + r"\s+until\s+"
    + _QUOTED.format(name="until") + r"$"
)  # fmt: skip
_SETUP = re.compile(r"^setup\s+" + _QUOTED.format(name="command") + r"$")
_DATABASE = re.compile(r"^database\s+(?P<name>[\w-]+)$")
_PORT = re.compile(r"^port\s+(?P<port>\d+)$")
_REDIS_URL = re.compile(r"redis://127\.0\.0\.1:6379/\d+")
#: a line of an untagged block that reads as a command (a prompt, or one of the commands the
#: documents run): such a block would escape the run, so it is an error
_LOOKS_RUNNABLE = re.compile(
    r"^\s*(?:\$ |(?:digest|celery|curl|createdb|dropdb|docker|export|pip|python3?)\s"
    r"|\.venv/bin/|scripts/)"
)


class DocRunError(Exception):
    """A document that cannot be run as written: a bad directive, a command that failed."""


@dataclass
class Command:
    """One command of a document, where it is, and what the document says about it."""

    text: str
    line: int  # where it starts in the document (1-based)
    skip: bool = False
    exits: frozenset[int] = frozenset({0})
    background_until: str | None = None


@dataclass
class Document:
    path: Path
    commands: list[Command]
    setup: list[str] = field(default_factory=list)
    databases: list[str] = field(default_factory=list)
    ports: list[int] = field(default_factory=list)


@dataclass
class Step:
    """What one command did: its exit status and what it printed."""

    command: Command
    text: str  # as run, after the run's stand-ins
    returncode: int | None  # None: started in the background
    stdout: str
    stderr: str
    seconds: float


# --- parsing -------------------------------------------------------------------------------


def _complete(text: str) -> bool:
    """Would the shell run ``text`` now (no open quote, no trailing backslash)?"""
    if text.rstrip().endswith("\\"):
        return False
    try:
        shlex.split(text, comments=True)
    except ValueError:  # an open quote
        return False
    return True


def _split_and(text: str) -> list[str]:
    """``a && b`` as ``[a, b]``, splitting only outside quotes and ``$( )``."""
    parts, start, depth, quote, i = [], 0, 0, "", 0
    while i < len(text):
        char = text[i]
        if quote:
            if char == "\\" and quote == '"':
                i += 1
            elif char == quote:
                quote = ""
        elif char == "\\":
            i += 1
        elif char in "'\"":
            quote = char
        elif text.startswith("$(", i):
            depth += 1
        elif char == ")" and depth:
            depth -= 1
        elif text.startswith("&&", i) and not depth:
            parts.append(text[start:i].strip())
            start = i + 2
        i += 1
    parts.append(text[start:].strip())
    return [part for part in parts if part]


def _block_commands(lines: list[str], first_line: int, lang: str) -> list[tuple[str, int]]:
    """The commands of one fenced block's lines, each with the document line it starts on."""
    prompted = lang == "console" or any(line.startswith("$ ") for line in lines)
    commands: list[tuple[str, int]] = []
    pending: list[str] = []
    start = 0
    for offset, line in enumerate(lines):
        if pending:
            pending.append(line[2:] if prompted and line.startswith("> ") else line)
        elif prompted:
            if not line.startswith("$ "):
                continue  # output the document shows
            pending, start = [line[2:]], first_line + offset
        else:
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            pending, start = [line], first_line + offset
        text = "\n".join(pending)
        if _complete(text):
            commands.extend((part, start) for part in _split_and(text))
            pending = []
    if pending:
        raise DocRunError(f"line {start}: a command never ends (open quote or trailing \\)")
    return commands


def _directives(comment: str) -> list[str]:
    """A comment's directives: split at ``;`` outside quotes and parentheses."""
    parts, current, depth, quoted = [], "", 0, False
    for char in comment:
        if char == '"':
            quoted = not quoted
        elif not quoted and char in "()":
            depth += 1 if char == "(" else -1
        elif char == ";" and not quoted and not depth:
            parts.append(current)
            current = ""
            continue
        current += char
    parts.append(current)
    return [" ".join(part.split()) for part in parts if part.strip()]


def parse(path: Path) -> Document:
    """Every command of the document at ``path`` with what its directives say."""
    lines = path.read_text(encoding="utf-8").splitlines()
    document = Document(path, [])
    pending: list[tuple[str, int]] = []  # directives for the next block, with their line
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("<!--") and "doc-run:" in line:
            end = i
            while "-->" not in lines[end]:
                end += 1
                if end == len(lines):
                    raise DocRunError(f"{path.name}:{i + 1}: a doc-run comment never ends")
            for match in _DIRECTIVE.finditer("\n".join(lines[i : end + 1])):
                for directive in _directives(match["body"]):
                    if not _document_directive(document, directive):
                        pending.append((directive, i + 1))
            i = end + 1
            continue
        fence = _FENCE.match(line)
        if not fence:
            i += 1
            continue
        close = i + 1
        while close < len(lines) and not lines[close].startswith(fence["fence"]):
            close += 1
        lang = fence["lang"].lower()
        if lang in SHELL_LANGUAGES:
            block = [Command(text, start) for text, start in
                     _block_commands(lines[i + 1 : close], i + 2, lang)]  # fmt: skip
            for directive, at in pending:
                _apply(block, directive, f"{path.name}:{at}")
            document.commands.extend(block)
        elif pending:
            raise DocRunError(
                f"{path.name}:{pending[0][1]}: doc-run directive before a {lang!r} block"
            )
        elif not lang and any(_LOOKS_RUNNABLE.match(text) for text in lines[i + 1 : close]):
            raise DocRunError(
                f"{path.name}:{i + 1}: an untagged block holds a command, which the run would "
                "not see: tag it bash (or console, with $ prompts)"
            )
        pending = []
        i = close + 1
    if pending:
        raise DocRunError(f"{path.name}:{pending[0][1]}: doc-run directive before no block")
    return document


def _document_directive(document: Document, directive: str) -> bool:
    if match := _SETUP.match(directive):
        document.setup.append(match["command"])
    elif match := _DATABASE.match(directive):
        document.databases.append(match["name"])
    elif match := _PORT.match(directive):
        document.ports.append(int(match["port"]))
    else:
        return False
    return True


def _apply(block: list[Command], directive: str, where: str) -> None:
    """Mark the commands of ``block`` that ``directive`` is about; an unknown directive, or a
    PREFIX no command has, is an error (a directive that silently matches nothing would hide a
    renamed command)."""
    if match := _SKIP.match(directive):
        chosen = _matching(block, match["prefix"], where)
        for command in chosen:
            command.skip = True
    elif match := _EXIT.match(directive):
        for command in _matching(block, match["prefix"], where):
            command.exits = command.exits | {int(match["code"])}
    elif match := _BACKGROUND.match(directive):
        for command in _matching(block, match["prefix"], where):
            command.background_until = match["until"]
    else:
        raise DocRunError(f"{where}: unknown doc-run directive {directive!r}")


def _matching(block: list[Command], prefix: str | None, where: str) -> list[Command]:
    if prefix is None:
        return block
    chosen = [command for command in block if command.text.startswith(prefix)]
    if not chosen:
        raise DocRunError(f"{where}: no command of the next block starts with {prefix!r}")
    return chosen


# --- running -------------------------------------------------------------------------------


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


@dataclass
class StandIns:
    """The run's own values for what the document names: databases, ports, the Redis DB."""

    databases: dict[str, str]
    ports: dict[int, int]
    redis_url: str

    def apply(self, text: str) -> str:
        for name, fresh in self.databases.items():
            text = re.sub(rf"(:5432/){re.escape(name)}\b", rf"\g<1>{fresh}", text)
            text = re.sub(
                rf"^((?:createdb|dropdb)\b.*\s){re.escape(name)}$", rf"\g<1>{fresh}", text
            )
        for port, fresh_port in self.ports.items():
            text = re.sub(rf"(?<![\w.]){port}(?![\w.])", str(fresh_port), text)
        return _REDIS_URL.sub(self.redis_url, text)


class Shell:
    """One ``bash`` session: commands run in it one by one (so ``export`` and ``cd`` carry
    over), each with its output in files of its own and its exit status read back."""

    def __init__(self, cwd: Path, env: dict[str, str], logs: Path) -> None:
        self.logs = logs
        logs.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(
            ["bash", "--noprofile", "--norc"], cwd=cwd, env=env, stdin=subprocess.PIPE,
            stdout=(logs / "shell.out").open("wb"), stderr=subprocess.STDOUT, text=True,
            start_new_session=True,
        )  # fmt: skip
        self.count = 0
        self.background: list[int] = []
        self._send("set -u -m")  # -m: a background command leads its own process group

    def _send(self, script: str) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(script + "\n")
        self.proc.stdin.flush()

    def _wait_for_file(self, path: Path, timeout: float, what: str) -> str:
        deadline = time.monotonic() + timeout
        while not path.exists():
            if self.proc.poll() is not None:
                raise DocRunError(f"the shell exited during {what}")
            if time.monotonic() > deadline:
                raise DocRunError(
                    f"{what} did not end within {timeout:.0f} s (a command that runs until"
                    " stopped needs a `background` directive)"
                )
            time.sleep(0.05)
        return path.read_text()

    def run(self, text: str, timeout: float) -> tuple[int, str, str]:
        """Run ``text`` in the session; its exit status, stdout and stderr."""
        self.count += 1
        base = self.logs / str(self.count)
        self._send(
            f"{{ {text}\n}} >{base}.out 2>{base}.err </dev/null; "
            f"echo $? >{base}.rc.tmp; mv {base}.rc.tmp {base}.rc"
        )
        try:
            status = int(self._wait_for_file(Path(f"{base}.rc"), timeout, repr(text)))
        except DocRunError as exc:
            raise DocRunError(f"{exc}\n--- stderr\n{_read(Path(f'{base}.err'))[-3000:]}") from None
        return status, _read(Path(f"{base}.out")), _read(Path(f"{base}.err"))

    def start(self, text: str, until: str, timeout: float) -> str:
        """Start ``text`` in the background and wait until it is ready; what it printed."""
        self.count += 1
        base = self.logs / str(self.count)
        self._send(
            f"{{ {text}\n}} >{base}.out 2>&1 </dev/null &\n"
            f"echo $! >{base}.pid.tmp; mv {base}.pid.tmp {base}.pid"
        )
        pid = int(self._wait_for_file(Path(f"{base}.pid"), 30, f"starting {text!r}"))
        self.background.append(pid)
        deadline = time.monotonic() + timeout
        while not _ready(until, Path(f"{base}.out")):
            if not _alive(pid):
                raise DocRunError(f"{text!r} exited before it was ready:\n"
                                  + _read(Path(f"{base}.out"))[-3000:])  # fmt: skip
            if time.monotonic() > deadline:
                raise DocRunError(f"{text!r} not ready ({until!r}) within {timeout:.0f} s:\n"
                                  + _read(Path(f"{base}.out"))[-3000:])  # fmt: skip
            time.sleep(0.1)
        return _read(Path(f"{base}.out"))

    def close(self) -> None:
        """Stop every background command (its whole process group, SIGTERM first, as a
        person would stop it), then the shell and whatever it still runs: the shell leads a
        session of its own, and nothing started in it outlives the run."""
        for pid in self.background:
            _stop_group(pid)
        for pid in _session_members(self.proc.pid):
            if pid != self.proc.pid:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def _read(path: Path) -> str:
    return path.read_text(errors="replace") if path.exists() else ""


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, IndexError):
        return False
    return state != "Z"


def _ready(until: str, output: Path) -> bool:
    if until.startswith("http://"):
        try:
            with urllib.request.urlopen(until, timeout=2) as response:
                return bool(200 <= response.status < 300)
        except (urllib.error.URLError, OSError):
            return False
    return until in _read(output)


def _stop_group(pid: int, grace: float = 20) -> None:
    try:
        os.killpg(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + grace
    while _group_alive(pid) and time.monotonic() < deadline:
        time.sleep(0.1)
    if _group_alive(pid):
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pid, signal.SIGKILL)


def _processes() -> Iterator[tuple[int, str, int, int]]:
    """Every process: its pid, state, process group and session."""
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except (FileNotFoundError, IndexError, ProcessLookupError):
            continue
        yield int(stat.parent.name), fields[0], int(fields[2]), int(fields[3])


def _group_alive(pgid: int) -> bool:
    return any(group == pgid and state != "Z" for _, state, group, _ in _processes())


def _session_members(sid: int) -> list[int]:
    return [pid for pid, state, _, session in _processes() if session == sid and state != "Z"]


def run_document(
    document: Document,
    shell: Shell,
    stand_ins: StandIns,
    timeout: float = 300,
) -> Iterator[Step]:
    """Run the document's setup and commands in ``shell``, yielding each step as it ends.
    A command that exits with a status the document does not announce raises, naming it."""
    setup = [Command(text, 0) for text in document.setup]
    for command in setup + document.commands:
        if command.skip:
            continue
        text = stand_ins.apply(command.text)
        began = time.monotonic()
        if command.background_until is not None:
            until = stand_ins.apply(command.background_until)
            out = shell.start(text, until, timeout=120)
            yield Step(command, text, None, out, "", time.monotonic() - began)
            continue
        status, out, err = shell.run(text, timeout)
        step = Step(command, text, status, out, err, time.monotonic() - began)
        if status not in command.exits:
            announced = ", ".join(str(code) for code in sorted(command.exits))
            raise DocRunError(
                f"{document.path.name}:{command.line}: `{text}` exited {status} "
                f"(the document announces {announced})\n--- stdout\n{out[-3000:]}"
                f"\n--- stderr\n{err[-3000:]}"
            )
        yield step

"""The document runner of tests/test_docs_run.py: what it takes for a command, what the
``doc-run`` directives do, and that a command exiting with a status the document does not
announce fails the run. Small documents written here, run in a real ``bash``; no services."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.docrun import DocRunError, Shell, StandIns, Step, parse, run_document


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "doc.md"
    path.write_text(text)
    return path


def texts(path: Path) -> list[str]:
    return [command.text for command in parse(path).commands]


def test_commands_are_the_shell_blocks_split_as_the_shell_would(tmp_path: Path) -> None:
    doc = write(tmp_path, """Intro.

```python
print("not a command")
```

```bash
# a comment line is no command
export A=1   # a trailing comment stays
curl -d '{"a": 1,
  "b": 2}' http://x \\
  -H 'X: y'

python3 -m venv .venv && .venv/bin/pip install -e . && echo "a && b"
```

```console
$ digest stats
agent   events
bot     3
$ echo one \\
> two
one two
```

```
untagged: a diagram
```
""")  # fmt: skip
    assert texts(doc) == [
        "export A=1   # a trailing comment stays",
        "curl -d '{\"a\": 1,\n  \"b\": 2}' http://x \\\n  -H 'X: y'",
        "python3 -m venv .venv",
        ".venv/bin/pip install -e .",
        'echo "a && b"',
        "digest stats",
        "echo one \\\ntwo",
    ]
    assert [command.line for command in parse(doc).commands][:3] == [9, 10, 14]


def test_directives_mark_the_commands_of_the_next_block(tmp_path: Path) -> None:
    doc = write(tmp_path, """<!-- doc-run: database digest; port 8000 -->
<!-- doc-run: setup "digest demo" -->

<!-- doc-run: skip "scripts/setup-dev" (runs the suite; this test is in it);
     exit 1 "digest doctor"; background "digest serve" until "http://127.0.0.1:8000/healthz" -->
```bash
scripts/setup-dev
digest doctor
digest serve --port 8000
digest stats
```

<!-- doc-run: skip (Docker does not run here) -->
```bash
docker compose up -d
```
""")  # fmt: skip
    document = parse(doc)
    assert (document.setup, document.databases, document.ports) == (
        ["digest demo"], ["digest"], [8000])  # fmt: skip
    setup, doctor, serve, stats, docker = document.commands
    assert setup.skip and docker.skip and not (doctor.skip or serve.skip or stats.skip)
    assert doctor.exits == {0, 1} and stats.exits == {0}
    assert serve.background_until == "http://127.0.0.1:8000/healthz"
    assert stats.background_until is None


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ('<!-- doc-run: skipp "x" -->\n```bash\nx\n```\n', "unknown doc-run directive"),
        ('<!-- doc-run: skip "y" -->\n```bash\nx\n```\n', "no command of the next block"),
        ("<!-- doc-run: skip -->\n```python\nx\n```\n", "before a 'python' block"),
        ("<!-- doc-run: skip -->\ntext only\n", "before no block"),
        ("```bash\necho 'open\n```\n", "never ends"),
        ("```\ndigest stats\n```\n", "untagged block holds a command"),
        ("```\n$ celery -A worker beat\n```\n", "untagged block holds a command"),
    ],
)
def test_a_directive_that_names_nothing_is_an_error(
    tmp_path: Path, text: str, message: str
) -> None:
    with pytest.raises(DocRunError, match=message):
        parse(write(tmp_path, text))


def test_an_untagged_diagram_is_no_command(tmp_path: Path) -> None:
    diagram = "```\n agent ──► digest/capture/api.py ──► events\n  digest.record_run(...)\n```\n"
    assert parse(write(tmp_path, diagram)).commands == []


def test_stand_ins_replace_the_named_database_port_and_redis_db() -> None:
    stand_ins = StandIns({"digest": "docrun_x"}, {8000: 41234}, "redis://127.0.0.1:6379/28")
    assert stand_ins.apply("export U=postgresql://postgres@127.0.0.1:5432/digest") == (
        "export U=postgresql://postgres@127.0.0.1:5432/docrun_x")  # fmt: skip
    assert stand_ins.apply("createdb -h 127.0.0.1 -U postgres digest") == (
        "createdb -h 127.0.0.1 -U postgres docrun_x")  # fmt: skip
    assert stand_ins.apply("digest db upgrade") == "digest db upgrade"
    assert stand_ins.apply("curl http://127.0.0.1:8000/x --port 8000 -d 18000") == (
        "curl http://127.0.0.1:41234/x --port 41234 -d 18000")  # fmt: skip
    assert stand_ins.apply("export B=redis://127.0.0.1:6379/0") == (
        "export B=redis://127.0.0.1:6379/28")  # fmt: skip


def run(tmp_path: Path, text: str, timeout: float = 30) -> list[Step]:
    stand_ins = StandIns({}, {}, "redis://127.0.0.1:6379/28")
    env = {"PATH": os.environ["PATH"], "HOME": str(tmp_path)}
    shell = Shell(tmp_path, env, tmp_path / "steps")
    steps: list[Step] = []
    try:
        for step in run_document(parse(write(tmp_path, text)), shell, stand_ins, timeout):
            steps.append(step)
    finally:
        shell.close()
    return steps


def test_one_session_per_document_and_announced_exits_pass(tmp_path: Path) -> None:
    steps = run(tmp_path, """<!-- doc-run: setup "export GREETING=hello" -->
<!-- doc-run: exit 3 "sh -c 'exit 3'" -->
```bash
export NAME=$(echo world)
cd sub 2>/dev/null || mkdir sub && cd sub
echo "$GREETING $NAME" && pwd
sh -c 'exit 3'
```
""")  # fmt: skip
    by_text = {step.text: step for step in steps}
    assert by_text['echo "$GREETING $NAME"'].stdout == "hello world\n"
    assert by_text["pwd"].stdout.strip().endswith("/sub")
    assert by_text["sh -c 'exit 3'"].returncode == 3


def test_an_exit_the_document_does_not_announce_fails_naming_its_line(tmp_path: Path) -> None:
    with pytest.raises(DocRunError, match=r"doc\.md:4: `ls no-such-file` exited 2"):
        run(tmp_path, "Text.\n\n```bash\nls no-such-file\necho never\n```\n")
    assert not (tmp_path / "steps" / "2.rc").exists()  # the run stopped at the failure


def test_a_placeholder_no_command_set_fails(tmp_path: Path) -> None:
    with pytest.raises(DocRunError, match="AGENT_KEY: unbound variable"):
        run(tmp_path, '```bash\ncurl -H "Authorization: Bearer $AGENT_KEY" http://x\n```\n')


def test_a_background_command_is_ready_before_the_next_and_stopped_at_the_end(
    tmp_path: Path,
) -> None:
    steps = run(tmp_path, """<!-- doc-run: background "sh -c" until "listening" -->
```bash
sh -c 'echo $$ > server.pid; echo listening; exec sleep 600'
cat server.pid
```
""")  # fmt: skip
    server, cat = steps
    assert server.returncode is None and "listening" in server.stdout
    pid = int(cat.stdout)
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()


def test_a_command_that_never_ends_fails_and_is_stopped(tmp_path: Path) -> None:
    with pytest.raises(DocRunError, match=r"did not end within 1 s .*`background` directive"):
        run(tmp_path, "```bash\nsh -c 'echo $$ > sleeper.pid; exec sleep 600'\n```\n", timeout=1)
    pid = int((tmp_path / "sleeper.pid").read_text())
    assert not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text()

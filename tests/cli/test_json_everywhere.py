"""``--json`` everywhere a person might script (issue 26): every command has it but those whose
output is for eyes or files only, and the decisions a script takes (tenant create and set,
version approve, reject and rollback, key revoke) print what they did as JSON."""

from __future__ import annotations

import json
from typing import Any

import typer

from digest.cli import app
from tests.cli.conftest import invoke

#: commands without --json, and why: a walk-through, a server, a migration, a unified diff
NO_JSON = {"demo", "serve", "db upgrade", "version diff"}
T, A = "json-shop", "bot"
WHO = ("--tenant", T, "--agent", A)


def as_json(*args: str) -> Any:
    result = invoke(*args, "--json")
    assert result.exit_code == 0, (args, result.output)
    return json.loads(result.stdout)


def test_every_scriptable_command_has_json() -> None:
    missing = []

    def walk(command: Any, path: tuple[str, ...]) -> None:
        children = getattr(command, "commands", None)
        if children is not None:
            for name, child in children.items():
                walk(child, (*path, name))
            return
        options = {opt for param in command.params for opt in getattr(param, "opts", [])}
        if "--json" not in options and " ".join(path) not in NO_JSON:
            missing.append(" ".join(path))

    walk(typer.main.get_command(app), ())
    assert missing == []


def test_decisions_print_what_they_did_as_json(sqlite_env: str) -> None:
    assert as_json("tenant", "create", "--tenant", T) == {
        "tenant": T, "learning_apply_mode": "auto", "overrides": {}, "daily_tokens": None,
        "daily_cost_usd": None, "created": True,
    }  # fmt: skip
    assert as_json("tenant", "create", "--tenant", T)["created"] is False
    invoke("lesson", "add", *WHO, "--new-agent", "refunds: confirm the amount first")
    assert as_json("improve-now", *WHO)["number"] == 1
    assert as_json("tenant", "set", "--tenant", T, "--apply-mode", "approval", "--gate", "3") == {
        "tenant": T, "learning_apply_mode": "approval", "overrides": {"frequency_gate": 3},
        "daily_tokens": None, "daily_cost_usd": None,
    }  # fmt: skip
    invoke("lesson", "add", *WHO, "chargebacks: hand them to a person")
    assert as_json("improve-now", *WHO)["version_status"] == "pending"
    approved = as_json("version", "approve", *WHO, "2", "--by", "ann")
    assert (approved["number"], approved["status"], approved["approved_by"]) == (2, "active", "ann")
    rolled = as_json("version", "rollback", *WHO, "1", "--by", "ann")
    assert (rolled["number"], rolled["status"], rolled["trigger"]) == (3, "active", "rollback")
    invoke("lesson", "add", *WHO, "returns: 30 days from delivery")
    assert as_json("improve-now", *WHO)["number"] == 4
    rejected = as_json("version", "reject", *WHO, "4", "--by", "bob")
    assert (rejected["status"], rejected["approved_by"]) == ("rejected", "bob")

    key = as_json("tenant", "key", "create", "--tenant", T, "--kind", "agent")
    revoked = as_json("tenant", "key", "revoke", "--tenant", T, key["prefix"])
    assert revoked["id"] == key["id"] and revoked["revoked_at"] is not None

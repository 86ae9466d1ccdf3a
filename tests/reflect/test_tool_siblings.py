"""One error of two sibling tools is one lesson (issue 24): ``crm_create_contact`` and
``crm_update_contact`` failing with "Property 'x' does not exist" teach one thing about the
resource. Keys hash tool and template together, so the keys a template would have on a tool's
siblings are computed (``digest.tool_siblings``), and a lesson holding one is shown to the
judge, marked, and joined by the offline rules. Pure: no services."""

from __future__ import annotations

import json

from digest import fingerprint as fp
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.model.offline_reconcile import reconcile as offline_reconcile
from digest.reflect.ask import prompt_blocks, resolve
from digest.reflect.reconcile import fast_path, for_the_judge
from digest.tool_siblings import sibling_keys, sibling_names

FLOOR = 0.5


def test_a_tools_siblings_are_its_name_with_another_action() -> None:
    names = sibling_names("hubspot_create_contact")
    assert "hubspot_update_contact" in names and "hubspot_delete_contact" in names
    assert "hubspot_create_contact" not in names  # not its own sibling
    assert "hubspot_create_deal" not in names  # another resource is not a sibling
    # an action run into the resource (camelCase, lower-cased in the key), or dotted
    assert "updatecontact" in sibling_names("createContact")
    assert "contacts.get" in sibling_names("contacts.patch")
    # a name with no action has no siblings; an action in a short word is not one
    assert sibling_names("weather") == ()
    assert not any(n.startswith("re") for n in sibling_names("reset_password"))


def test_sibling_keys_are_the_keys_of_the_same_template_on_the_siblings() -> None:
    error = 'Property "shoe_size" does not exist'
    template = fp.error_template(error)
    keys = sibling_keys("crm_create_contact", template)
    assert fp.tool_key("crm_update_contact", 'Property "hat_size" does not exist') in keys
    # another error of the sibling, or the same error of another resource's tool, is not
    assert fp.tool_key("crm_update_contact", "Contact already exists") not in keys
    assert fp.tool_key("crm_create_deal", error) not in keys
    assert sibling_keys(None, template) == ()  # a run's own error has no tool


def _lesson(tool: str, error: str) -> tuple[str, str, str]:
    return (
        f"Calling the `{tool}` tool",
        f"Called `{tool}` and it failed: «{error}»",
        f"Use a name the schema has: `{tool}` fails with «{error}». Read the schema first.",
    )


def _pair(
    first: tuple[str, str], second: tuple[str, str], *, relevance: float = 0.2
) -> tuple[Candidate, Neighbour]:
    """A lesson of ``first`` (tool, error) stored, and a candidate of ``second``."""
    situation, mistake, correction = _lesson(*first)
    neighbour = Neighbour(
        lesson_id=7, relevance=relevance, identity=0.3, title="t", situation=situation,
        mistake=mistake, correction=correction, tags=("tool-error", "unknown-name"),
        fingerprint=fp.tool_key(*first),
    )  # fmt: skip
    situation, mistake, correction = _lesson(*second)
    tool, error = second
    candidate = Candidate(
        situation, correction, mistake, ("tool-error", "unknown-name"),
        fingerprint=fp.tool_key(tool, error),
        sibling_keys=sibling_keys(tool, fp.error_template(error)),
    )  # fmt: skip
    return candidate, neighbour


CREATE = ("crm_create_contact", 'Property "shoe_size" does not exist')
UPDATE = ("crm_update_contact", 'Property "hat_size" does not exist')


def test_a_siblings_same_error_goes_to_the_judge_and_the_offline_rules_join_it() -> None:
    candidate, neighbour = _pair(CREATE, UPDATE)
    assert fp.other_subject(candidate.fingerprint, neighbour.fingerprint)
    assert for_the_judge(candidate, neighbour, FLOOR)
    assert fast_path(0, candidate, [neighbour], floor=FLOOR, identical=0.95) is None
    existing, shown, id_map = prompt_blocks({0: candidate}, [neighbour])
    assert json.loads(existing)[0]["sibling_error"] == [0]
    answered = json.loads(offline_reconcile(json.loads(existing), json.loads(shown)))
    assert [(o["op"], o.get("id")) for o in answered["operations"]] == [("NOOP", 0)]
    # the judge's NOOP stands (nothing is lost: the candidate is the lesson's support)
    plan = resolve(answered["operations"], {0: candidate}, id_map, [neighbour])
    assert [(op.op, op.lesson_id) for op in plan.operations] == [("NOOP", 7)]


def test_another_error_of_a_sibling_or_the_same_error_of_another_tool_is_not_shown() -> None:
    other_error = ("crm_update_contact", "HTTP 409 Conflict: Contact already exists")
    candidate, neighbour = _pair(CREATE, other_error)
    assert not for_the_judge(candidate, neighbour, FLOOR)
    existing, _, _ = prompt_blocks({0: candidate}, [neighbour])
    assert "sibling_error" not in json.loads(existing)[0]
    candidate, neighbour = _pair(CREATE, ("billing_update_invoice", CREATE[1]))
    assert not for_the_judge(candidate, neighbour, FLOOR)
    operation = fast_path(0, candidate, [neighbour], floor=FLOOR, identical=0.95)
    assert operation is not None and operation.op == "ADD"


def test_the_search_keeps_a_siblings_lesson_that_other_subjects_leave_out() -> None:
    """The neighbour search leaves out another tool's lessons (``others_of_kind=False``) but
    keeps one holding the candidate's error on a sibling tool, whatever its words."""
    from digest.identity.index import AgentIndex, Entry

    error = 'Property "shoe_size" does not exist'
    sibling = fp.tool_key("crm_create_contact", error)
    stranger = fp.tool_key("billing_create_invoice", error)
    index = AgentIndex([
        Entry(1, "Use a name the schema has when creating contacts", fingerprint=sibling),
        Entry(2, "Use a name the schema has when creating invoices", fingerprint=stranger),
    ])  # fmt: skip
    key = fp.tool_key("crm_update_contact", 'Property "hat_size" does not exist')
    kin = sibling_keys(
        "crm_update_contact", fp.error_template('Property "hat_size" does not exist')
    )
    probe = "Use a name the schema has when updating contacts"
    found = index.search(probe, k=5, fingerprint=key, mode="lexical", others_of_kind=False)
    assert found == []
    found = index.search(
        probe, k=5, fingerprint=key, mode="lexical", others_of_kind=False, siblings=kin
    )
    assert [hit.lesson_id for hit in found] == [1]

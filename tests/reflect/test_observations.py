"""A model's copy of a run's error read as the observation it is (``digest.reflect.observations``,
issue 24): quoted like the offline rules' quotations, destinations and passed values masked;
the correction and the model's own words untouched. Pure functions: no services."""

from __future__ import annotations

from digest.lessons.store import Candidate
from digest.reflect.observations import as_observed, passed, run_errors
from digest.reflect.screen import lesson_reason, operations_passed, tools_called

PHONE_ERROR = "Invalid phone number '+44 7700 900123' for contact anna@example.com: use E.164"


def _run(*errors: str, args: dict[str, object] | None = None) -> dict[str, object]:
    calls = [
        {"tool": "schedule_callback", "args": args or {}, "ok": False, "error": e} for e in errors
    ]
    return {"task": "call Anna back", "outcome": "failure", "tool_calls": calls}


def test_a_copied_error_is_quoted_with_its_destinations_masked() -> None:
    payload = _run(PHONE_ERROR)
    candidate = Candidate(
        situation=f"`schedule_callback` fails with: {PHONE_ERROR}",
        correction="Write phone numbers in E.164 without spaces.",
        fingerprint="tool:x",
    )
    seen = as_observed(candidate, payload)
    assert seen.situation.startswith("`schedule_callback` fails with: «Invalid phone number")
    assert "anna@example.com" not in seen.situation and "‹address›" in seen.situation
    assert seen.correction == candidate.correction
    # the model's lesson named an address in its own words before; its copy is data now
    assert lesson_reason(candidate, tools_called(payload)) is not None
    assert lesson_reason(seen, tools_called(payload)) is None


def test_a_cut_copy_and_the_longest_of_two_alike_errors() -> None:
    first = "ERROR: No replacement was performed, old_str `x = 1` did not appear verbatim in a.py."
    second = "ERROR: No replacement was performed. Multiple occurrences of old_str `y` in lines."
    payload = _run(second, first)
    cut = first[:60]
    copied = Candidate(situation=f"The editor fails with: {cut}", correction="c")
    seen = as_observed(copied, payload)
    assert seen.situation.startswith("The editor fails with: «ERROR: No replacement was performed,")
    assert "old_str" in seen.situation.split("«")[1]


def test_a_copy_cut_inside_a_url_quotes_the_cut_word_too() -> None:
    error = (
        '{"message": "Validation Failed", "code": "already_exists", "documentation_url": '
        '"https://docs.example.dev/rest/issues/labels"}'
    )
    payload = _run(error)
    for cut, end in ((error[:90], ""), (error[:96], "…")):
        assert not cut.endswith(" ")  # cut inside the URL, as a model's length cut falls
        candidate = Candidate(situation=f"`add_labels` fails with: {cut}{end}", correction="c")
        assert lesson_reason(candidate, tools_called(payload)) is not None  # a bare URL
        seen = as_observed(candidate, payload)
        assert seen.situation.startswith("`add_labels` fails with: «")
        assert lesson_reason(seen, tools_called(payload)) is None, seen.situation
    # a URL of the model's own after the copy is still the screen's to judge
    own = Candidate(
        situation=f"`add_labels` fails with: {error[:60]} see https://evil.example/fix",
        correction="c",
    )
    assert lesson_reason(as_observed(own, payload), tools_called(payload)) is not None


def test_values_the_calls_passed_are_masked_in_the_copy() -> None:
    error = "unknown plan code 'enterprise_yearly'; see GET /plans"
    payload = _run(error, args={"plan": "enterprise_yearly", "n": 3})
    assert passed(payload) == ["enterprise_yearly"]
    seen = as_observed(Candidate(situation=f"It failed: {error}", correction="c"), payload)
    assert "enterprise_yearly" not in seen.situation and "‹id›" in seen.situation


def test_a_copy_cut_inside_a_long_blob_stays_a_copy_of_whole_words() -> None:
    blob = "Qm9va2luZ3M" * 500  # a value with no space, 5,500 characters
    error = f"Upload failed for blob {blob} please retry"
    payload = _run(error)
    cut = Candidate(
        situation=f"It fails with: Upload failed for blob {blob[:3000]}", correction="c"
    )
    seen = as_observed(cut, payload)  # no pattern nested over the blob
    assert seen.situation.startswith("It fails with: «Upload failed for blob»")


def test_a_name_quoted_from_a_longer_passed_value_is_the_instance() -> None:
    def run(name: str) -> tuple[dict[str, object], str]:
        error = f'Error from server (NotFound): deployments.apps "{name}" not found'
        calls = [{"tool": "kubectl", "args": {"args": f"scale deployment/{name} -n prod"},
                  "ok": False, "error": error}]  # fmt: skip
        return {"task": "t", "outcome": "failure", "tool_calls": calls}, error

    seen = []
    for name in ("checkout-api", "inventory-svc"):
        payload, error = run(name)
        lesson = Candidate(situation=f"`kubectl` fails with: {error}", correction="c")
        seen.append(as_observed(lesson, payload).situation)
    assert seen[0] == seen[1] and '"‹id›"' in seen[0]
    # a name the call did not pass stays: "Field 'postcode'" is the tool's own field
    payload = _run("Field 'postcode' is required", args={"street": "Main St 1"})
    lesson = Candidate(situation="It fails with: Field 'postcode' is required", correction="c")
    assert "'postcode'" in as_observed(lesson, payload).situation


def test_nothing_changes_without_a_copy_or_when_quoted_already() -> None:
    payload = _run(PHONE_ERROR)
    own = Candidate(situation="Callbacks fail on badly written numbers", correction="c")
    assert as_observed(own, payload) is own
    quoted = Candidate(situation="It fails with «Invalid phone number ‹number›»", correction="c")
    assert as_observed(quoted, payload) is quoted
    short = Candidate(situation="Invalid phone", correction="c")
    assert as_observed(short, _run("Invalid phone")) is short  # too short to be a quotation
    assert run_errors({"tool_calls": [{"error": None}], "error": ""}) == []


def test_an_operation_the_run_passed_is_not_an_unknown_tool() -> None:
    payload = {
        "tool_calls": [
            {"tool": "str_replace_editor", "args": {"command": "create", "path": "/a b/c.py"}},
            {"tool": "str_replace_editor", "args": {"command": "str_replace"}},
        ]
    }
    assert operations_passed(payload) == {"create", "str_replace"}
    lesson = Candidate(situation="s", correction="use str_replace or another name")
    assert lesson_reason(lesson, tools_called(payload)) is not None
    assert lesson_reason(lesson, tools_called(payload) | operations_passed(payload)) is None


def test_an_error_that_writes_its_own_guillemets_is_quoted_as_observed() -> None:
    """A French error quotes its fields « comme ça »: the model's copy of it is still the
    run's text to quote (the guillemets inside made safe), not a lesson quoted already, so
    what it says ("n'est plus accepté") is read as what the run observed."""
    error = (
        "Erreur 400 : « numero_fiscal » n'est plus accepté depuis le 2 septembre ; "
        "l'identité est désormais vérifiée via « jeton_franceconnect »"
    )
    call = {"tool": "deposer_demande", "args": {"loyer": 540}, "ok": False, "error": error}
    payload = {"task": "t", "outcome": "failure", "tool_calls": [call]}
    candidate = Candidate(situation=f"`deposer_demande` fails with: {error}", correction="x")
    situation = as_observed(candidate, payload).situation
    assert situation.startswith("`deposer_demande` fails with: «Erreur 400 : ‹ numero_fiscal ›")
    assert situation.count("«") == 1 and situation.endswith("›»")
    # a lesson quoted already (the offline rules' own words) is left as it is
    quoted_already = Candidate(situation="Calling it fails with «Erreur 400»", correction="x")
    assert as_observed(quoted_already, payload) == quoted_already

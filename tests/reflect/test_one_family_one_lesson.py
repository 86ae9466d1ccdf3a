"""One recurring error family, one lesson (issue 24, point 4): the same failure of a tool
reported with another instance (a figure the call passed, a named place) or in another language
must reach the lesson it repeats, and a different failure of the tool must stay apart."""

from __future__ import annotations

import pytest

from digest import fingerprint as fp
from digest.lessons.neighbours import Neighbour
from digest.lessons.store import Candidate
from digest.model.transient import transient
from digest.reflect.ask import resolve
from digest.reflect.reconcile import fast_path
from digest.reflect.shared_words import names_apart_only

FLOOR = 0.5
IDENTICAL = 0.95
NOOP_ONE = [{"op": "NOOP", "candidate": 0, "id": 0}]


def _key(tool: str, args: dict[str, object], error: str) -> str:
    return fp.tool_key(tool, fp.call_error({"args": args, "error": error}))


def test_a_figure_the_call_passed_is_the_instance_not_the_rule() -> None:
    """A postcode, an account or a port the call passed and its error names back is the
    call's instance: repeats with other values share one key. A limit the tool states (no
    value the call passed) stays in the key: "30 kg" and "25 kg" are two rules."""
    wrong_city = "Errore: indirizzo non valido, il CAP {} non corrisponde a {}"
    milan = _key("crea_etichetta", {"cap": "00199", "citta": "Milano"},
                 wrong_city.format("00199", "Milano"))  # fmt: skip
    turin = _key("crea_etichetta", {"cap": "20121", "citta": "Torino"},
                 wrong_city.format("20121", "Torino"))  # fmt: skip
    assert milan == turin
    over = "Error: weight {} kg exceeds the {} kg limit per parcel"
    thirty = _key("create_label", {"weight_kg": 41}, over.format(41, 30))
    twenty_five = _key("create_label", {"weight_kg": 41}, over.format(41, 25))
    assert thirty != twenty_five


def _failure(
    tool: str, error: str, args: str, lesson_id: int = 0, relevance: float = 0.87
) -> tuple[Candidate, Neighbour]:
    """A tool failure's lesson in the offline judge's words, as candidate and as neighbour."""
    situation = f"Calling the `{tool}` tool"
    correction = (
        f"Change the arguments or the approach: `{tool}` fails with «{error}». Calling it"
        f" again unchanged fails the same way. Observed: `{tool}` failed with «{error}»."
    )
    mistake = f"Called `{tool}` with «{args}» and it failed: «{error}»"
    key = fp.tool_key(tool, error)
    candidate = Candidate(
        situation=situation, correction=correction, mistake=mistake, tags=(tool, "tool-error"),
        fingerprint=key,
    )  # fmt: skip
    neighbour = Neighbour(
        lesson_id=lesson_id, relevance=relevance, identity=0.5, title="t", situation=situation,
        mistake=mistake, correction=correction, tags=(tool, "tool-error"), fingerprint=key,
    )  # fmt: skip
    return candidate, neighbour


DUTCH_ARGS = '{"datum": "2025-04-02", "kenteken": "BT-55-PL"}'


@pytest.mark.parametrize("relevance", [0.3, 0.87])
def test_the_tools_failure_in_another_language_goes_to_the_judge_however_close(
    relevance: float,
) -> None:
    """Below the floor or above it, one error of a tool in two languages is for the judge: no
    rule of words reads it across languages. The call's argument names (a Dutch API's
    "kenteken" beside an English error) are not the error's language."""
    _, dutch = _failure(
        "plan_onderhoud", "Fout: voertuig ‹id› heeft een openstaande terugroepactie",
        DUTCH_ARGS, lesson_id=1, relevance=relevance,
    )  # fmt: skip
    english, _ = _failure(
        "plan_onderhoud", "Error: vehicle ‹id› has an open recall; resolve it first", DUTCH_ARGS
    )
    assert fp.distinct(english.fingerprint, dutch.fingerprint)
    assert fast_path(0, english, [dutch], floor=FLOOR, identical=IDENTICAL) is None


def test_another_failure_of_the_tool_in_its_own_language_close_by_is_a_free_add() -> None:
    _, workshop = _failure(
        "plan_onderhoud", "Error: the workshop in Utrecht is full on ‹date›", DUTCH_ARGS, 1
    )
    recall, _ = _failure(
        "plan_onderhoud", "Error: vehicle ‹id› has an open recall; resolve it first", DUTCH_ARGS
    )
    op = fast_path(0, recall, [workshop], floor=FLOOR, identical=IDENTICAL)
    assert op is not None and (op.op, op.fast) == ("ADD", True)


def _cut(tool: str, error: str, head: str, lesson_id: int) -> Neighbour:
    """A lesson as the offline judge words it when its title cuts the error (``«head…»``) and
    says the whole error as observed."""
    return Neighbour(
        lesson_id=lesson_id, relevance=0.6, identity=0.5, title="t",
        situation=f"Calling the `{tool}` tool",
        mistake=f'Called `{tool}` with «{{"datum": "2025-03-20", "site": "S-77"}}» and it failed:'
        f" «{error}»",
        correction=f"Change the arguments or the approach: `{tool}` fails with «{head}…». Calling"
        f" it again unchanged fails the same way. Observed: `{tool}` failed with «{error}».",
        tags=(tool, "tool-error"), fingerprint=fp.tool_key(tool, error),
    )  # fmt: skip


def _whole(tool: str, error: str) -> Candidate:
    """A candidate whose title quotes the error's whole statement past its label (short
    enough: no "Observed")."""
    statement = error.split(": ", 1)[-1]
    return Candidate(
        situation=f"Calling the `{tool}` tool",
        mistake=f'Called `{tool}` with «{{"datum": "2025-04-11", "site": "S-90"}}» and it failed:'
        f" «{error}»",
        correction=f"Change the arguments or the approach: `{tool}` fails with «{statement}»."
        " Calling it again unchanged fails the same way.",
        tags=(tool, "tool-error"), fingerprint=fp.tool_key(tool, error),
    )  # fmt: skip


@pytest.mark.parametrize(
    ("shown", "head", "asked"),
    [
        ("Fout: werkplaats Utrecht is vol op ‹date›", "werkplaats Utrecht",
         "Fout: werkplaats Amersfoort is vol op ‹date›"),
        ("Error: no courier covers Leeds on Sundays", "no courier covers Leeds",
         "Error: no courier covers York on Sundays"),
        ("Erreur : aucun créneau à Lyon ce jour-là", "aucun créneau à Lyon",
         "Erreur : aucun créneau à Nantes ce jour-là"),
    ],
)  # fmt: skip
def test_the_judges_noop_on_the_tools_error_naming_another_instance_stands(
    shown: str, head: str, asked: str
) -> None:
    """One failure of a tool naming another place (a workshop, a city): past their shared
    frame the two errors differ only by a name, the instance, as an id would. The judge that
    called them one is not overruled."""
    lesson, candidate = _cut("plan", shown, head, 77), _whole("plan", asked)
    assert fp.distinct(candidate.fingerprint, lesson.fingerprint)
    [op] = resolve(NOOP_ONE, {0: candidate}, [77], [lesson]).operations
    assert (op.op, op.lesson_id) == ("NOOP", 77)


@pytest.mark.parametrize(
    ("new", "old", "apart_only"),
    [
        ("werkplaats Amersfoort is vol op ‹date›",
         "werkplaats Utrecht…\nFout: werkplaats Utrecht is vol op ‹date›", True),
        # other words past the names: two failures, not one naming another instance
        ("Booking refused: altitude too high for Piotr",
         "Booking refused: insurance missing for Anna", False),
        ("Fout: monteur Jansen is ziek op ‹date›", "Fout: werkplaats Utrecht is vol op ‹date›",
         False),
        # the same names: nothing told apart by a name
        ("Plan Starter not allowed", "Plan Starter not allowed here", False),
    ],
)  # fmt: skip
def test_names_apart_only_reads_the_words_past_the_names(
    new: str, old: str, apart_only: bool
) -> None:
    assert names_apart_only(new, old) is apart_only


@pytest.mark.parametrize(
    ("error", "fault"),
    [
        ("botocore.exceptions.ClientError: An error occurred (SlowDown) when calling the "
         "PutObject operation (reached max retries: 4): Please reduce your request rate.", True),
        ("An error occurred (RequestLimitExceeded) when calling the DescribeInstances "
         "operation: Request limit exceeded.", True),
        ("Error: engine slowdown detected on line 4", False),
        ("botocore.exceptions.ClientError: An error occurred (NoSuchBucket) when calling the "
         "PutObject operation: The specified bucket does not exist", False),
    ],
)  # fmt: skip
def test_a_cloud_api_asking_to_slow_down_is_a_fault_a_retry_fixes(error: str, fault: bool) -> None:
    assert transient(error) is fault

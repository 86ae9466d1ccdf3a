"""What the product reads from an event goes on the lessons a model wrote about it
(``digest.reflect.verdict.with_fingerprints``): a model words its tags its own way, and what
tells two edits' tone rules one (``digest.edits.same_tone``) or two errors of a tool one state
(``fp.same_error_family``) reads the edit rule's shape names and the error's family, not the
model's words. Pure: no services."""

from __future__ import annotations

from digest import fingerprint as fp
from digest.edits import same_tone
from digest.lessons.store import Candidate
from digest.reflect.verdict import with_fingerprints
from tests.conftest import make_claimed


def _edit(original: str, final: str) -> object:
    return make_claimed(
        kind="operator_edit", trust="high", payload={"original": original, "final": final}
    )


def test_a_models_tone_lessons_of_two_edits_carry_the_shape_they_share() -> None:
    # a model that never writes "removed-exclamation": what it says of the tone is its own
    tone = Candidate("Replying to a customer", "Keep it calm and plain.", None, ("style",))
    content = Candidate(
        "Replying about deliveries", "Tell customers that pallets are unloaded at the kerb.",
        None, ("delivery",),
    )  # fmt: skip
    first = with_fingerprints(
        _edit(
            "Your pallet arrives Monday!!! Our driver carries it to your door!!!",
            "Your pallet arrives Monday. The driver unloads it at the kerb; carrying it inside"
            " is not included.",
        ),
        [content, tone],
    )
    second = with_fingerprints(
        _edit("Thanks so much!!! 😊 Your invoice is attached!", "Your invoice is attached."),
        [tone],
    )
    [first_tone] = [c for c in first if fp.edit_family(c.fingerprint) == "tone"]
    [second_tone] = second
    assert "removed-exclamation" in first_tone.tags and "removed-exclamation" in second_tone.tags
    assert first_tone.tags[-1] == "style"  # the model's own tags kept, after the product's
    assert not fp.same(first_tone.fingerprint, second_tone.fingerprint)  # the emoji too
    assert same_tone(first_tone.tags, second_tone.tags)
    [first_content] = [c for c in first if fp.edit_family(c.fingerprint) == "content"]
    # a content rule's own names are bookkeeping, not tags
    assert set(first_content.tags) == {"operator-edit", "content", "delivery"}


def test_a_models_lessons_of_a_tool_error_carry_the_errors_family() -> None:
    worded = Candidate("Placing an order", "Look at the shelf first.", None, ("orders",))
    for error, family in (
        ("Error: item out of stock (sku KB-88)", "out-of-stock"),
        ("Insufficient balance on gift card GC-1182", "insufficient-funds"),
        ("Coupon SAVE10 cannot be combined with other offers", "not-combinable"),
        ("quantity 12 exceeds the limit of 5 per order", "limit-exceeded"),
    ):
        claimed = make_claimed(
            payload={
                "task": "order a keyboard", "outcome": "failure",
                "tool_calls": [{"tool": "place_order", "args": {}, "ok": False, "error": error}],
            }
        )  # fmt: skip
        [tagged] = with_fingerprints(claimed, [worded])
        assert tagged.tags[:2] == (fp.TOOL_ERROR_TAG, family), error
        assert fp.error_family(tagged.tags) == family
        assert tagged.tags[-1] == "orders"


def test_tags_a_model_already_wrote_are_not_repeated() -> None:
    claimed = make_claimed(
        payload={
            "task": "order a keyboard", "outcome": "failure",
            "tool_calls": [
                {"tool": "place_order", "args": {}, "ok": False, "error": "item out of stock"}
            ],
        }
    )  # fmt: skip
    own = Candidate("Ordering", "Check stock.", None, ("place_order", "tool-error", "stock"))
    [tagged] = with_fingerprints(claimed, [own])
    assert tagged.tags == own.tags
    run_only = make_claimed(payload={"task": "t", "outcome": "failure", "error": "timed out"})
    [untouched] = with_fingerprints(run_only, [Candidate("A run", "Wait.", None, ("run",))])
    assert untouched.tags == ("run",)  # a run's own error names no tool: no tool-error tag


def test_a_models_tone_lesson_quoting_the_draft_is_still_the_tone_rule() -> None:
    # both lessons quote the draft (its words are the content rule's context as well); the
    # tone lesson names no family, the content lesson states the new fact: one rule each
    draft = "Hey hun!!! Sure, you can pause your membership 😘"
    final = "Hello. You can pause your membership; a freeze costs 5 EUR a month."
    situation = f"Drafting a reply like: {draft}"
    tone = Candidate(situation, "No pet names, exclamation marks or emoji.", None, ())
    content = Candidate(situation, "A freeze costs 5 EUR a month.", None, ())
    for order in ((tone, content), (content, tone)):
        keyed = with_fingerprints(_edit(draft, final), list(order))
        families = [fp.edit_family(c.fingerprint) for c in keyed]
        assert families == ["tone" if c is tone else "content" for c in order]
        [tone_lesson] = [c for c in keyed if c.correction == tone.correction]
        assert "removed-emoji" in tone_lesson.tags and "tone" in tone_lesson.tags

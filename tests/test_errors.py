"""digest.errors: the one exception tree. Callers catch what they can act on, so each class
sits where its docstring draws it; errors that name a field carry it; every one has the exit
status the command line uses."""

from __future__ import annotations

import re

import pytest

import digest
from digest import errors
from digest.errors import (
    CaptureUnavailable,
    CompactConflict,
    ConfigError,
    DatabaseUnavailable,
    DigestError,
    InvalidArgument,
    InvalidEvent,
    LessonFileError,
    LessonStateError,
    LLMError,
    LLMOutputError,
    LLMTransientError,
    MissingExtra,
    NotFound,
    OfflineRulesError,
    OwnerInputError,
    StateError,
    VersionStateError,
    is_time_limit,
)

TREE = {
    ConfigError: DigestError,
    MissingExtra: DigestError,
    InvalidEvent: DigestError,
    InvalidArgument: DigestError,
    OwnerInputError: InvalidArgument,
    LessonFileError: InvalidArgument,
    DatabaseUnavailable: DigestError,
    CaptureUnavailable: DatabaseUnavailable,
    NotFound: DigestError,
    StateError: DigestError,
    LessonStateError: StateError,
    VersionStateError: StateError,
    CompactConflict: StateError,
    LLMError: DigestError,
    LLMTransientError: LLMError,
    LLMOutputError: LLMError,
    OfflineRulesError: LLMError,
}


@pytest.mark.parametrize(("child", "parent"), TREE.items(), ids=lambda c: c.__name__)
def test_each_error_sits_where_the_tree_draws_it(child: type, parent: type) -> None:
    assert child.__bases__[0] is parent
    assert child.exit_code == 2


def test_the_docstring_draws_every_class() -> None:
    drawn = errors.__doc__ or ""
    for cls in [DigestError, *TREE]:
        assert cls.__name__ in drawn


def _drawn_parents() -> dict[str, str]:
    """Each class the docstring's tree draws → the class it hangs from (five columns a level)."""
    parents: dict[str, str] = {}
    path: list[str] = []
    for line in (errors.__doc__ or "").splitlines():
        if line.strip() == "DigestError":
            path = ["DigestError"]
            continue
        branch = re.match(r"(?P<prefix>[ │]*)[├└]── (?P<name>\w+)", line)
        if branch and path:
            depth = len(branch["prefix"]) // 5
            path = [*path[:depth], branch["name"]]
            parents[branch["name"]] = path[depth - 1]
    return parents


def test_the_drawn_tree_is_the_defined_tree() -> None:
    """Every error class the module defines sits in the drawing under its own base, and the
    drawing shows nothing else: a class added without its branch fails here."""
    defined = {
        cls.__name__: cls.__bases__[0].__name__
        for cls in vars(errors).values()
        if isinstance(cls, type)
        and issubclass(cls, DigestError)
        and cls is not DigestError
        and cls.__module__ == errors.__name__
    }
    assert _drawn_parents() == defined


def test_lookups_and_bad_values_are_also_the_builtin_kinds() -> None:
    assert issubclass(NotFound, LookupError)
    assert issubclass(InvalidEvent, ValueError) and issubclass(InvalidArgument, ValueError)


def test_errors_that_name_a_field_carry_it() -> None:
    bad = InvalidEvent("task", "must not be empty")
    assert (bad.field, bad.message, str(bad)) == (
        "task", "must not be empty", "invalid event: task: must not be empty",
    )  # fmt: skip
    assert bad.errors == [{"field": "task", "message": "must not be empty"}]
    config = ConfigError("DIGEST_QUEUE", "is empty")
    assert (config.field, str(config)) == ("DIGEST_QUEUE", "invalid setting DIGEST_QUEUE: is empty")


def test_a_time_limit_is_recognised_by_name() -> None:
    SoftTimeLimitExceeded = type("SoftTimeLimitExceeded", (Exception,), {})
    assert is_time_limit(SoftTimeLimitExceeded())
    assert not is_time_limit(TimeoutError())


def test_the_public_errors_are_the_packages() -> None:
    for name in ("DigestError", "InvalidEvent", "CaptureUnavailable", "NotFound", "LLMError"):
        assert getattr(digest, name) is getattr(errors, name)

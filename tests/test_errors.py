"""digest.errors: the one exception tree. Callers catch what they can act on, so each class
sits where its docstring draws it; errors that name a field carry it; every one has the exit
status the command line uses."""

from __future__ import annotations

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
    NotFound,
    OfflineRulesError,
    OwnerInputError,
    StateError,
    VersionStateError,
    is_time_limit,
)

TREE = {
    ConfigError: DigestError,
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

"""digest/__init__.py: the small public surface an agent imports. The names in ``__all__``
resolve lazily (``import digest`` loads none of their modules) and an unknown name is an
AttributeError."""

from __future__ import annotations

import subprocess
import sys

import pytest

import digest
from tests.conftest import ROOT


def test_public_names_resolve_lazily() -> None:
    for name in digest.__all__:
        assert getattr(digest, name) is not None
    assert set(digest.__all__) <= set(dir(digest))
    assert digest.record_run.__module__ == "digest.capture.api"
    with pytest.raises(AttributeError, match="no_such_name"):
        digest.no_such_name  # noqa: B018


def test_importing_digest_loads_none_of_its_modules() -> None:
    code = "import sys, digest; print(sorted(m for m in sys.modules if m.startswith('digest')))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "['digest']"


def test_dir_lists_the_public_names() -> None:
    assert {"record_run", "pitfalls", "LoopDetector", "InvalidEvent"} <= set(dir(digest))

"""A real headless Chromium for browser tests: Debian's ``/usr/bin/chromium`` (installed by
``scripts/setup-dev``) driven by Playwright, which never downloads a browser of its own here.

Screenshots go to ``test-artifacts/`` at the repository root (``DIGEST_TEST_ARTIFACTS`` moves
it), kept after the run so a person or CI can look at them.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from tests.conftest import ROOT

if TYPE_CHECKING:
    from playwright.sync_api import Browser

CHROMIUM = Path("/usr/bin/chromium")
#: flags that keep Chromium from reaching out to a network this machine does not have
CHROMIUM_ARGS = [
    "--headless=new",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
]


def artifacts_dir() -> Path:
    path = Path(os.environ.get("DIGEST_TEST_ARTIFACTS", ROOT / "test-artifacts"))
    path.mkdir(parents=True, exist_ok=True)
    return path


def screenshot_path(name: str) -> Path:
    """Where a screenshot called ``name`` is kept (a file name made safe)."""
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-") or "screenshot"
    return artifacts_dir() / f"{safe}.png"


@contextmanager
def chromium() -> Iterator[Browser]:
    """A Playwright ``Browser`` on Debian's Chromium. Fails with the fix when it is missing."""
    if not CHROMIUM.exists():
        raise RuntimeError(
            f"{CHROMIUM} is missing: the browser tests need Debian's chromium; "
            "run scripts/setup-dev (the README's test command does)"
        )
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True
        )
        try:
            yield browser
        finally:
            browser.close()

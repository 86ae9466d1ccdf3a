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
from typing import TYPE_CHECKING, Any

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


#: the widths every page screenshot is taken at: a laptop, and a narrow window or tablet
WIDTHS = (1280, 800)


def shoot_widths(page: Any, name: str) -> dict[int, Path]:
    """Full-page screenshots of ``page`` at each of ``WIDTHS`` (``NAME-1280.png``,
    ``NAME-800.png``), after checking that at each width nothing is wider than the window (no
    sideways scrolling: the layout is usable). The page is left at its first width."""
    shots: dict[int, Path] = {}
    for width in (*WIDTHS[1:], WIDTHS[0]):
        page.set_viewport_size({"width": width, "height": 900})
        wide = page.evaluate(
            """() => [...document.querySelectorAll("body *")]
                .filter(e => e.getBoundingClientRect().right > window.innerWidth + 1)
                .map(e => e.tagName.toLowerCase() + (e.id ? "#" + e.id : "")
                          + (e.className && typeof e.className === "string"
                             ? "." + e.className.split(" ")[0] : ""))
                .slice(0, 5)"""
        )
        scroll = page.evaluate("document.documentElement.scrollWidth")
        assert scroll <= width and not wide, (name, width, scroll, wide)
        shots[width] = screenshot_path(f"{name}-{width}")
        page.screenshot(path=str(shots[width]), full_page=True)
        print(f"screenshot at {width} px: {shots[width]}")  # shown with -s, or on a failure
    return shots


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

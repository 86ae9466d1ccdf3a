"""Prompts: the files in ``prompts/``, a system text and a user template per step, versioned by
the hash of their content (recorded in history rows and in the judgement cache's keys). Loaded
prompts are a piece of the process's runtime."""

from __future__ import annotations

import hashlib
import os
import threading
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from string import Template
from typing import Any

from digest.config import resource_dir
from digest.runtime import runtime


@dataclass(frozen=True)
class Prompt:
    """A prompt file pair from ``prompts/``: system text and a user template."""

    name: str
    system: str
    user_template: str
    hash: str

    def render(self, **values: Any) -> list[dict[str, str]]:
        user = Template(self.user_template).safe_substitute(**values)
        return [{"role": "system", "content": self.system}, {"role": "user", "content": user}]


class _Loaded:
    """Prompts read by this process: name → (file stamps, prompt). A prompt is read and hashed
    again only when its files change."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.prompts: dict[str, tuple[tuple[int, ...], Prompt]] = {}


@lru_cache(maxsize=64)
def _files(name: str) -> tuple[Path, Path]:
    """Where a step's two files are (found once: each event asks for its prompts' hashes)."""
    folder = resource_dir("prompts")
    return folder / f"{name}.md", folder / f"{name}_event.md"


def load_prompt(name: str) -> Prompt:
    paths = _files(name)
    stamps = tuple(v for p in paths for st in (os.stat(p),) for v in (st.st_mtime_ns, st.st_size))
    loaded = runtime().piece(_Loaded)
    with loaded.lock:
        cached = loaded.prompts.get(name)
    if cached is not None and cached[0] == stamps:
        return cached[1]
    system, user = (p.read_text(encoding="utf-8") for p in paths)
    digest = hashlib.sha256((system + "\x00" + user).encode("utf-8")).hexdigest()[:16]
    prompt = Prompt(name=name, system=system, user_template=user, hash=digest)
    with loaded.lock:
        loaded.prompts[name] = (stamps, prompt)
    return prompt

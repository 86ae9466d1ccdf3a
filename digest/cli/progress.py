"""Progress on long work, for the command line: transient bars and counters on stderr (or a
bar left on stdout, for the demo), and keeping a logger quiet while a command reports its
failure itself."""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from rich.progress import BarColumn, DownloadColumn, Progress, TextColumn, TimeElapsedColumn

from digest.cli.render import err, out


@contextmanager
def unlogged(logger: str) -> Iterator[None]:
    """Keep ``logger``'s records (and its children's) off the console while the block runs:
    for a failure the command reports as its own one line."""

    def other(record: logging.LogRecord) -> bool:
        return not (record.name == logger or record.name.startswith(logger + "."))

    handlers = logging.getLogger().handlers
    for handler in handlers:
        handler.addFilter(other)
    try:
        yield
    finally:
        for handler in handlers:
            handler.removeFilter(other)


@contextmanager
def byte_progress(label: str, total: int, *, disable: bool) -> Iterator[Callable[[int], None]]:
    """A transient bar on stderr over ``total`` bytes; yields ``advance(n_bytes)``."""
    with Progress(
        TextColumn(label),
        BarColumn(),
        DownloadColumn(),
        TimeElapsedColumn(),
        console=err,
        disable=disable,
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=total)
        yield lambda n: progress.advance(task, n)


@contextmanager
def count_progress(
    label: str, *, disable: bool = False, unit: str = "event(s)"
) -> Iterator[Callable[..., None]]:
    """A transient counter on stderr while long work runs, only at a terminal (a script's
    output stays what it was); yields ``advance(n=1)``."""
    with Progress(
        TextColumn(label),
        TextColumn("{task.completed} " + unit),
        TimeElapsedColumn(),
        console=err,
        disable=disable or not err.is_terminal,
        transient=True,
    ) as progress:
        task = progress.add_task(label, total=None)

        def advance(n: int = 1) -> None:
            progress.advance(task, n)

        yield advance


@contextmanager
def event_progress(label: str) -> Iterator[Callable[[], None]]:
    """A bar on stdout counting events as they come, left in place; yields ``advance()``."""
    with Progress(
        TextColumn(label),
        BarColumn(),
        TextColumn("{task.completed} event(s)"),
        console=out,
        transient=False,
    ) as progress:
        task = progress.add_task(label, total=None)
        yield lambda: progress.advance(task)
        progress.update(task, total=progress.tasks[0].completed)

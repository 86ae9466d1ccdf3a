"""Finding and reading the LESSON.md files below a folder, safely.

Only regular files are read: no FIFO, device or directory, and no symbolic link that leads
outside the folder (one that stays inside is read as its target); symbolic links to folders
are never followed. Each file is read up to ``MAX_FILE_BYTES``, and must be UTF-8.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from digest.errors import LessonFileError
from digest.interop.lesson_md import LESSON_FILE

MAX_FILE_BYTES = 64 * 1024


def lesson_files(root: Path) -> list[tuple[Path, str | None]]:
    """Every entry named LESSON.md below ``root`` (of any type: the reader refuses what is not
    a regular file, so it is reported rather than skipped), and the problems met on the way:
    a folder that cannot be listed, a symbolic link to a folder outside ``root``. Symbolic
    links to folders are never followed (one inside ``root`` is read where it points)."""
    found: list[tuple[Path, str | None]] = []

    def unreadable(exc: OSError) -> None:
        folder = Path(exc.filename or root)
        found.append((folder, f"the folder cannot be read: {exc.strerror or exc}"))

    for folder, folders, files in os.walk(root, onerror=unreadable):
        for name in (*folders, *files):
            path = Path(folder) / name
            if name == LESSON_FILE:
                found.append((path, None))
            elif name in folders and path.is_symlink() and not _leads_inside(path, root):
                found.append((path, "a symbolic link to a folder outside the folder: not read"))
    return sorted(found, key=lambda item: item[0].relative_to(root).parts)


def _leads_inside(link: Path, root: Path) -> bool:
    try:
        return link.resolve().is_relative_to(root)
    except (OSError, RuntimeError):
        return False


_FILE_TYPES = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a FIFO"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)
#: open flags: never block on a FIFO swapped in after the check, never follow a last link
_OPEN_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_CLOEXEC", 0)
)


def read_lesson_file(path: Path, root: Path) -> str:
    """The text of one LESSON.md below ``root``, or ``LessonFileError`` saying why not.

    Only a regular file is opened: its type is checked with ``lstat`` first, so a FIFO never
    blocks the reader and a device is never read. A symbolic link is read as its target if
    that target is a regular file inside ``root``; a link leading outside is refused. At most
    ``MAX_FILE_BYTES`` are read, and they must be UTF-8 (a byte-order mark is allowed)."""
    try:
        info = os.lstat(path)
        target = path
        if stat.S_ISLNK(info.st_mode):
            target = path.resolve(strict=True)
            if not target.is_relative_to(root):
                raise LessonFileError(
                    f"a symbolic link that leads outside the folder {root} (to {target})"
                )
            info = os.stat(target)
        kind = next((name for test, name in _FILE_TYPES if test(info.st_mode)), None)
        if kind is not None or not stat.S_ISREG(info.st_mode):
            raise LessonFileError(f"not a regular file ({kind or 'an unknown kind of file'})")
        if info.st_size > MAX_FILE_BYTES:
            raise LessonFileError(f"{info.st_size} bytes; the cap is {MAX_FILE_BYTES}")
        with os.fdopen(os.open(target, _OPEN_FLAGS), "rb") as handle:
            opened = os.fstat(handle.fileno())
            if (opened.st_dev, opened.st_ino) != (info.st_dev, info.st_ino):
                raise LessonFileError("the file was replaced while it was being read")
            data = handle.read(MAX_FILE_BYTES + 1)
    except FileNotFoundError:
        raise LessonFileError("a broken symbolic link, or the file was removed") from None
    except RuntimeError:  # a loop of symbolic links (pathlib's resolve)
        raise LessonFileError("a loop of symbolic links") from None
    except OSError as exc:
        raise LessonFileError(f"cannot be read: {exc.strerror or exc}") from None
    if len(data) > MAX_FILE_BYTES:
        raise LessonFileError(f"more than {MAX_FILE_BYTES} bytes; the cap is {MAX_FILE_BYTES}")
    try:
        text_value = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise LessonFileError(f"not valid UTF-8 ({exc.reason} at byte {exc.start})") from None
    if not text_value.strip():
        raise LessonFileError("the file is empty")
    return text_value

"""Reading the data tree of one aiconfigurator commit from a bare git mirror: its versions, reuse.yaml donors and
parquet tables (pyarrow, imported only here and only when a table is read)."""

from __future__ import annotations

import importlib
import io
import re
import subprocess
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from . import DATA, Row


def _parquet() -> Any:
    return importlib.import_module("pyarrow.parquet")


def version_key(version: str) -> tuple[tuple[int, ...], int, int, int]:
    """PEP 440 order for the release strings aiconfigurator uses (0.5.6.post2, 1.3.0rc20, 0.1.dev19262)."""
    match = re.match(r"(\d+(?:\.\d+)*)(?:rc(\d+))?(?:\.post(\d+))?(?:\.dev(\d+))?$", version)
    if not match:
        return ((-1,), 0, 0, 0)
    release = tuple(int(part) for part in match.group(1).split("."))
    release += (0,) * (4 - len(release))
    pre = int(match.group(2)) if match.group(2) else 10**9
    if match.group(4) and not match.group(2):
        pre = -1  # a dev release precedes its release candidates
    return release, pre, int(match.group(3) or -1), int(match.group(4) or 10**9)


class Mirror:
    """The data tree of one aiconfigurator commit, read from a bare git mirror."""

    def __init__(self, git_dir: Path, commit: str = "HEAD") -> None:
        self.git_dir = git_dir
        self.commit = self._git("rev-parse", commit).decode().strip()
        listing = self._git("ls-tree", "-r", "--name-only", self.commit, "--", DATA).decode().split()
        self.files = {name[len(DATA) + 1 :] for name in listing}
        self._tables: dict[str, list[Row]] = {}

    def _git(self, *args: str) -> bytes:
        return subprocess.run(["git", "-C", str(self.git_dir), *args], capture_output=True, check=True).stdout

    def read(self, path: str) -> bytes:
        return self._git("show", f"{self.commit}:{DATA}/{path}")

    def versions(self, system: str, family: str, framework: str) -> list[str]:
        prefix = f"{system}/{family}/{framework}/"
        found = {name[len(prefix) :].split("/")[0] for name in self.files if name.startswith(prefix)}
        return sorted(found, key=version_key, reverse=True)

    def resolve(self, system: str, family: str, framework: str, version: str, table: str) -> str | None:
        """The parquet holding ``table`` for this version: its own, or its reuse.yaml donor's."""
        folder = f"{system}/{family}/{framework}/{version}"
        if f"{folder}/{table}.parquet" in self.files:
            return f"{folder}/{table}.parquet"
        if f"{folder}/reuse.yaml" not in self.files:
            return None
        text = self.read(f"{folder}/reuse.yaml").decode()
        for name, donor in re.findall(r"-\s*table:\s*(\S+)\s*\n\s*from_version:\s*['\"]?([^'\"\s]+)", text):
            path = f"{system}/{family}/{framework}/{donor}/{table}.parquet"
            if name == table and path in self.files:
                return path
        return None

    def sources(self, system: str, family: str, framework: str, table: str, upto: str) -> list[str]:
        """Every parquet that can serve ``table`` at version ``upto``, the version's own first, then older ones."""
        ceiling = version_key(upto)
        found = []
        for version in self.versions(system, family, framework):
            if version_key(version) <= ceiling:
                path = self.resolve(system, family, framework, version, table)
                if path and path not in found:
                    found.append(path)
        return found

    def rows(self, path: str, keep: Callable[[Row], bool]) -> list[Row]:
        if path not in self._tables:
            self._tables = {path: _parquet().read_table(io.BytesIO(self.read(path))).to_pylist()}  # one at a time
        return [row for row in self._tables[path] if keep(row)]


def first_wins(rows: Iterable[Row], key: Callable[[Row], tuple[Any, ...]]) -> list[Row]:
    """The first row of each key, as aiconfigurator's loaders keep it."""
    seen: set[tuple[Any, ...]] = set()
    kept = []
    for row in rows:
        k = key(row)
        if k not in seen:
            seen.add(k)
            kept.append(row)
    return kept

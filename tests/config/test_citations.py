"""Every "§N.N" citation in the code resolves to a section of docs/methodology.md inside the repository."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
METHODOLOGY = ROOT / "docs" / "methodology.md"
SECTION = re.compile(r"§\s?(\d+(?:\.\d+)?)")


def _sections() -> set[str]:
    numbers = set()
    for line in METHODOLOGY.read_text(encoding="utf-8").splitlines():
        match = re.match(r"#{2,3} (\d+(?:\.\d+)?)[. ]", line)
        if match:
            numbers.add(match.group(1))
    return numbers


def _citing_files() -> list[Path]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "*.py", "*.md", "*.html"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    return [ROOT / name for name in listed if name != "docs/methodology.md" and (ROOT / name).exists()]


def test_methodology_has_numbered_sections():
    assert {"1.1", "2.6", "3.2", "4.1", "6.4"} <= _sections()


def test_every_section_citation_resolves_in_the_repository():
    sections = _sections()
    unresolved = []
    for path in _citing_files():
        text = path.read_text(encoding="utf-8", errors="replace")
        cited = SECTION.findall(text)
        if not cited:
            continue
        if "docs/methodology.md" not in text:
            unresolved.append(f"{path.relative_to(ROOT)}: cites § without naming docs/methodology.md")
        unresolved += [f"{path.relative_to(ROOT)}: §{n}" for n in cited if n not in sections]
    assert unresolved == []

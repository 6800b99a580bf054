"""Release numbers as engines write them ('v0.19.1', '0.4.10.post2'), read as tuples to compare."""

from __future__ import annotations


def version_of(key: str, parts: int = 2) -> tuple[int, ...] | None:
    """'v0.19.1' → (0, 19) (or (0, 19, 1) for ``parts`` 3); a suffix such as '.post2' reads as its digits; None
    when the first part is not a number."""
    numbers: list[int] = []
    for part in key.strip().lower().removeprefix("v").split(".")[:parts]:
        digits = "".join(ch for ch in part if ch in "0123456789")
        if not digits:
            return None if not numbers else (*numbers, *[0] * (parts - len(numbers)))
        numbers.append(int(digits))
    return (*numbers, *[0] * (parts - len(numbers)))

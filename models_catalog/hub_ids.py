"""Hub model ids: strict validation before anything touches the network or the database.

The Hub's own rules (huggingface_hub `validate_repo_id`, the Hub's repo-name form): an id is
`<namespace>/<name>`, each part at most 96 characters of letters, digits, `_`, `.` and `-`; no `--` or `..`
anywhere, and no part that starts or ends with `.` or `-`. Only ASCII is accepted, so a look-alike unicode id
never reaches the Hub or a URL.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.utils.translation import gettext

MAX_PART_LENGTH = 96
HUB_ID_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,95}/[A-Za-z0-9_.-]{1,96}$", re.ASCII)


class InvalidHubId(ValueError):
    """The text is not a model id the Hub could hold."""


@dataclass(frozen=True, slots=True)
class HubId:
    org: str
    name: str

    @property
    def value(self) -> str:
        return f"{self.org}/{self.name}"

    @property
    def slug(self) -> str:
        # `--` never occurs inside a valid id, so the slug is unambiguous and reversible.
        return f"{self.org}--{self.name}".lower()

    def __str__(self) -> str:
        return self.value


def parse_hub_id(text: str) -> HubId:
    """`"zai-org/GLM-5.3-Flash"` → HubId; anything else raises InvalidHubId with the reason."""
    if not isinstance(text, str):
        raise InvalidHubId(gettext("a model id is text"))
    candidate = text.strip()
    if not candidate:
        raise InvalidHubId(gettext("the model id is empty"))
    if candidate.count("/") != 1:
        raise InvalidHubId(gettext("a model id has the form organisation/name"))
    org, name = candidate.split("/")
    for part in (org, name):
        if len(part) > MAX_PART_LENGTH:
            raise InvalidHubId(gettext("each part of a model id has at most %(n)s characters") % {"n": MAX_PART_LENGTH})
    if not HUB_ID_RE.fullmatch(candidate):
        raise InvalidHubId(gettext("a model id uses only letters, digits, '_', '.' and '-'"))
    if ".." in candidate or "--" in candidate:
        raise InvalidHubId(gettext("a model id contains neither '..' nor '--'"))
    for part in (org, name):
        if part[0] in ".-" or part[-1] in ".-":
            raise InvalidHubId(gettext("no part of a model id starts or ends with '.' or '-'"))
    return HubId(org=org, name=name)

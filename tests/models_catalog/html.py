"""A small HTML reader for assertions on rendered pages (Jinja2 pages have no response.context)."""

from __future__ import annotations

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    parts: list[str] = field(default_factory=list)
    children: list[Element] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join(" ".join(self.parts).split())

    def select(self, tag: str | None = None, **attrs: str) -> list[Element]:
        found = []
        for child in self.children:
            wanted = {k.replace("_", "-"): v for k, v in attrs.items()}
            if (tag is None or child.tag == tag) and all(
                (child.attrs.get(k) == v) if v is not True else (k in child.attrs) for k, v in wanted.items()
            ):
                found.append(child)
            found.extend(child.select(tag, **attrs))
        return found

    def one(self, tag: str | None = None, **attrs: str) -> Element:
        found = self.select(tag, **attrs)
        assert len(found) == 1, f"expected one <{tag or '*'} {attrs}>, found {len(found)}"
        return found[0]


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#root", {})
        self.stack = [self.root]

    def handle_starttag(self, tag, attrs):
        element = Element(tag, {k: v or "" for k, v in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_endtag(self, tag):
        for i in range(len(self.stack) - 1, 0, -1):
            if self.stack[i].tag == tag:
                del self.stack[i:]
                return

    def handle_data(self, data):
        for element in self.stack:
            element.parts.append(data)


def parse(html: bytes | str) -> Element:
    parser = _Parser()
    parser.feed(html.decode() if isinstance(html, bytes) else html)
    return parser.root

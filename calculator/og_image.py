"""The Open Graph card of a model page: a 1200 × 630 PNG with the headline numbers, drawn on the server (Pillow)."""

from __future__ import annotations

import io
from collections.abc import Sequence
from functools import cache

from PIL import Image, ImageDraw, ImageFont

WIDTH, HEIGHT = 1200, 630
BACKGROUND = (17, 20, 24)
ACCENT = (127, 176, 255)
TEXT = (230, 232, 235)
MUTED = (154, 163, 176)


@cache
def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    # Pillow's bundled scalable font: no system font needed, the same card on every machine
    return ImageFont.load_default(size=size)


Font = ImageFont.FreeTypeFont | ImageFont.ImageFont


def _fit(draw: ImageDraw.ImageDraw, text: str, size: int, width: int) -> tuple[str, Font]:
    """The largest font up to ``size`` that fits ``text`` in ``width`` pixels (shortened with … below 36 px)."""
    for candidate in range(size, 35, -4):
        font = _font(candidate)
        if draw.textlength(text, font=font) <= width:
            return text, font
    font = _font(36)
    while text and draw.textlength(text + "...", font=font) > width:
        text = text[:-1]
    return text + "...", font


# Glyphs the bundled font lacks, as the nearest ones it has
_PLAIN = str.maketrans({"×": "x", "–": "-", "—": "-", "\u00a0": " ", "\u202f": " ", "…": "..."})


def og_card(title: str, headline: str, lines: Sequence[str], site: str) -> bytes:
    """PNG bytes: the model's name, its headline need, up to three more figures, and the site's name."""
    title, headline = title.translate(_PLAIN), headline.translate(_PLAIN)
    lines = [line.translate(_PLAIN) for line in lines]
    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    draw.rectangle((0, 0, WIDTH, 12), fill=ACCENT)
    text, font = _fit(draw, title, 72, WIDTH - 128)
    draw.text((64, 72), text, font=font, fill=TEXT)
    text, font = _fit(draw, headline, 56, WIDTH - 128)
    draw.text((64, 200), text, font=font, fill=ACCENT)
    y = 300
    for line in lines[:3]:
        text, font = _fit(draw, line, 40, WIDTH - 128)
        draw.text((64, y), text, font=font, fill=TEXT)
        y += 64
    draw.text((64, HEIGHT - 88), site, font=_font(40), fill=MUTED)
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", optimize=True)
    return buffer.getvalue()

"""Layout and accessibility checks for any page open in Playwright: horizontal overflow, overlapping text, axe-core.

Each check returns a list of readable findings (empty when the page is fine), so a test can assert on it and a
failure says what went wrong where: `main > table#offers > tbody > tr:nth-of-type(3) > td:nth-of-type(2) "A100"`.
"""

from __future__ import annotations

from functools import cache
from importlib.resources import files
from typing import Any

# Shared by both geometry checks: a CSS-ish path for an element, and whether a reader can see it at all.
_JS_HELPERS = r"""
const cssPath = (el) => {
  const parts = [];
  for (let node = el; node && node.nodeType === 1 && node !== document.documentElement; node = node.parentElement) {
    let part = node.localName;
    if (node.id) { parts.unshift(`${part}#${node.id}`); break; }
    const classes = [...node.classList].slice(0, 2);
    if (classes.length) part += '.' + classes.join('.');
    const parent = node.parentElement;
    if (parent) {
      const same = [...parent.children].filter((child) => child.localName === node.localName);
      if (same.length > 1) part += `:nth-of-type(${same.indexOf(node) + 1})`;
    }
    parts.unshift(part);
  }
  return parts.join(' > ');
};
const snippet = (text) => {
  const squeezed = text.replace(/\s+/g, ' ').trim();
  return squeezed.length > 60 ? squeezed.slice(0, 57) + '...' : squeezed;
};
const box = (r) => `[x ${Math.round(r.left)}..${Math.round(r.right)}, y ${Math.round(r.top)}..${Math.round(r.bottom)}]`;
// Hidden from sight on purpose: not rendered, invisible, transparent, clipped away (the usual visually-hidden
// pattern), or the body of a closed <details>.
const hiddenOnPurpose = (el) => {
  for (let node = el; node && node.nodeType === 1; node = node.parentElement) {
    const style = getComputedStyle(node);
    if (style.display === 'none') return true;
    // visibility inherits, and a child may switch it back on: only the element's own value counts.
    if (node === el && (style.visibility === 'hidden' || style.visibility === 'collapse')) return true;
    if (parseFloat(style.opacity) === 0) return true;
    if (style.clip === 'rect(0px, 0px, 0px, 0px)' || /inset\(50%\)/.test(style.clipPath)) return true;
    const parent = node.parentElement;
    if (parent && parent.matches('details:not([open])') && node.localName !== 'summary') return true;
  }
  return false;
};
// A box as the reader sees it: cut to every ancestor that clips its overflow (scroll containers included).
const visiblePart = (el, rect) => {
  let { left, top, right, bottom } = rect;
  for (let node = el.parentElement; node && node !== document.documentElement; node = node.parentElement) {
    const style = getComputedStyle(node);
    const r = node.getBoundingClientRect();
    if (style.overflowX !== 'visible') { left = Math.max(left, r.left); right = Math.min(right, r.right); }
    if (style.overflowY !== 'visible') { top = Math.max(top, r.top); bottom = Math.min(bottom, r.bottom); }
  }
  return { left, top, right, bottom, width: right - left, height: bottom - top };
};
const textNodes = function* () {
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT, {
    acceptNode: (node) => (node.data.trim() ? NodeFilter.FILTER_ACCEPT : NodeFilter.FILTER_REJECT),
  });
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    const parent = node.parentElement;
    if (!parent || ['script', 'style', 'noscript', 'template'].includes(parent.localName)) continue;
    yield node;
  }
};
const lineBoxes = (textNode) => {
  const range = document.createRange();
  range.selectNodeContents(textNode);
  return [...range.getClientRects()].filter((r) => r.width > 0 && r.height > 0);
};
"""

_OVERFLOW_JS = (
    "(tolerancePx) => {"
    + _JS_HELPERS
    + r"""
  const viewport = window.innerWidth;
  const scrollsSideways = (node) => ['auto', 'scroll'].includes(getComputedStyle(node).overflowX);
  const insideScroller = (el) => {
    for (let node = el.parentElement; node && node !== document.body; node = node.parentElement) {
      if (scrollsSideways(node)) return true;
    }
    return false;
  };
  const beyond = (r) => r.left < -tolerancePx || r.right > viewport + tolerancePx;
  const findings = [];
  const offenders = new Set();
  for (const el of document.body.querySelectorAll('*')) {
    if (insideScroller(el) || hiddenOnPurpose(el)) continue;
    const r = el.getBoundingClientRect();
    if (r.width === 0 && r.height === 0) continue;
    if (r.width > viewport + tolerancePx || beyond(r)) offenders.add(el);
  }
  // Report the outermost offender of each branch: its descendants usually stick out only because it does.
  for (const el of offenders) {
    let ancestor = el.parentElement;
    while (ancestor && !offenders.has(ancestor)) ancestor = ancestor.parentElement;
    if (ancestor) continue;
    const r = el.getBoundingClientRect();
    const text = snippet(el.innerText || el.textContent || '');
    findings.push(`${cssPath(el)} "${text}" is ${Math.round(r.width)} px wide ${box(r)}, viewport ${viewport} px`);
  }
  // Text that runs out of a box that itself fits (a long unbroken word or number).
  for (const node of textNodes()) {
    const parent = node.parentElement;
    if (offenders.has(parent) || insideScroller(parent) || hiddenOnPurpose(parent)) continue;
    const r = lineBoxes(node).find(beyond);
    if (!r) continue;
    findings.push(`text "${snippet(node.data)}" in ${cssPath(parent)} runs out to ${box(r)}, viewport ${viewport} px`);
  }
  const scrollWidth = document.documentElement.scrollWidth;
  if (scrollWidth > viewport) {
    findings.unshift(`the page scrolls sideways: scrollWidth ${scrollWidth} px > innerWidth ${viewport} px`);
  }
  return findings;
}"""
)

_OVERLAP_JS = (
    "([minOverlapPx, ignoreSelector]) => {"
    + _JS_HELPERS
    + r"""
  const items = [];
  const addBox = (owner, text, rect, source) => {
    const seen = visiblePart(owner, rect);
    if (seen.width > 1 && seen.height > 1) items.push({ owner, text, rect: seen, source });
  };
  for (const node of textNodes()) {
    const parent = node.parentElement;
    if (hiddenOnPurpose(parent) || (ignoreSelector && parent.closest(ignoreSelector))) continue;
    const size = parseFloat(getComputedStyle(parent).fontSize) || 16;
    for (const r of lineBoxes(node)) {
      // A text box spans the font's whole ascent and descent; glyphs fill less. Shrink it vertically so lines set
      // tight (line-height near 1) do not count as touching, while any real collision still does.
      const trim = Math.min(size * 0.15, r.height / 4);
      const rect = { left: r.left, right: r.right, top: r.top + trim, bottom: r.bottom - trim };
      addBox(parent, node.data, rect, node);
    }
  }
  // Text the page draws that is in no text node: list markers and ::before content. Neither box is exposed to
  // scripts; each is placed as the browser lays it out: an outside marker ends where the item's content starts, on
  // its first line; a block ::before is the first line of its element, an inline one starts that line.
  const canvas = document.createElement('canvas').getContext('2d');
  const measure = (style, text) => {
    canvas.font = `${style.fontStyle} ${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    return canvas.measureText(text).width;
  };
  const firstLine = (el) => {
    const range = document.createRange();
    range.selectNodeContents(el);
    return [...range.getClientRects()].find((r) => r.width > 0 && r.height > 0);
  };
  const lineHeight = (style) => parseFloat(style.lineHeight) || (parseFloat(style.fontSize) || 16) * 1.2;
  for (const el of document.body.querySelectorAll('li')) {
    const style = getComputedStyle(el);
    const drawn = style.display === 'list-item' && style.listStyleType !== 'none';
    if (!drawn || style.listStylePosition !== 'outside') continue;
    if (hiddenOnPurpose(el) || (ignoreSelector && el.closest(ignoreSelector))) continue;
    const ordered = el.parentElement && el.parentElement.localName === 'ol';
    const text = ordered ? `${el.value}. ` : '\u2022 ';
    const line = firstLine(el);
    if (!line) continue;
    const r = el.getBoundingClientRect();
    const contentLeft = r.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
    const width = measure(getComputedStyle(el, '::marker'), text);
    const trim = Math.min((parseFloat(style.fontSize) || 16) * 0.15, line.height / 4);
    addBox(el, `[marker] ${text.trim()}`, { left: contentLeft - width, right: contentLeft - 1, top: line.top + trim,
      bottom: line.bottom - trim }, `marker:${cssPath(el)}`);
  }
  for (const el of document.body.querySelectorAll('*')) {
    const before = getComputedStyle(el, '::before');
    const content = before.content;
    if (!content || content === 'none' || content === 'normal' || before.display === 'none') continue;
    if (hiddenOnPurpose(el) || (ignoreSelector && el.closest(ignoreSelector))) continue;
    const attr = /^attr\(([^)]+)\)$/.exec(content);
    const text = attr ? (el.getAttribute(attr[1].trim()) || '') : content.replace(/^["']|["']$/g, '');
    if (!text.trim()) continue;
    const style = getComputedStyle(el);
    const r = el.getBoundingClientRect();
    const left = r.left + parseFloat(style.borderLeftWidth) + parseFloat(style.paddingLeft);
    const top = r.top + parseFloat(style.borderTopWidth) + parseFloat(style.paddingTop);
    const width = Math.min(measure(before, text), r.width);
    const height = lineHeight(before);
    const trim = Math.min((parseFloat(before.fontSize) || 16) * 0.15, height / 4);
    addBox(el, `[::before] ${text}`, { left, right: left + width, top: top + trim, bottom: top + height - trim },
      `before:${cssPath(el)}`);
  }
  // Form controls show text that is not in a text node (values, placeholders, the chosen option).
  const controls = 'input:not([type=hidden]):not([type=checkbox]):not([type=radio]), select, textarea';
  for (const el of document.body.querySelectorAll(controls)) {
    if (hiddenOnPurpose(el) || (ignoreSelector && el.closest(ignoreSelector))) continue;
    const text = el.localName === 'select' ? (el.selectedOptions[0]?.text || '') : (el.value || el.placeholder || '');
    addBox(el, `[${el.localName}] ${text}`, el.getBoundingClientRect(), el);
  }
  items.sort((a, b) => a.rect.top - b.rect.top);
  const findings = [];
  for (let i = 0; i < items.length; i += 1) {
    const a = items[i];
    for (let j = i + 1; j < items.length && items[j].rect.top < a.rect.bottom; j += 1) {
      const b = items[j];
      // The lines of one text node wrap below each other; they cannot collide with themselves.
      if (a.source === b.source) continue;
      const width = Math.min(a.rect.right, b.rect.right) - Math.max(a.rect.left, b.rect.left);
      const height = Math.min(a.rect.bottom, b.rect.bottom) - Math.max(a.rect.top, b.rect.top);
      if (width > minOverlapPx && height > minOverlapPx) {
        findings.push(
          `${cssPath(a.owner)} "${snippet(a.text)}" ${box(a.rect)} overlaps ` +
          `${cssPath(b.owner)} "${snippet(b.text)}" ${box(b.rect)} by ${Math.round(width)}x${Math.round(height)} px`,
        );
      }
    }
  }
  return findings;
}"""
)


def horizontal_overflow(page: Any, *, tolerance_px: float = 0.5) -> list[str]:
    """Everything that sticks out of the viewport sideways, outside elements that scroll sideways on purpose
    (overflow-x auto or scroll), and the page itself when `scrollWidth` exceeds `innerWidth`."""
    return page.evaluate(_OVERFLOW_JS, tolerance_px)


def overlapping_text(page: Any, *, min_overlap_px: float = 1, ignore: str = "") -> list[str]:
    """Pairs of visible text boxes (text lines and form controls) that overlap by more than `min_overlap_px` in both
    directions. `ignore` is a CSS selector for stacking that is meant (a badge over a corner); empty by default."""
    return page.evaluate(_OVERLAP_JS, [min_overlap_px, ignore])


# A select shows only its chosen option in its box: text wider than the box (less the padding and the arrow) is cut.
_CUT_SELECT_JS = r"""() => {
  const canvas = document.createElement('canvas').getContext('2d');
  const cut = [];
  for (const select of document.querySelectorAll('select')) {
    if (!select.offsetParent || !select.options.length) continue;
    const style = getComputedStyle(select);
    canvas.font = `${style.fontWeight} ${style.fontSize} ${style.fontFamily}`;
    const room = select.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight) - 16;
    for (const option of select.options) {
      const width = canvas.measureText(option.text).width;
      if (width > room) {
        cut.push(`select[name=${select.name}]: "${option.text}" needs ${Math.round(width)} px,`
          + ` has ${Math.round(room)}`);
      }
    }
  }
  return cut;
}"""


def cut_selects(page: Any) -> list[str]:
    """Options a select cannot show whole in its box (any option, not only the chosen one: the reader picks them)."""
    return list(page.evaluate(_CUT_SELECT_JS))


@cache
def axe_source() -> str:
    # axe-playwright-python is pinned in pyproject.toml's test extra only as the carrier of this file:
    # axe-playwright-python 0.1.8 ships axe-core 4.12.1.
    return files("axe_playwright_python").joinpath("axe.min.js").read_text(encoding="utf-8")


def axe_version() -> str:
    header = axe_source()[:40]
    return header.split("axe v", 1)[1].split()[0] if "axe v" in header else "unknown"


def axe_violations(page: Any, *, options: dict | None = None) -> list[dict]:
    """axe-core's violations for the page as it is now. The site's Content-Security-Policy forbids inline scripts,
    so the page's browser context must be created with `bypass_csp=True`."""
    if not page.evaluate("() => typeof window.axe === 'object'"):
        page.add_script_tag(content=axe_source())
    run_options = {"resultTypes": ["violations"], **(options or {})}
    return page.evaluate("(options) => window.axe.run(document, options)", run_options)["violations"]


def describe_axe_violations(violations: list[dict], *, max_nodes: int = 5) -> list[str]:
    """One readable entry per violated rule: rule id, impact, what it means, and the offending elements."""
    findings = []
    for violation in violations:
        lines = [f"{violation['id']} ({violation.get('impact')}): {violation['help']} — {violation['helpUrl']}"]
        for node in violation["nodes"][:max_nodes]:
            target = " ".join(str(part) for part in node["target"])
            summary = (node.get("failureSummary") or "").replace("\n", " ")
            lines.append(f"    {target}: {node['html'][:160]}\n      {summary[:300]}")
        if len(violation["nodes"]) > max_nodes:
            lines.append(f"    ... and {len(violation['nodes']) - max_nodes} more")
        findings.append("\n".join(lines))
    return findings


# Which views of a page get a full axe-core run, per language. Geometry (overflow, overlapping text) is checked in
# every view; axe-core costs seconds per run on a long page (its colour-contrast rule most), so it runs once per page
# and language: the phone in light colours in English, the desktop in dark colours in German. Every width and every
# colour scheme gets a full run on every page type; what axe checks does not depend on the language beyond the text.
AXE_VIEWS: dict[str, frozenset[tuple[int, str]]] = {
    "en": frozenset({(375, "light")}),
    "de": frozenset({(1280, "dark")}),
}


def check_views(
    page: Any, *, lang: str, widths: tuple[int, ...], color_schemes: tuple[str, ...], ignore: str = ""
) -> list[str]:
    """Overflow, overlapping text and (in the views AXE_VIEWS names) axe-core for a page that is already loaded, at
    each width and colour scheme: the viewport is resized and the scheme switched in place, no reload, since the
    server's answer depends on neither. Returns one entry per view that has findings, naming the view."""
    report = []
    for width in widths:
        for scheme in color_schemes:
            page.set_viewport_size({"width": width, "height": 800})
            page.emulate_media(color_scheme=scheme)
            # two frames: the resize and the new scheme are laid out and painted before anything is measured
            page.evaluate("() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done)))")
            problems = {
                "horizontal overflow": horizontal_overflow(page),
                "overlapping text": overlapping_text(page, ignore=ignore),
                "select text cut": cut_selects(page),
            }
            if (width, scheme) in AXE_VIEWS.get(lang, frozenset()):
                problems["axe-core violations"] = describe_axe_violations(axe_violations(page))
            found = [f"{name}:\n    " + "\n    ".join(items[:15]) for name, items in problems.items() if items]
            if found:
                report.append(f"at {width} px, {scheme}:\n  " + "\n  ".join(found))
    return report

"""Reports in Jupyter: the ``--html`` page shown inside a notebook output cell.

Why an iframe: the page is a whole document with its own CSS and copy-button script;
pasted into the notebook's DOM its styles (``body``, ``table``...) would restyle the
notebook and the notebook's would restyle it.  ``srcdoc`` keeps the page exactly as
``--html`` writes it, isolated, and still loads nothing (the page's CSP forbids every
fetch).  Scripts run only where the notebook is trusted, which the copy buttons alone need.
"""

from __future__ import annotations

from .html_base import esc

FRAME_MIN, FRAME_MAX = 240, 1400


def frame_height(page_html: str) -> str:
    """A height that fits the page: the sandboxed frame cannot tell the notebook its own height
    (no same-origin access, by design), so it is estimated from the page's blocks (a fixed
    640 px cut long reports and left short ones mostly empty); the frame stays resizable."""
    blocks = sum(page_html.count(tag) for tag in ("<tr", "<li", "<p", "<h1", "<h2", "<h3", "<h4"))
    lines = page_html.count("\n", page_html.find("<body")) if "<pre" in page_html else 0
    px = 140 + 30 * blocks + 4 * min(lines, 200)
    return f"{max(FRAME_MIN, min(FRAME_MAX, px))}px"


def notebook_frame(page_html: str, height: str | None = None) -> str:
    """``page_html`` (a complete page from :mod:`.html`) as one ``<iframe srcdoc>`` element."""
    height = height or frame_height(page_html)
    return (f'<iframe srcdoc="{esc(page_html)}" sandbox="allow-scripts" '
            f'style="width:100%;height:{height};border:1px solid #d0d7de;border-radius:6px;resize:vertical">'
            "</iframe>")

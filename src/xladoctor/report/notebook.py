"""Reports in Jupyter: the ``--html`` page shown inside a notebook output cell.

Why an iframe: the page is a whole document with its own CSS and copy-button script;
pasted into the notebook's DOM its styles (``body``, ``table``...) would restyle the
notebook and the notebook's would restyle it.  ``srcdoc`` keeps the page exactly as
``--html`` writes it, isolated, and still loads nothing (the page's CSP forbids every
fetch).  Scripts run only where the notebook is trusted, which the copy buttons alone need.
"""

from __future__ import annotations

from .html_base import esc

FRAME_HEIGHT = "640px"


def notebook_frame(page_html: str, height: str = FRAME_HEIGHT) -> str:
    """``page_html`` (a complete page from :mod:`.html`) as one ``<iframe srcdoc>`` element."""
    return (f'<iframe srcdoc="{esc(page_html)}" sandbox="allow-scripts" '
            f'style="width:100%;height:{height};border:1px solid #d0d7de;border-radius:6px;resize:vertical">'
            "</iframe>")

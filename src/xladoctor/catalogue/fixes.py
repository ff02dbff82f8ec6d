"""The fixes shown for one finding: its own analysis's first, then the catalogue entry's."""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from .scanner import LogMatch


def finding_fixes(f: LogMatch, lang: str) -> list[str]:
    """The fixes for one finding: first those its own analysis supports (E0102: device_put to
    the compiled input format, relayout of saved bytes, or the memory-space/type/rank/bound
    fix), then the catalogue's, unless the analysis says they do not apply."""
    from .loader import load_catalogue  # with a finding only: a clean log's report imports no loader

    entry = load_catalogue().entries[f.code]
    first = [t.render(lang) for t in f.analysis.get("fixes_first") or ()]
    if f.analysis.get("replaces_fixes"):
        return first
    # Catalogue fixes the analysis makes redundant (its own device_put advice, said less
    # precisely) or inapplicable (moving between memory spaces, for a size mismatch).
    skip = tuple(f.analysis.get("skips_fixes_with") or ())
    return first + [x for x in entry.describe(lang).fixes if not any(s in x for s in skip)]

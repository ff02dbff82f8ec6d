"""escape.escape_stream_text's ASCII shortcut (no pattern compiled for printable ASCII: start-up,
issue 36 item 5) against the stream class it stands for."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from xladoctor.base import escape


def _by_pattern(text: str) -> str:
    return re.compile(escape._STREAM_UNSAFE).sub(escape._escape_char, text)


def test_every_pair_of_ascii_characters_is_escaped_as_the_class_escapes_it():
    chars = [chr(i) for i in range(128)]
    for a in chars:
        for b in chars:
            assert escape.escape_stream_text(a + b) == _by_pattern(a + b), (a, b)


@settings(max_examples=2000, deadline=None)
@given(st.text(alphabet=st.characters(max_codepoint=0x30ff), max_size=40))
def test_any_text_is_escaped_as_the_class_escapes_it(text):
    assert escape.escape_stream_text(text) == _by_pattern(text)

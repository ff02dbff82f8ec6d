"""When two printed errors are the same error: the dedup key of a log message.

The same error printed by 256 replicas, at 256 times, behind 256 log prefixes is one finding
(``count == 256``): the key is the message with glog/ISO/bracketed prefixes, exception class
names, replica/partition/host numbers and times taken out.
"""

from __future__ import annotations

import re

_LOG_PREFIX = re.compile(
    r"^(?:[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+\s+\S+:\d+\]\s?"          # glog / absl
    r"|\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(?:[.,]\d+)?\S*\s*(?:[-|:]\s*)?"  # ISO timestamps
    r"|\[[^\]\n]{0,80}\]\s?)"                                           # [host-3] / [replica 7]
)
_VOLATILE = re.compile(r"\b(replica|partition|[Nn]ode|task|host|worker|chip|device|core|process)(\s*[:#]?\s*)\d+")
_EXC_PREFIX = re.compile(r"^(?:[\w.]*(?:Error|Exception):\s*)+")
_TIME = re.compile(r"\d\d:\d\d:\d\d(?:\.\d+)?")


def strip_log_prefix(line: str) -> str:
    """The line without one leading glog, ISO-timestamp or bracketed prefix."""
    return _LOG_PREFIX.sub("", line, count=1)


def message_identity(code: str, text: str) -> tuple[str, str]:
    """Dedup key: the message without log prefixes, exception class names, volatile numbers and times."""
    body = " ".join(strip_log_prefix(ln) for ln in text.split("\n"))
    body = _EXC_PREFIX.sub("", body.lstrip())
    body = _VOLATILE.sub(lambda m: m.group(1) + m.group(2) + "N", body)
    body = _TIME.sub("T", body)
    return code, " ".join(body.split())

"""The route of a log (plain or compressed, a file or a stream): scanned line by line in bounded
memory by the catalogue's scanner (:mod:`xladoctor.catalogue.fastscan`), each distinct XLA error
once with its count; ``explain --hlo`` attaches the host-offload analysis of the module named to
its E1200s.  ``check`` gets its Report (:func:`route_stream`), ``explain`` the
Report with the scan attached (:func:`route`), ``xladoctor.explain_log`` the same Report (:mod:`.log_report`)."""

from __future__ import annotations

from .options import Options

TYPE_CHECKING = False  # not typing's: typing is ~3 ms of a command's start-up (issue 36)
if TYPE_CHECKING:
    from typing import BinaryIO

    from ..catalogue.scanner import LogMatch
    from ..findings.model import Report


def route_stream(f: BinaryIO, head: bytes, source: str, opts: Options, path: str | None = None) -> Report:
    """``check``'s Report of the log read from ``f`` (``head``: its first bytes, already read),
    streamed through the ``explain`` scanner, its sniffed head first, so neither stdin nor a big
    log is ever held whole; ``path`` names a regular file the scan may reopen (to use every core
    on a big log).  Its details are the scan (:class:`~xladoctor.findings.details.ScannedLog`)."""
    from ..catalogue.fastscan import scan_path, scan_stream
    from ..catalogue.scanner import LogScanner
    from ..findings.details import ScannedLog
    from ..findings.model import Report

    scanner = LogScanner()
    if path is not None:
        from ..base.wide_text import WIDE_SNIFF

        # the file's first WIDE_SNIFF bytes are the head's (f was opened at its start): the scan
        # asks them whether it is UTF-16/32 without another open and read (issue 36, h53s)
        scan_path(path, scanner, parallel=opts.parallel_logs, head=head if len(head) >= WIDE_SNIFF else None)
    else:
        from ..base.files import Prefixed

        scan_stream(Prefixed(head, f), scanner)
    matches = scanner.finish()
    findings: tuple = ()
    if matches:  # a clean log's report imports no finding maker (nor the IR records it brings), h52s
        from ..findings.from_log import log_findings

        findings = log_findings(matches, source, opts.lang)
    return Report("check", (source,), findings, opts.lang,
                  details=ScannedLog(tuple(matches), dict(scanner.not_shown)))


def route(target: str, options: Options, hlo: str | None = None, stdin: BinaryIO | None = None) -> Report:
    """``explain FILE``'s route: the scan of ``target`` (``-``: stdin) as its Report, the findings
    made once (``findings.from_log``); ``hlo`` names a module whose host-offload analysis is
    attached to the E1200s (``--hlo``).  The Report's ``analysis`` is the scan
    (:class:`~xladoctor.route.log_report.ExplainedLog`), its details the same scan
    (:class:`~xladoctor.findings.details.ScannedLog`): its raw matches carry that analysis, and the
    messages past the distinct-error limit, which the views draw."""
    from ..catalogue.logscan import scan_file
    from .log_report import log_report

    scan = scan_file(target, stdin=stdin)
    if hlo:
        attach_offload_analysis(hlo, scan.findings)
    return log_report(scan.source, options.lang, scan.findings, dict(scan.not_shown))


def attach_offload_analysis(hlo_path: str, findings: list[LogMatch]) -> None:
    """Run the host-offload analysis on ``--hlo`` and attach its errors to the E1200 findings."""
    from ..base.files import decode_text, read_path
    from ..findings.from_offload import mismatch_finding  # lazy: only --hlo needs them
    from ..findings.serialise import offload_record_json
    from ..findings.wire import Record
    from ..offload.analysis import analyze_host_offload
    from ..syntax.hlo_parser import parse_module

    data, source = read_path(hlo_path)
    text = decode_text(data, source)
    module = parse_module(text, source=source)
    result = analyze_host_offload(module)
    # Each E1200 as the one adapter and the one serialiser write it (findings/serialise.py).
    # Each record carries its typed finding, for this process's page (findings/wire.py).
    found = [(mismatch_finding(e, result, None, source, module), len(e.trace)) for e in result.errors]
    errors = [Record(offload_record_json(f, n), f, f.path[len(f.path) - n:]) for f, n in found]
    for f in findings:
        if f.code != "E1200":
            continue
        start = f.fields.get("start")
        matching = [e for e in errors if isinstance(e, dict) and e.get("start") == start]
        f.analysis["offload"] = {"module": source, "errors": matching or errors,
                                 "matched_start": bool(matching)}


"""`xladoctor fleet`: one summary across jobs, identical whether run here or on a Dask cluster of processes."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from log_corpus import write_log
from xladoctor.cli.main import main

EXAMPLES = Path(__file__).resolve().parents[1] / "src" / "xladoctor" / "examples"


@pytest.fixture(scope="module")
def fleet_dir(tmp_path_factory):
    root = tmp_path_factory.mktemp("fleet")
    for j in range(4):
        d = root / "runs" / f"job-{j}" / "logs"
        d.mkdir(parents=True)
        for h in range(3):
            p = write_log(d / f"host{h}.log", 1200, 100 * j + h, error_every=90)
            if h == 1:  # compressed copies are read as streams
                with open(p, "rb") as a, gzip.open(f"{p}.gz", "wb") as b:
                    shutil.copyfileobj(a, b)
                p.unlink()
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", root / "runs" / "job-2" / "logs" / "module.hlo")
    (root / "runs" / "job-0" / "logs" / "m.buffer-assignment.txt").write_text("Tensor which is moved to host\n")
    return root


def fleet_json(capsys, *argv) -> tuple[int, dict]:
    code = main(["fleet", *argv, "--json"])
    out, _ = capsys.readouterr()
    return code, json.loads(out)


def test_summary_counts_by_code_and_job(fleet_dir, capsys):
    code, doc = fleet_json(capsys, str(fleet_dir / "runs" / "**" / "*"), "--jobs", "1",
                           "--job-regex", r"runs/([^/]+)/")
    assert code == 1 and doc["files"] == 13 and doc["jobs"] == 4 and doc["input_errors"] == 0
    assert doc["skipped"] == 1  # XLA's buffer assignment is not read, as in `check`
    assert set(doc["by_job"]) == {"job-0", "job-1", "job-2", "job-3"}
    e1200 = doc["by_code"]["E1200"]
    assert e1200["jobs"] == ["job-0", "job-1", "job-2", "job-3"]
    assert e1200["first_seen"]["path"].endswith("job-0/logs/host0.log")
    assert any(p.endswith(".gz") for p in {doc["by_code"][c]["last_seen"]["path"] for c in doc["by_code"]}
               | {doc["by_code"][c]["first_seen"]["path"] for c in doc["by_code"]})
    assert doc["findings"] == sum(j["findings"] for j in doc["by_job"].values())
    # the HLO module's predicted E1200 counts for its job
    _, alone = fleet_json(capsys, str(fleet_dir / "runs" / "job-2" / "logs" / "module.hlo"))
    assert alone["by_code"]["E1200"]["count"] == 1 and alone["by_job"] == {
        "logs": {"files": 1, "findings": 1, "codes": {"E1200": 1}}}


def test_dask_cluster_of_processes_gives_the_local_result(fleet_dir, capsys):
    distributed = pytest.importorskip("distributed")
    pattern = str(fleet_dir / "runs" / "**" / "*")
    _, serial = fleet_json(capsys, pattern, "--jobs", "1")
    _, pool = fleet_json(capsys, pattern, "--jobs", "2")
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as cluster:
        code, dask = fleet_json(capsys, pattern, "--scheduler", cluster.scheduler_address)
    assert code == 1 and serial == pool == dask and serial["files"] == 13


@pytest.mark.parametrize("address", ["bogus", "http://127.0.0.1:8786", "tcp://127.0.0.1:1"])
def test_a_scheduler_that_is_not_there_is_a_usage_error(fleet_dir, capsys, address):
    """A mistyped or unreachable --scheduler is the user's input (one line, exit 2), not
    "internal error ... (a bug in xladoctor)" as Dask's ValueError/OSError were reported."""
    pytest.importorskip("distributed")
    import dask

    with dask.config.set({"distributed.comm.timeouts.connect": "1s"}):  # port 1: refused until the timeout
        assert main(["fleet", str(fleet_dir / "runs" / "job-0"), "--scheduler", address]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"xladoctor: --scheduler {address}: cannot reach a Dask scheduler there (")
    assert "internal error" not in err and len(err.strip().splitlines()) == 1


def test_a_scheduler_not_reached_leaves_no_client_to_collect_later(fleet_dir, capsys):
    """Dask's Client that failed to connect is left in a reference cycle, and its ``__del__`` (closing
    its loop) ran at the next collection, wherever that fell: on Python 3.10 inside the next
    Client's start in the same process, which then stalled 300-500 s on its loop's lock (the
    test above, after a LocalCluster).  xladoctor collects it before it says why."""
    pytest.importorskip("distributed")
    import gc

    def clients() -> int:
        return sum(type(o).__name__ == "Client" and type(o).__module__ == "distributed.client"
                   for o in gc.get_objects())

    gc.collect()
    before = clients()
    gc.disable()  # only the collections xladoctor asks for
    try:
        assert main(["fleet", str(fleet_dir / "runs" / "job-0"), "--scheduler", "bogus"]) == 2
        assert clients() == before
    finally:
        gc.enable()
    capsys.readouterr()


def test_text_counts_the_skipped_files_as_check_does(fleet_dir, capsys):
    """The JSON's ``skipped`` (XLA's buffer assignment here) is in the text's first line too, as
    ``check``'s tally says it; the text said only "13 files ... checked" and never why the rest."""
    assert main(["fleet", str(fleet_dir / "runs" / "**" / "*"), "--jobs", "1", "--lang", "en"]) == 1
    first = capsys.readouterr().out.splitlines()[0]
    assert first.startswith("13 files from 4 jobs checked on this machine: ")
    assert first.endswith(", 1 skipped (XLA's side files and files that are neither HLO text nor logs, "
                          "as check skips them)")
    assert main(["fleet", str(fleet_dir / "runs" / "job-1"), "--jobs", "1", "--lang", "en"]) == 1
    assert "skipped" not in capsys.readouterr().out.splitlines()[0]


def test_urls_go_through_fsspec(fleet_dir, capsys):
    pytest.importorskip("fsspec")
    _, local = fleet_json(capsys, str(fleet_dir / "runs" / "**" / "*.log.gz"))
    _, url = fleet_json(capsys, "file://" + str(fleet_dir / "runs" / "**" / "*.log.gz"))
    assert url["files"] == local["files"] == 4
    assert {c: v["count"] for c, v in url["by_code"].items()} == {c: v["count"] for c, v in local["by_code"].items()}


def test_no_match_is_a_usage_error(tmp_path, capsys):
    assert main(["fleet", str(tmp_path / "*.log")]) == 2
    assert "no file matches" in capsys.readouterr().err


def test_exit_code_is_the_fleet_reports(fleet_dir, capsys, tmp_path):
    """The fleet's exit code is its Report's (issue 37): one finding per code seen in a file, located
    at its first line with XLA's text, every unreadable file an input error (2 over 1)."""
    from xladoctor.findings.model import FindingKind, Origin, Report
    from xladoctor.route import fleet

    logs = sorted(str(p) for p in (fleet_dir / "runs" / "job-1" / "logs").iterdir())
    module = str(fleet_dir / "runs" / "job-2" / "logs" / "module.hlo")
    summaries = [fleet.scan_one(p, "j") for p in [*logs, module]]
    report = fleet.fleet_report(summaries)
    assert isinstance(report, Report) and report.command == "fleet" and report.exit_code == 1
    doc = fleet.summarise(summaries)
    assert sum(f.count for f in report.findings) == doc["findings"]
    assert {f.code: 0 for f in report.findings}.keys() == doc["by_code"].keys()
    logged = [f for f in report.findings if f.location.path != module]
    assert logged and all(f.origin is Origin.LOGGED and f.kind is FindingKind.LOGGED_ERROR and f.message
                          and f.location.line for f in logged)
    (predicted,) = [f for f in report.findings if f.location.path == module]
    assert predicted.origin is Origin.PREDICTED and predicted.message.startswith("E1200: ")
    # a worker's summary crosses processes (the -j pool, Dask) by pickle: plain data only
    import pickle

    assert pickle.loads(pickle.dumps(summaries)) == summaries
    broken = tmp_path / "broken.log.gz"
    broken.write_bytes(b"not gzip at all")
    bad = fleet.scan_one(str(broken), "j")
    assert bad.kind == "error" and fleet.fleet_report([*summaries, bad]).exit_code == 2
    assert fleet.fleet_report([*summaries, bad]).input_errors == (bad.error,)
    assert fleet.fleet_report([s for s in summaries if not s.sightings]).exit_code == 0
    assert main(["fleet", str(broken), *logs]) == 2
    capsys.readouterr()


def test_errors_in_logs_and_predictions_are_counted_apart(tmp_path, capsys):
    """An E1200 the analysis predicts from a module was counted as one of the jobs' "error
    messages": no log printed it.  Text and JSON (schema_version 2) now say which is which."""
    (tmp_path / "job-a").mkdir()
    (tmp_path / "job-b").mkdir()
    shutil.copy(EXAMPLES / "tpu_job.log", tmp_path / "job-a" / "tpu.log")  # E0102 x3, E1200 x1 printed
    shutil.copy(EXAMPLES / "e1200_offloaded_activation.hlo", tmp_path / "job-b" / "step.hlo")  # 1 predicted
    code, doc = fleet_json(capsys, str(tmp_path), "--jobs", "1")
    assert code == 1 and doc["schema_version"] == 2
    assert (doc["findings"], doc["logged"], doc["predicted"]) == (5, 4, 1)
    e1200 = doc["by_code"]["E1200"]
    assert (e1200["count"], e1200["logged"], e1200["predicted"]) == (2, 1, 1)
    assert doc["by_code"]["E0102"]["predicted"] == 0
    assert main(["fleet", str(tmp_path), "--jobs", "1"]) == 1
    text = capsys.readouterr().out
    assert text.splitlines()[0].endswith(": 4 error messages in logs; 1 predicted by analysis of HLO modules "
                                         "(in no log)")
    assert "E1200 CompileTimeHostOffloadOutputLocationMismatch: 2 in 2 files of 2 jobs (job-a, job-b), " \
           "1 of them predicted by analysis" in text
    assert main(["fleet", str(tmp_path / "job-b"), "--jobs", "1"]) == 1
    alone = capsys.readouterr().out
    assert ": 0 error messages in logs; 1 predicted" in alone and ", predicted by analysis\n" in alone

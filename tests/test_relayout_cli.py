"""``xladoctor relayout``: .npy and raw bytes between layouts; refusals are one-line errors (exit 2)."""

from __future__ import annotations

import json

import pytest

np = pytest.importorskip("numpy")
from xladoctor.cli.main import main  # noqa: E402

DENSE = "f32[3,5]"
TILED = "f32[3,5]{1,0:T(2,2)}"
COLMAJOR = "f32[3,5]{0,1}"


def test_npy_to_tiled_to_colmajor_to_npy(tmp_path, capsys):
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    np.save(tmp_path / "x.npy", x)
    assert main(["relayout", "--from", DENSE, "--to", TILED, str(tmp_path / "x.npy"), str(tmp_path / "t.bin")]) == 0
    tiled = (tmp_path / "t.bin").read_bytes()
    assert len(tiled) == 96 and np.frombuffer(tiled, np.float32)[17] == x[2, 3]
    assert main(["relayout", "--from", TILED, "--to", COLMAJOR, str(tmp_path / "t.bin"), str(tmp_path / "c.bin"),
                 "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc == {"schema_version": 1, "$schema": "https://xladoctor.invalid/schema/relayout.schema.json",
                   "command": "relayout", "from": TILED, "to": COLMAJOR,
                   "input": str(tmp_path / "t.bin"), "output": str(tmp_path / "c.bin"),
                   "input_bytes": 96, "output_bytes": 60, "output_format": "raw"}
    assert (tmp_path / "c.bin").read_bytes() == x.T.tobytes()
    assert main(["relayout", "--from", COLMAJOR, "--to", DENSE, str(tmp_path / "c.bin"), str(tmp_path / "y.npy")]) == 0
    assert np.array_equal(np.load(tmp_path / "y.npy"), x)


def test_tiled_output_to_npy_is_the_stored_bytes(tmp_path):
    np.save(tmp_path / "x.npy", np.ones((3, 5), np.float32))
    assert main(["relayout", "--from", DENSE, "--to", TILED, str(tmp_path / "x.npy"), str(tmp_path / "t.npy")]) == 0
    stored = np.load(tmp_path / "t.npy")
    assert stored.dtype == np.uint8 and stored.size == 96


@pytest.mark.parametrize("source,target,data,expect", [
    (TILED, DENSE, 95, "has 95 bytes but a buffer of f32[3,5]{1,0:T(2,2)} has 96"),
    (DENSE, "s32[3,5]", 60, "element types differ: f32 vs s32"),
    (DENSE, "f32[5,3]", 60, "logical dimensions differ"),
    ("bf16[128]{0:T(128)(2,1)}", "bf16[128]", 512, "ArraySize counts 256"),
    ("f32[3,5", DENSE, 60, "--from:1:8:"),
    ("(f32[2], f32[2])", DENSE, 16, "one array shape"),
])
def test_refusals(tmp_path, capsys, source, target, data, expect):
    (tmp_path / "in.bin").write_bytes(bytes(data))
    assert main(["relayout", "--from", source, "--to", target, str(tmp_path / "in.bin"), str(tmp_path / "o.bin")]) == 2
    err = capsys.readouterr().err
    assert expect in err and err.count("\n") == 1
    assert not (tmp_path / "o.bin").exists()


def test_npy_with_wrong_dimensions_is_refused(tmp_path, capsys):
    np.save(tmp_path / "x.npy", np.ones((5, 3), np.float32))
    assert main(["relayout", "--from", DENSE, "--to", TILED, str(tmp_path / "x.npy"), str(tmp_path / "o.bin")]) == 2
    assert "dimensions [5, 3]" in capsys.readouterr().err


def test_allow_subtile_padding_round_trips(tmp_path):
    x = np.arange(128, dtype=np.uint16)
    (tmp_path / "x.bin").write_bytes(x.tobytes())
    args = ["--allow-subtile-padding"]
    assert main(["relayout", "--from", "bf16[128]", "--to", "bf16[128]{0:T(128)(2,1)}", str(tmp_path / "x.bin"),
                 str(tmp_path / "t.bin"), *args]) == 0
    assert len((tmp_path / "t.bin").read_bytes()) == 512
    assert main(["relayout", "--from", "bf16[128]{0:T(128)(2,1)}", "--to", "bf16[128]", str(tmp_path / "t.bin"),
                 str(tmp_path / "y.bin"), *args]) == 0
    assert (tmp_path / "y.bin").read_bytes() == x.tobytes()


def test_stdin_to_stdout_raw_bytes():
    import subprocess
    import sys
    data = np.arange(15, dtype=np.float32).tobytes()
    proc = subprocess.run([sys.executable, "-m", "xladoctor", "relayout", "--from", "f32[3,5]{1,0}",
                           "--to", "f32[3,5]{0,1}", "-", "-"], input=data, capture_output=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert np.frombuffer(proc.stdout, np.float32).tolist() == np.arange(15).reshape(3, 5).T.ravel().tolist()


def test_a_logical_npy_given_with_a_tiled_from_is_read_as_the_array(tmp_path):
    """A ``.npy`` holds the logical array whatever ``--from`` says of the buffer it came from: it
    was read as raw tiled bytes (scrambled, exit 0).  Relaid out to column-major it is x.T; a bf16
    array comes back as its uint16 bit patterns (not numpy's opaque ``|V2``)."""
    x = np.arange(15, dtype=np.float32).reshape(3, 5)
    np.save(tmp_path / "x.npy", x)
    assert main(["relayout", "--from", TILED, "--to", COLMAJOR, str(tmp_path / "x.npy"), str(tmp_path / "c.bin")]) == 0
    assert (tmp_path / "c.bin").read_bytes() == x.T.tobytes()
    ml = pytest.importorskip("ml_dtypes")
    b = np.arange(256).astype(ml.bfloat16).reshape(2, 128)
    np.save(tmp_path / "b.npy", b)
    tiled = "bf16[2,128]{1,0:T(8,128)(2,1)}"
    assert main(["relayout", "--from", "bf16[2,128]", "--to", tiled, str(tmp_path / "b.npy"), str(tmp_path / "t.bin")]) == 0
    assert main(["relayout", "--from", tiled, "--to", "bf16[2,128]", str(tmp_path / "t.bin"), str(tmp_path / "y.npy")]) == 0
    back = np.load(tmp_path / "y.npy")
    assert back.dtype.str == "<u2" and np.array_equal(back.view(ml.bfloat16), b)

"""The E0102 texts we print (inputs/runtime_messages.py) and the ones we read from logs
(inputs/messages.py) describe one format: every printed message must parse back to its fields."""

import pytest

from xladoctor.inputs.messages import parse_e0102
from xladoctor.inputs.runtime_messages import cpu_gpu_message, stream_executor_message, tpu_message
from xladoctor.ir.sizes import physical_bytes
from xladoctor.syntax.shape_parser import parse_shape

SHAPES = [
    ("bf16[16,1280,40]{2,1,0:T(8,128)(2,1)}", "bf16[16,1280,40]{1,2,0:T(8,128)(2,1)}"),
    ("f32[5,4,3]{0,1,2:T(4,128)}", "f32[5,4,3]{2,1,0}"),
    ("s4[64,128]{1,0:T(8,128)(8,1)E(4)S(5)}", "s4[64,128]{1,0}"),
    ("(f32[2]{0}, s32[])", "(f32[3]{0}, s32[])"),
]


@pytest.mark.parametrize("replica", [None, 7])
@pytest.mark.parametrize("expected,actual", SHAPES[:3])
def test_tpu_message_round_trips(expected, actual, replica):
    e, a = parse_shape(expected), parse_shape(actual)
    text = tpu_message("jit_step", 12, physical_bytes(e), e, physical_bytes(a), a, replica,
                       None if replica is None else 0)
    fields = parse_e0102(text)
    assert fields["format"] == "tpu"
    assert (fields["executable"], fields["parameter"], fields["expected_shape"], fields["actual_shape"]) == (
        "jit_step", 12, expected, actual)
    assert (fields["expected_size"], fields["actual_size"]) == (physical_bytes(e), physical_bytes(a))
    assert fields["replica"] == replica


@pytest.mark.parametrize("gpu", [False, True])
def test_cpu_gpu_message_round_trips(gpu):
    fields = parse_e0102(cpu_gpu_message(0, 4096, 3840, gpu))
    assert fields["format"] == "cpu_gpu"
    assert (fields["parameter"], fields["expected_size"], fields["actual_size"]) == (0, 4096, 3840)


@pytest.mark.parametrize("expected,actual", SHAPES)
def test_stream_executor_message_round_trips(expected, actual):
    fields = parse_e0102(stream_executor_message(3, parse_shape(expected), parse_shape(actual)))
    assert fields["format"] == "stream_executor"
    assert (fields["parameter"], fields["expected_shape"], fields["actual_shape"]) == (3, expected, actual)

"""A 100k-instruction module, generated here, goes through the parser, the printer, the
post-order walk and the host-offload analysis in one pass each: no recursion limit, no
quadratic step.  (Times are measured in bench/, never asserted here.)"""

import pytest

from xladoctor.offload import analyze_host_offload
from xladoctor.syntax.hlo_parser import parse_module
from xladoctor.syntax.hlo_printer import print_module

N = 100_000


def _chain_module(n: int) -> str:
    lines = ["HloModule big, entry_computation_layout={(f32[8,128]{1,0:T(8,128)})->f32[8,128]{1,0:T(8,128)}}",
             "", "ENTRY main {", '  p = f32[8,128]{1,0} parameter(0), metadata={op_name="x"}']
    prev = "p"
    for i in range(n):
        op = ("add", "multiply", "subtract", "maximum")[i % 4]
        lines.append(f"  v{i} = f32[8,128]{{1,0}} {op}({prev}, p), "
                     f'metadata={{op_name="jit(f)/{op}" source_file="/m.py" source_line={i % 300}}}')
        prev = f"v{i}"
    lines += [f"  ROOT out = f32[8,128]{{1,0}} custom-call({prev}), custom_call_target=\"MoveToHost\"", "}"]
    return "\n".join(lines) + "\n"


@pytest.mark.slow
def test_hundred_thousand_instructions_in_one_dependency_chain():
    text = _chain_module(N)
    module = parse_module(text, "big.hlo")
    assert module.instruction_count() == N + 2
    order = module.entry.post_order()
    assert order[0].name == "p" and order[-1].name == "out" and len(order) == N + 2
    assert module.instruction(f"v{N - 1}").source_location().line == (N - 1) % 300
    # the MoveToHost is the root: released XLA puts a copy to host there and compiles;
    # the unmerged PR #36525 rule calls the tiled device output an E1200, "custom call" form
    result = analyze_host_offload(module)
    assert result.outcome == "ok" and [i.kind for i in result.inserted] == ["output-copy-to-host"]
    result = analyze_host_offload(module, "unmerged-pr-36525")
    assert result.error is not None and (result.error.context, result.error.start) == ("custom call", "out")
    assert "(custom call \"out\")" in result.error.full_message
    assert print_module(module).count("\n") == text.count("\n") + 1

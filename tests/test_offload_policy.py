"""An offloading checkpoint policy whose names match no ``checkpoint_name`` offloads nothing, and
neither JAX nor XLA says so: ``check_offload`` does (real programs, traced and lowered for TPU)."""

from __future__ import annotations

import pytest

jax = pytest.importorskip("jax")
jnp = pytest.importorskip("jax.numpy")

from jax.ad_checkpoint import checkpoint_name  # noqa: E402

from xladoctor.jax import check_offload  # noqa: E402


def _policy(*offloaded: str, saved: tuple[str, ...] = ()):
    return jax.checkpoint_policies.save_and_offload_only_these_names(
        names_which_can_be_saved=list(saved), names_which_can_be_offloaded=list(offloaded),
        offload_src="device", offload_dst="pinned_host")


def _step(policy, names=("hidden", "pre")):
    def layer(x, w):
        pre = checkpoint_name(x @ w, names[1])
        h = checkpoint_name(jnp.tanh(pre), names[0])
        return jnp.sum(h * h)

    def step(x, w):
        return jax.grad(jax.checkpoint(layer, policy=policy), argnums=1)(x, w)

    return step


ARGS = (jax.ShapeDtypeStruct((16, 256), jnp.float32), jax.ShapeDtypeStruct((256, 256), jnp.float32))


def test_a_misspelt_name_is_a_policy_that_offloads_nothing():
    report = check_offload(_step(_policy("hiden")), *ARGS)
    assert report.offloads()["moves_to_host"] == 0  # nothing moved: the silent no-op, for real
    (finding,) = report.policy_findings
    assert finding.kind == "offloads-nothing" and finding.names == ("hiden",)
    assert set(finding.program_names) == {"hidden", "pre"}
    text = str(report)
    assert "the checkpoint policy offloads nothing" in text and "did you mean 'hidden' for 'hiden'?" in text
    assert report.to_json()["policy_findings"][0]["kind"] == "offloads-nothing"


def test_one_unmatched_name_among_matching_ones_is_named():
    report = check_offload(_step(_policy("hidden", "attn_out")), *ARGS)
    assert report.offloads()["moves_to_host"] >= 1
    (finding,) = report.policy_findings
    assert finding.kind == "names-unmatched" and finding.names == ("attn_out",)
    assert "attn_out" in str(report)


def test_a_policy_whose_names_all_match_says_nothing():
    report = check_offload(_step(_policy("hidden", "pre")), *ARGS)
    assert report.policy_findings == [] and report.offloads()["moves_to_host"] >= 1
    assert "checkpoint policy" not in str(report)


def test_a_program_without_checkpoint_names_and_an_offload_policy():
    report = check_offload(_step(_policy("hidden"), names=("a", "b")), *ARGS)
    assert [f.kind for f in report.policy_findings] == ["offloads-nothing"]

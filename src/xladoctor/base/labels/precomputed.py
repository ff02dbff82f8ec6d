"""The label areas the fastest commands show, already read: GENERATED from en.toml and fa.toml by
``python -m xladoctor.base.labels.reader`` (run it after editing them; tests/test_labels.py fails until
then).  Reading and cutting a label file was ~0.65 ms of `xladoctor shape` (issue 36 item 5)."""

AREAS = ('shape',)

TABLES: dict[tuple[str, str], dict[str, str]] = {
    ('en', 'shape'): {
        'shape.shape': 'shape           {shape}',
        'shape.tuple_table': 'tuple table     {bytes}  (ByteSizeOf of a tuple: one pointer per element)',
        'shape.leaves_logical': 'leaves, logical {bytes}',
        'shape.leaves_physical': 'leaves, physical {bytes}  ({ratio} of logical)',
        'shape.leaf': 'leaf {index}',
        'shape.token_bytes': 'logical bytes   {bytes}  (XLA ByteSizeOf: a token holds no data)',
        'shape.opaque_bytes': 'logical bytes   {bytes}  (XLA ByteSizeOf: an opaque value is one pointer)',
        'shape.logical': 'logical bytes   {bytes}  (XLA ByteSizeOf: dense elements)',
        'shape.physical': 'physical bytes  {bytes}  (XLA ArraySize: tiled and padded)',
        'shape.physical_ratio': 'physical bytes  {bytes}  (XLA ArraySize: tiled and padded, {ratio} of logical)',
        'shape.runtime_cpu_gpu': 'runtime bytes   {bytes}  (PjRt buffer on CPU/GPU: the runtime size of each dimension, 4 B each, after the data)',
        'shape.runtime_tpu': 'runtime bytes   {bytes}  (PjRt buffer on TPU: M(n) metadata before the data)',
        'shape.combine_rule': "note            '*' tile entries: sized with tiled_layout.md's combine rule; XLA's ArraySize does not support '*'",
        'shape.memory_space': 'memory space    S({space})',
        'shape.host_memory_space': 'memory space    S({space}) = host memory',
        'shape.jax_layout': 'JAX layout      {layout}',
        'shape.padding_heading': 'padding by the first tile {tile}, minor-most physical dimension first:',
        'shape.padding_columns': 'phys  dim      size    padded   tile   wasted bytes (if only this dim were padded)',
        'shape.padded_mark': '<- padded',
        'shape.tail_padding': 'L(n) tail padding adds {n} elements',
        'shape.tpu_default': 'TPU {generation} default',
        'shape.tpu_none': 'none: {reason}',
        'shape.tpu_layout': "{layout}  (as libtpu {libtpu}'s get_default_layout; the same on {same})",
        'shape.tpu_no_layout_given': 'no layout was given, so the sizes above are for this default',
        'shape.tpu_is_default': 'the given layout is the {generation} default',
        'shape.tpu_not_default': 'the given layout is not the {generation} default',
        'shape.tpu_not_default_elsewhere': 'the given layout is not the {generation} default (it is the default on {others})',
        'shape.tpu_default_takes': 'the default takes {bytes} physical ({ratio} of logical)',
    },
    ('fa', 'shape'): {},
}

module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @empty_mesh = <[]> {stablehlo.mesh = {axes = []}}
  func.func public @main(%arg0: tensor<8x128xf32> {mhlo.memory_kind = "pinned_host", sdy.sharding = #sdy.sharding<@empty_mesh, [{}, {}]>}) -> (tensor<8x128xf32> {jax.result_info = "result", mhlo.memory_kind = "device"}) {
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x128xf32>
    %1 = stablehlo.multiply %arg0, %0 : tensor<8x128xf32>
    return %1 : tensor<8x128xf32>
  }
}

module @jit_loss attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256x256xf32>, %arg1: tensor<16x256xf32>) -> (tensor<256x256xf32> {jax.result_info = "result", mhlo.memory_kind = "device"}) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
    %1 = stablehlo.tanh %0 : tensor<16x256xf32>
    %2 = stablehlo.custom_call @annotate_device_placement(%1) {backend_config = "", has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "pinned_host"}} : (tensor<16x256xf32>) -> tensor<16x256xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x256xf32>
    %4:4 = stablehlo.optimization_barrier %2, %arg0, %arg1, %3 : tensor<16x256xf32>, tensor<256x256xf32>, tensor<16x256xf32>, tensor<16x256xf32>
    %5 = stablehlo.dot_general %4#2, %4#1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
    %6 = stablehlo.tanh %5 : tensor<16x256xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x256xf32>
    %8 = stablehlo.subtract %7, %6 : tensor<16x256xf32>
    %9 = stablehlo.custom_call @annotate_device_placement(%4#0) {backend_config = "", has_side_effect = true, mhlo.frontend_attributes = {_xla_buffer_placement = "device"}} : (tensor<16x256xf32>) -> tensor<16x256xf32>
    %10 = stablehlo.dot_general %9, %4#1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
    %11 = stablehlo.cosine %10 : tensor<16x256xf32>
    %12 = stablehlo.multiply %4#3, %11 : tensor<16x256xf32>
    %13 = stablehlo.dot_general %12, %9, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<256x256xf32>
    %14 = stablehlo.transpose %13, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %15 = stablehlo.dot_general %12, %4#1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
    %16 = stablehlo.multiply %15, %8 : tensor<16x256xf32>
    %17 = stablehlo.multiply %16, %6 : tensor<16x256xf32>
    %18 = stablehlo.add %16, %17 : tensor<16x256xf32>
    %19 = stablehlo.dot_general %18, %4#2, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<256x256xf32>
    %20 = stablehlo.transpose %19, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %21 = stablehlo.add %14, %20 : tensor<256x256xf32>
    return %21 : tensor<256x256xf32>
  }
}

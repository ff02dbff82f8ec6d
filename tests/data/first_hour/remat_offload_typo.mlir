module @jit_loss_typo attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256x256xf32>, %arg1: tensor<16x256xf32>) -> (tensor<256x256xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<16x256xf32>
    %1:3 = stablehlo.optimization_barrier %arg0, %arg1, %0 : tensor<256x256xf32>, tensor<16x256xf32>, tensor<16x256xf32>
    %2 = stablehlo.dot_general %1#1, %1#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
    %3 = stablehlo.tanh %2 : tensor<16x256xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<16x256xf32>
    %5 = stablehlo.subtract %4, %3 : tensor<16x256xf32>
    %6 = stablehlo.dot_general %3, %1#0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
    %7 = stablehlo.cosine %6 : tensor<16x256xf32>
    %8 = stablehlo.multiply %1#2, %7 : tensor<16x256xf32>
    %9 = stablehlo.dot_general %8, %3, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<256x256xf32>
    %10 = stablehlo.transpose %9, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %11 = stablehlo.dot_general %8, %1#0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<256x256xf32>) -> tensor<16x256xf32>
    %12 = stablehlo.multiply %11, %5 : tensor<16x256xf32>
    %13 = stablehlo.multiply %12, %3 : tensor<16x256xf32>
    %14 = stablehlo.add %12, %13 : tensor<16x256xf32>
    %15 = stablehlo.dot_general %14, %1#1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<16x256xf32>, tensor<16x256xf32>) -> tensor<256x256xf32>
    %16 = stablehlo.transpose %15, dims = [1, 0] : (tensor<256x256xf32>) -> tensor<256x256xf32>
    %17 = stablehlo.add %10, %16 : tensor<256x256xf32>
    return %17 : tensor<256x256xf32>
  }
}

; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

declare float @__nv_fabsf(float)

declare float @__nv_fmaf(float, float, float)

define ptx_kernel void @loop_multiply_reduce_fusion(ptr noalias align 256 dereferenceable(131072) %0, ptr noalias align 256 dereferenceable(16384) %1, ptr noalias align 256 dereferenceable(16384) %2) #0 {
  call void @llvm.nvvm.griddepcontrol.wait()
  %4 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !range !1
  %5 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !range !2
  %6 = mul i32 %4, 128
  %7 = add i32 %6, %5
  %8 = getelementptr inbounds [32768 x float], ptr %0, i32 0, i32 %7
  %9 = load float, ptr %8, align 4, !invariant.load !3
  %10 = fadd float %9, 0.000000e+00
  %11 = add i32 %7, 4096
  %12 = getelementptr inbounds [32768 x float], ptr %0, i32 0, i32 %11
  %13 = load float, ptr %12, align 4, !invariant.load !3
  %14 = fadd float %10, %13
  %15 = add i32 %7, 8192
  %16 = getelementptr inbounds [32768 x float], ptr %0, i32 0, i32 %15
  %17 = load float, ptr %16, align 4, !invariant.load !3
  %18 = fadd float %14, %17
  %19 = add i32 %7, 12288
  %20 = getelementptr inbounds [32768 x float], ptr %0, i32 0, i32 %19
  %21 = load float, ptr %20, align 4, !invariant.load !3
  %22 = fadd float %18, %21
  %23 = add i32 %7, 16384
  %24 = getelementptr inbounds [32768 x float], ptr %0, i32 0, i32 %23
  %25 = load float, ptr %24, align 4, !invariant.load !3
  %26 = fadd float %22, %25
  %27 = add i32 %7, 20480
  %28 = getelementptr inbounds [32768 x float], ptr %0, i32 0, i32 %27
  %29 = load float, ptr %28, align 4, !invariant.load !3
  %30 = fadd float %26, %29
  %31 = add i32 %7, 24576
  %32 = getelementptr inbounds [32768 x float], ptr %0, i32 0, i32 %31
  %33 = load float, ptr %32, align 4, !invariant.load !3
  %34 = fadd float %30, %33
  %35 = add i32 %7, 28672
  %36 = getelementptr inbounds [32768 x float], ptr %0, i32 0, i32 %35
  %37 = load float, ptr %36, align 4, !invariant.load !3
  %38 = fadd float %34, %37
  %39 = fcmp ult float %38, f0x40FFF644
  %40 = select i1 %39, float %38, float f0x40FFF644
  %41 = fcmp ugt float %40, f0xC0FFF644
  %42 = select i1 %41, float %40, float f0xC0FFF644
  %43 = call float @__nv_fabsf(float %38)
  %44 = fcmp olt float %43, 4.000000e-04
  %45 = fmul float %42, %42
  %46 = call float @__nv_fmaf(float %45, float f0xA59F25C0, float f0x2A61337E)
  %47 = call float @__nv_fmaf(float %45, float %46, float f0xAEBD37FF)
  %48 = call float @__nv_fmaf(float %45, float %47, float f0x335C0041)
  %49 = call float @__nv_fmaf(float %45, float %48, float f0x3779434A)
  %50 = call float @__nv_fmaf(float %45, float %49, float f0x3A270DED)
  %51 = call float @__nv_fmaf(float %45, float %50, float f0x3BA059DC)
  %52 = fmul float %42, %51
  %53 = call float @__nv_fmaf(float %45, float f0x35A0D3D8, float f0x38F895D6)
  %54 = call float @__nv_fmaf(float %45, float %53, float f0x3B14AA05)
  %55 = call float @__nv_fmaf(float %45, float %54, float f0x3BA059DD)
  %56 = fdiv float %52, %55
  %57 = select i1 %44, float %42, float %56
  %58 = fmul float %57, 2.000000e+00
  %59 = getelementptr inbounds [4096 x float], ptr %1, i32 0, i32 %7
  store float %58, ptr %59, align 4
  %60 = getelementptr inbounds [4096 x float], ptr %2, i32 0, i32 %7
  store float %57, ptr %60, align 4
  ret void
}

; Function Attrs: nounwind
declare void @llvm.nvvm.griddepcontrol.wait() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

attributes #0 = { "nvvm.reqntid"="128,1,1" }
attributes #1 = { nounwind }
attributes #2 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 0, i32 32}
!2 = !{i32 0, i32 128}
!3 = !{}

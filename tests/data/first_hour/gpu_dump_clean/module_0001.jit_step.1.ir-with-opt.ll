; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

; Function Attrs: nounwind
define ptx_kernel void @loop_multiply_reduce_fusion(ptr noalias nofree readonly align 256 captures(none) dereferenceable(131072) %0, ptr noalias nofree writeonly align 256 captures(none) dereferenceable(16384) %1, ptr noalias nofree writeonly align 256 captures(none) dereferenceable(16384) %2) local_unnamed_addr #0 {
  %4 = addrspacecast ptr %0 to ptr addrspace(1)
  %5 = addrspacecast ptr %1 to ptr addrspace(1)
  %6 = addrspacecast ptr %2 to ptr addrspace(1)
  tail call void @llvm.nvvm.griddepcontrol.wait()
  %7 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x(), !range !4
  %8 = tail call i32 @llvm.nvvm.read.ptx.sreg.tid.x(), !range !5
  %9 = shl nuw nsw i32 %7, 7
  %10 = or disjoint i32 %9, %8
  %11 = zext nneg i32 %10 to i64
  %12 = getelementptr inbounds [4 x i8], ptr addrspace(1) %4, i64 %11
  %13 = load float, ptr addrspace(1) %12, align 4, !invariant.load !6
  %14 = fadd float %13, 0.000000e+00
  %15 = getelementptr inbounds i8, ptr addrspace(1) %12, i64 16384
  %16 = load float, ptr addrspace(1) %15, align 4, !invariant.load !6
  %17 = fadd float %14, %16
  %18 = getelementptr inbounds i8, ptr addrspace(1) %12, i64 32768
  %19 = load float, ptr addrspace(1) %18, align 4, !invariant.load !6
  %20 = fadd float %17, %19
  %21 = getelementptr inbounds i8, ptr addrspace(1) %12, i64 49152
  %22 = load float, ptr addrspace(1) %21, align 4, !invariant.load !6
  %23 = fadd float %20, %22
  %24 = getelementptr inbounds i8, ptr addrspace(1) %12, i64 65536
  %25 = load float, ptr addrspace(1) %24, align 4, !invariant.load !6
  %26 = fadd float %23, %25
  %27 = getelementptr inbounds i8, ptr addrspace(1) %12, i64 81920
  %28 = load float, ptr addrspace(1) %27, align 4, !invariant.load !6
  %29 = fadd float %26, %28
  %30 = getelementptr inbounds i8, ptr addrspace(1) %12, i64 98304
  %31 = load float, ptr addrspace(1) %30, align 4, !invariant.load !6
  %32 = fadd float %29, %31
  %33 = getelementptr inbounds i8, ptr addrspace(1) %12, i64 114688
  %34 = load float, ptr addrspace(1) %33, align 4, !invariant.load !6
  %35 = fadd float %32, %34
  %.inv = fcmp oge float %35, f0x40FFF644
  %36 = select i1 %.inv, float f0x40FFF644, float %35
  %.inv1 = fcmp ole float %36, f0xC0FFF644
  %37 = select i1 %.inv1, float f0xC0FFF644, float %36
  %38 = tail call float @llvm.nvvm.fabs.f32(float %35)
  %39 = fcmp olt float %38, 4.000000e-04
  %40 = fmul float %37, %37
  %41 = tail call float @llvm.fma.f32(float %40, float f0xA59F25C0, float f0x2A61337E)
  %42 = tail call float @llvm.fma.f32(float %40, float %41, float f0xAEBD37FF)
  %43 = tail call float @llvm.fma.f32(float %40, float %42, float f0x335C0041)
  %44 = tail call float @llvm.fma.f32(float %40, float %43, float f0x3779434A)
  %45 = tail call float @llvm.fma.f32(float %40, float %44, float f0x3A270DED)
  %46 = tail call float @llvm.fma.f32(float %40, float %45, float f0x3BA059DC)
  %47 = fmul float %37, %46
  %48 = tail call float @llvm.fma.f32(float %40, float f0x35A0D3D8, float f0x38F895D6)
  %49 = tail call float @llvm.fma.f32(float %40, float %48, float f0x3B14AA05)
  %50 = tail call float @llvm.fma.f32(float %40, float %49, float f0x3BA059DD)
  %51 = fdiv float %47, %50
  %52 = select i1 %39, float %37, float %51
  %53 = fmul float %52, 2.000000e+00
  %54 = getelementptr inbounds [4 x i8], ptr addrspace(1) %5, i64 %11
  store float %53, ptr addrspace(1) %54, align 4
  %55 = getelementptr inbounds [4 x i8], ptr addrspace(1) %6, i64 %11
  store float %52, ptr addrspace(1) %55, align 4
  ret void
}

; Function Attrs: nounwind
declare void @llvm.nvvm.griddepcontrol.wait() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #2

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #2

; Function Attrs: mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.nvvm.fabs.f32(float) #3

; Function Attrs: nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none)
declare float @llvm.fma.f32(float, float, float) #4

attributes #0 = { nounwind "nvvm.reqntid"="128,1,1" }
attributes #1 = { nounwind }
attributes #2 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #3 = { mustprogress nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }
attributes #4 = { nocallback nocreateundeforpoison nofree nosync nounwind speculatable willreturn memory(none) }

!llvm.module.flags = !{!0, !1}
!llvm.ident = !{!2}
!nvvmir.version = !{!3}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 0}
!2 = !{!"clang version 3.8.0 (tags/RELEASE_380/final)"}
!3 = !{i32 2, i32 0}
!4 = !{i32 0, i32 32}
!5 = !{i32 0, i32 128}
!6 = !{}

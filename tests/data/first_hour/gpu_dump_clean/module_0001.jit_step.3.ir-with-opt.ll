; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

; Function Attrs: nounwind
declare void @llvm.nvvm.griddepcontrol.wait() #0

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #2

; Function Attrs: convergent nocallback nofree nounwind memory(argmem: read)
declare { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) readonly captures(none)) #3

; Function Attrs: nounwind
define ptx_kernel void @gemm_fusion_dot(ptr noalias align 16 dereferenceable(16384) %arg0, ptr noalias align 16 dereferenceable(262144) %arg1, ptr noalias align 256 dereferenceable(131072) %arg2) local_unnamed_addr #4 {
  %1 = addrspacecast ptr %arg0 to ptr addrspace(1)
  %2 = addrspacecast ptr %arg1 to ptr addrspace(1)
  %3 = addrspacecast ptr %arg2 to ptr addrspace(1)
  tail call void @llvm.nvvm.griddepcontrol.wait()
  %4 = tail call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %5 = zext nneg i32 %4 to i64
  %6 = lshr i64 %5, 5
  %7 = shl nuw nsw i64 %5, 4
  %8 = and i64 %7, 240
  %9 = tail call range(i32 0, 64) i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %10 = and i32 %9, 3
  %11 = shl nuw nsw i32 %10, 2
  %12 = and i32 %9, 7
  %13 = shl nuw nsw i32 %12, 1
  %14 = shl nuw nsw i32 %9, 6
  %15 = and i32 %14, 3840
  %16 = or disjoint i32 %15, %11
  %17 = zext nneg i32 %16 to i64
  %18 = shl nuw nsw i32 %9, 5
  %19 = and i32 %18, 1792
  %20 = or disjoint i32 %19, %13
  %21 = zext nneg i32 %20 to i64
  %22 = and i64 %5, 2147483616
  %23 = shl nuw nsw i64 %5, 7
  %24 = and i64 %23, 2048
  %.idx1 = shl nuw nsw i64 %6, 15
  %25 = getelementptr i8, ptr addrspace(1) %2, i64 %.idx1
  %invariant.gep = getelementptr [4 x i8], ptr addrspace(1) %25, i64 %8
  %invariant.gep4 = getelementptr [4 x i8], ptr addrspace(1) %invariant.gep, i64 %17
  %26 = shl nuw nsw i32 %9, 4
  %27 = and i32 %26, 880
  %28 = and i32 %9, 8
  %29 = icmp eq i32 %28, 0
  %30 = select i1 %29, i32 0, i32 160
  %31 = xor i32 %30, %27
  %32 = zext nneg i32 %31 to i64
  %33 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i64 %32
  %34 = and i32 %9, 28
  %35 = and i32 %14, 64
  %36 = and i32 %9, 2
  %37 = icmp eq i32 %36, 0
  %38 = select i1 %37, i32 0, i32 160
  %39 = or disjoint i32 %35, %34
  %40 = or disjoint i32 %39, %38
  %41 = zext nneg i32 %40 to i64
  %42 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i64 %41
  %43 = getelementptr inbounds nuw i8, ptr addrspace(3) %42, i64 256
  %44 = getelementptr inbounds nuw i8, ptr addrspace(3) %42, i64 512
  %45 = getelementptr inbounds nuw i8, ptr addrspace(3) %42, i64 768
  %46 = xor i32 %40, 32
  %47 = zext nneg i32 %46 to i64
  %48 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i64 %47
  %49 = getelementptr inbounds nuw i8, ptr addrspace(3) %48, i64 256
  %50 = getelementptr inbounds nuw i8, ptr addrspace(3) %48, i64 512
  %51 = getelementptr inbounds nuw i8, ptr addrspace(3) %48, i64 768
  %52 = getelementptr [4 x i8], ptr addrspace(1) %1, i64 %24
  %53 = getelementptr [4 x i8], ptr addrspace(1) %52, i64 %22
  %invariant.gep6 = getelementptr [4 x i8], ptr addrspace(1) %53, i64 %21
  %54 = shl nuw nsw i32 %9, 3
  %55 = and i32 %9, 48
  %56 = xor i32 %54, %55
  %57 = zext nneg i32 %56 to i64
  %58 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i64 %57
  %59 = shl nuw nsw i32 %12, 6
  %60 = shl nuw nsw i32 %9, 1
  %61 = xor i32 %54, %60
  %62 = and i32 %61, 48
  %63 = or disjoint i32 %62, %59
  %64 = zext nneg i32 %63 to i64
  %65 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i64 %64
  %66 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, 0x0; mov.u32 $1, 0x0; mov.u32 $2, 0x0; mov.u32 $3, 0x0; ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=r,=r,=r,=r,l"(ptr addrspace(1) %invariant.gep4) #0
  %67 = extractvalue { i32, i32, i32, i32 } %66, 0
  %68 = extractvalue { i32, i32, i32, i32 } %66, 1
  %69 = extractvalue { i32, i32, i32, i32 } %66, 2
  %70 = extractvalue { i32, i32, i32, i32 } %66, 3
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %71 = insertelement <4 x i32> poison, i32 %67, i64 0
  %72 = insertelement <4 x i32> %71, i32 %68, i64 1
  %73 = insertelement <4 x i32> %72, i32 %69, i64 2
  %74 = insertelement <4 x i32> %73, i32 %70, i64 3
  store <4 x i32> %74, ptr addrspace(3) %33, align 16
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %75 = load float, ptr addrspace(3) %42, align 4
  %76 = load float, ptr addrspace(3) %43, align 4
  %77 = load float, ptr addrspace(3) %44, align 4
  %78 = load float, ptr addrspace(3) %45, align 4
  %79 = load float, ptr addrspace(3) %48, align 4
  %80 = load float, ptr addrspace(3) %49, align 4
  %81 = load float, ptr addrspace(3) %50, align 4
  %82 = load float, ptr addrspace(3) %51, align 4
  %83 = tail call { i32, i32 } asm sideeffect "mov.u32 $0, 0x0; mov.u32 $1, 0x0; ld.global.v2.b32 { $0, $1 }, [ $2 + 0 ];", "=r,=r,l"(ptr addrspace(1) %invariant.gep6) #0
  %84 = extractvalue { i32, i32 } %83, 0
  %85 = extractvalue { i32, i32 } %83, 1
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %86 = insertelement <2 x i32> poison, i32 %84, i64 0
  %87 = insertelement <2 x i32> %86, i32 %85, i64 1
  store <2 x i32> %87, ptr addrspace(3) %58, align 8
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %88 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %65)
  %89 = extractvalue { i32, i32, i32, i32 } %88, 0
  %90 = bitcast i32 %89 to float
  %91 = extractvalue { i32, i32, i32, i32 } %88, 1
  %92 = bitcast i32 %91 to float
  %93 = extractvalue { i32, i32, i32, i32 } %88, 2
  %94 = bitcast i32 %93 to float
  %95 = extractvalue { i32, i32, i32, i32 } %88, 3
  %96 = bitcast i32 %95 to float
  %97 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %75) #0
  %98 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %79) #0
  %99 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %76) #0
  %100 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %80) #0
  %101 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %77) #0
  %102 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %81) #0
  %103 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %78) #0
  %104 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %82) #0
  %105 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %90) #0
  %106 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %92) #0
  %107 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %94) #0
  %108 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %96) #0
  %109 = bitcast float %97 to i32
  %110 = bitcast float %98 to i32
  %111 = bitcast float %99 to i32
  %112 = bitcast float %100 to i32
  %113 = bitcast float %101 to i32
  %114 = bitcast float %102 to i32
  %115 = bitcast float %103 to i32
  %116 = bitcast float %104 to i32
  %117 = bitcast float %105 to i32
  %118 = bitcast float %106 to i32
  %119 = bitcast float %107 to i32
  %120 = bitcast float %108 to i32
  %121 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, float 0.000000e+00, i32 %109, i32 %110, i32 %111, i32 %112, i32 %117, i32 %118) #0
  %122 = extractvalue { float, float, float, float } %121, 0
  %123 = extractvalue { float, float, float, float } %121, 1
  %124 = extractvalue { float, float, float, float } %121, 2
  %125 = extractvalue { float, float, float, float } %121, 3
  %126 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %122, float %123, float %124, float %125, i32 %113, i32 %114, i32 %115, i32 %116, i32 %119, i32 %120) #0
  %127 = extractvalue { float, float, float, float } %126, 0
  %128 = extractvalue { float, float, float, float } %126, 1
  %129 = extractvalue { float, float, float, float } %126, 2
  %130 = extractvalue { float, float, float, float } %126, 3
  %gep5.1 = getelementptr i8, ptr addrspace(1) %invariant.gep4, i64 16384
  %131 = tail call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, 0x0; mov.u32 $1, 0x0; mov.u32 $2, 0x0; mov.u32 $3, 0x0; ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=r,=r,=r,=r,l"(ptr addrspace(1) %gep5.1) #0
  %132 = extractvalue { i32, i32, i32, i32 } %131, 0
  %133 = extractvalue { i32, i32, i32, i32 } %131, 1
  %134 = extractvalue { i32, i32, i32, i32 } %131, 2
  %135 = extractvalue { i32, i32, i32, i32 } %131, 3
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %136 = insertelement <4 x i32> poison, i32 %132, i64 0
  %137 = insertelement <4 x i32> %136, i32 %133, i64 1
  %138 = insertelement <4 x i32> %137, i32 %134, i64 2
  %139 = insertelement <4 x i32> %138, i32 %135, i64 3
  store <4 x i32> %139, ptr addrspace(3) %33, align 16
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %140 = load float, ptr addrspace(3) %42, align 4
  %141 = load float, ptr addrspace(3) %43, align 4
  %142 = load float, ptr addrspace(3) %44, align 4
  %143 = load float, ptr addrspace(3) %45, align 4
  %144 = load float, ptr addrspace(3) %48, align 4
  %145 = load float, ptr addrspace(3) %49, align 4
  %146 = load float, ptr addrspace(3) %50, align 4
  %147 = load float, ptr addrspace(3) %51, align 4
  %gep.1 = getelementptr i8, ptr addrspace(1) %invariant.gep6, i64 64
  %148 = tail call { i32, i32 } asm sideeffect "mov.u32 $0, 0x0; mov.u32 $1, 0x0; ld.global.v2.b32 { $0, $1 }, [ $2 + 0 ];", "=r,=r,l"(ptr addrspace(1) %gep.1) #0
  %149 = extractvalue { i32, i32 } %148, 0
  %150 = extractvalue { i32, i32 } %148, 1
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %151 = insertelement <2 x i32> poison, i32 %149, i64 0
  %152 = insertelement <2 x i32> %151, i32 %150, i64 1
  store <2 x i32> %152, ptr addrspace(3) %58, align 8
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %153 = tail call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %65)
  %154 = extractvalue { i32, i32, i32, i32 } %153, 0
  %155 = bitcast i32 %154 to float
  %156 = extractvalue { i32, i32, i32, i32 } %153, 1
  %157 = bitcast i32 %156 to float
  %158 = extractvalue { i32, i32, i32, i32 } %153, 2
  %159 = bitcast i32 %158 to float
  %160 = extractvalue { i32, i32, i32, i32 } %153, 3
  %161 = bitcast i32 %160 to float
  %162 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %140) #0
  %163 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %144) #0
  %164 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %141) #0
  %165 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %145) #0
  %166 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %142) #0
  %167 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %146) #0
  %168 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %143) #0
  %169 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %147) #0
  %170 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %155) #0
  %171 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %157) #0
  %172 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %159) #0
  %173 = tail call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %161) #0
  %174 = bitcast float %162 to i32
  %175 = bitcast float %163 to i32
  %176 = bitcast float %164 to i32
  %177 = bitcast float %165 to i32
  %178 = bitcast float %166 to i32
  %179 = bitcast float %167 to i32
  %180 = bitcast float %168 to i32
  %181 = bitcast float %169 to i32
  %182 = bitcast float %170 to i32
  %183 = bitcast float %171 to i32
  %184 = bitcast float %172 to i32
  %185 = bitcast float %173 to i32
  %186 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %127, float %128, float %129, float %130, i32 %174, i32 %175, i32 %176, i32 %177, i32 %182, i32 %183) #0
  %187 = extractvalue { float, float, float, float } %186, 0
  %188 = extractvalue { float, float, float, float } %186, 1
  %189 = extractvalue { float, float, float, float } %186, 2
  %190 = extractvalue { float, float, float, float } %186, 3
  %191 = tail call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %187, float %188, float %189, float %190, i32 %178, i32 %179, i32 %180, i32 %181, i32 %184, i32 %185) #0
  %192 = extractvalue { float, float, float, float } %191, 0
  %193 = extractvalue { float, float, float, float } %191, 1
  %194 = extractvalue { float, float, float, float } %191, 2
  %195 = extractvalue { float, float, float, float } %191, 3
  %196 = getelementptr [4 x i8], ptr addrspace(1) %3, i64 %8
  %197 = getelementptr [4 x i8], ptr addrspace(1) %196, i64 %24
  %.idx = shl nuw nsw i64 %6, 14
  %198 = getelementptr i8, ptr addrspace(1) %197, i64 %.idx
  %199 = getelementptr [4 x i8], ptr addrspace(1) %198, i64 %21
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %200 = shl nuw nsw i32 %10, 3
  %201 = shl nuw nsw i32 %9, 2
  %202 = and i32 %201, 96
  %203 = and i32 %9, 4
  %204 = icmp eq i32 %203, 0
  %205 = select i1 %204, i32 0, i32 260
  %206 = or disjoint i32 %200, %202
  %207 = or disjoint i32 %205, %206
  %208 = zext nneg i32 %207 to i64
  %209 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i64 %208
  store float %192, ptr addrspace(3) %209, align 4
  %210 = xor i64 %208, 16
  %211 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i64 %210
  %212 = getelementptr inbounds i8, ptr addrspace(3) %211, i64 128
  store float %193, ptr addrspace(3) %212, align 4
  %213 = xor i32 %207, 4
  %214 = zext nneg i32 %213 to i64
  %215 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i64 %214
  store float %194, ptr addrspace(3) %215, align 4
  %216 = xor i64 %208, 20
  %217 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i64 %216
  %218 = getelementptr inbounds i8, ptr addrspace(3) %217, i64 128
  store float %195, ptr addrspace(3) %218, align 4
  tail call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %219 = shl nuw nsw i32 %10, 5
  %220 = lshr i32 %9, 1
  %221 = and i32 %220, 24
  %222 = select i1 %29, i32 0, i32 144
  %223 = or disjoint i32 %219, %221
  %224 = xor i32 %223, %222
  %225 = or disjoint i32 %224, %203
  %226 = zext nneg i32 %225 to i64
  %227 = getelementptr inbounds nuw i8, ptr addrspace(3) @global_smem, i64 %226
  %228 = load i32, ptr addrspace(3) %227, align 4
  %229 = xor i64 %226, 4
  %230 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i64 %229
  %231 = getelementptr inbounds i8, ptr addrspace(3) %230, i64 256
  %232 = load i32, ptr addrspace(3) %231, align 4
  tail call void asm sideeffect "st.global.v2.b32 [ $2 + 0 ], { $0, $1 };", "r,r,l"(i32 %228, i32 %232, ptr addrspace(1) %199) #0
  ret void
}

attributes #0 = { nounwind }
attributes #1 = { mustprogress nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nocallback nounwind }
attributes #3 = { convergent nocallback nofree nounwind memory(argmem: read) }
attributes #4 = { nounwind "nvvm.reqntid"="64,1,1" }

!llvm.module.flags = !{!0, !1}
!nvvm.annotations = !{}

!0 = !{i32 2, !"Debug Info Version", i32 3}
!1 = !{i32 4, !"nvvm-reflect-ftz", i32 0}

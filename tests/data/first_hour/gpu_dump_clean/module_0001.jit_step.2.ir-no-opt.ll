; ModuleID = 'LLVMDialectModule'
source_filename = "LLVMDialectModule"
target datalayout = "e-p6:32:32-i64:64-i128:128-i256:256-v16:16-v32:32-n16:32:64"
target triple = "nvptx64-nvidia-cuda"

@global_smem = external addrspace(3) global [0 x i8], align 16

; Function Attrs: nounwind
declare void @llvm.nvvm.griddepcontrol.wait() #0

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 2147483647) i32 @llvm.nvvm.read.ptx.sreg.ctaid.x() #1

; Function Attrs: nocallback nofree nosync nounwind speculatable willreturn memory(none)
declare noundef range(i32 0, 1024) i32 @llvm.nvvm.read.ptx.sreg.tid.x() #1

; Function Attrs: convergent nocallback nounwind
declare void @llvm.nvvm.barrier.cta.sync.aligned.all(i32) #2

; Function Attrs: convergent nocallback nounwind memory(argmem: read)
declare { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) readonly captures(none)) #3

define ptx_kernel void @gemm_fusion_dot(ptr noalias align 16 dereferenceable(16384) %arg0, ptr noalias align 16 dereferenceable(262144) %arg1, ptr noalias align 256 dereferenceable(131072) %arg2) #4 {
  %1 = addrspacecast ptr %arg0 to ptr addrspace(1)
  %2 = addrspacecast ptr %arg1 to ptr addrspace(1)
  %3 = addrspacecast ptr %arg2 to ptr addrspace(1)
  %4 = addrspacecast ptr null to ptr addrspace(1)
  %5 = addrspacecast ptr null to ptr addrspace(1)
  call void @llvm.nvvm.griddepcontrol.wait()
  %6 = call i32 @llvm.nvvm.read.ptx.sreg.ctaid.x()
  %7 = sext i32 %6 to i64
  %8 = udiv i64 %7, 32
  %9 = urem i64 %7, 16
  %10 = mul i64 %9, 16
  %11 = udiv i64 %7, 16
  %12 = urem i64 %11, 2
  %13 = call i32 @llvm.nvvm.read.ptx.sreg.tid.x()
  %14 = and i32 %13, 63
  %15 = urem i32 %14, 32
  %16 = udiv i32 %13, 32
  %17 = shl i32 %15, 0
  %18 = or i32 0, %17
  %19 = shl i32 %16, 5
  %20 = or i32 %18, %19
  %21 = and i32 %20, 3
  %22 = shl i32 %21, 2
  %23 = or disjoint i32 %22, 0
  %24 = xor i32 0, %23
  %25 = xor i32 %24, 0
  %26 = add i32 %25, 0
  %27 = and i32 %20, 7
  %28 = shl i32 %27, 1
  %29 = or disjoint i32 %28, 0
  %30 = xor i32 0, %29
  %31 = xor i32 %30, 0
  %32 = add i32 %31, 0
  %33 = and i32 %20, 60
  %34 = lshr i32 %33, 2
  %35 = or disjoint i32 %34, 0
  %36 = xor i32 0, %35
  %37 = xor i32 %36, 0
  %38 = add i32 %37, 0
  %39 = sext i32 %26 to i64
  %40 = sext i32 %32 to i64
  %41 = sext i32 %38 to i64
  %42 = mul i64 %41, 256
  %43 = add i64 %42, %39
  %44 = mul i64 %8, 8192
  %45 = add i64 %10, %44
  %46 = and i32 %20, 56
  %47 = lshr i32 %46, 3
  %48 = or disjoint i32 %47, 0
  %49 = xor i32 0, %48
  %50 = xor i32 %49, 0
  %51 = add i32 %50, 0
  %52 = sext i32 %51 to i64
  %53 = mul i64 %52, 256
  %54 = add i64 %53, %40
  %55 = mul i64 %8, 32
  %56 = mul i64 %12, 2048
  br label %57

57:                                               ; preds = %61, %0
  %58 = phi i32 [ %295, %61 ], [ 0, %0 ]
  %59 = phi { float, float, float, float } [ %294, %61 ], [ zeroinitializer, %0 ]
  %60 = icmp slt i32 %58, 2
  br i1 %60, label %61, label %296

61:                                               ; preds = %57
  %62 = sext i32 %58 to i64
  %63 = mul i64 %62, 16
  %64 = mul i64 %62, 4096
  %65 = add i64 %64, %45
  %66 = getelementptr float, ptr addrspace(1) %2, i64 %65
  %67 = getelementptr float, ptr addrspace(1) %66, i64 %43
  %68 = call { i32, i32, i32, i32 } asm sideeffect "mov.u32 $0, 0x0; mov.u32 $1, 0x0; mov.u32 $2, 0x0; mov.u32 $3, 0x0; ld.global.v4.b32 { $0, $1, $2, $3 }, [ $4 + 0 ];", "=r,=r,=r,=r,l"(ptr addrspace(1) %67)
  %69 = extractvalue { i32, i32, i32, i32 } %68, 0
  %70 = bitcast i32 %69 to <1 x float>
  %71 = extractvalue { i32, i32, i32, i32 } %68, 1
  %72 = bitcast i32 %71 to <1 x float>
  %73 = extractvalue { i32, i32, i32, i32 } %68, 2
  %74 = bitcast i32 %73 to <1 x float>
  %75 = extractvalue { i32, i32, i32, i32 } %68, 3
  %76 = bitcast i32 %75 to <1 x float>
  %77 = extractelement <1 x float> %70, i32 0
  %78 = extractelement <1 x float> %72, i32 0
  %79 = extractelement <1 x float> %74, i32 0
  %80 = extractelement <1 x float> %76, i32 0
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %81 = and i32 %20, 55
  %82 = shl i32 %81, 4
  %83 = and i32 %20, 8
  %84 = icmp eq i32 %83, 0
  %85 = select i1 %84, i32 0, i32 160
  %86 = xor i32 %82, %85
  %87 = or disjoint i32 0, %86
  %88 = xor i32 0, %87
  %89 = xor i32 %88, 0
  %90 = xor i32 %89, 0
  %91 = add i32 %90, 0
  %92 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %91
  %93 = insertelement <4 x float> undef, float %77, i32 0
  %94 = insertelement <4 x float> %93, float %78, i32 1
  %95 = insertelement <4 x float> %94, float %79, i32 2
  %96 = insertelement <4 x float> %95, float %80, i32 3
  %97 = extractelement <4 x float> %96, i32 0
  %98 = extractelement <4 x float> %96, i32 1
  %99 = extractelement <4 x float> %96, i32 2
  %100 = extractelement <4 x float> %96, i32 3
  %101 = bitcast float %97 to i32
  %102 = bitcast float %98 to i32
  %103 = bitcast float %99 to i32
  %104 = bitcast float %100 to i32
  %105 = insertelement <4 x i32> undef, i32 %101, i32 0
  %106 = insertelement <4 x i32> %105, i32 %102, i32 1
  %107 = insertelement <4 x i32> %106, i32 %103, i32 2
  %108 = insertelement <4 x i32> %107, i32 %104, i32 3
  store <4 x i32> %108, ptr addrspace(3) %92, align 16
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %109 = and i32 %20, 28
  %110 = lshr i32 %109, 0
  %111 = and i32 %20, 1
  %112 = shl i32 %111, 6
  %113 = and i32 %20, 2
  %114 = icmp eq i32 %113, 0
  %115 = select i1 %114, i32 0, i32 160
  %116 = or disjoint i32 %112, %115
  %117 = or disjoint i32 %116, %110
  %118 = xor i32 0, %117
  %119 = xor i32 %118, 0
  %120 = xor i32 %119, 0
  %121 = add i32 %120, 0
  %122 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %121
  %123 = load i32, ptr addrspace(3) %122, align 4
  %124 = insertelement <1 x i32> undef, i32 %123, i32 0
  %125 = extractelement <1 x i32> %124, i32 0
  %126 = bitcast i32 %125 to float
  %127 = insertelement <1 x float> undef, float %126, i32 0
  %128 = extractelement <1 x float> %127, i32 0
  %129 = add i32 %120, 256
  %130 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %129
  %131 = load i32, ptr addrspace(3) %130, align 4
  %132 = insertelement <1 x i32> undef, i32 %131, i32 0
  %133 = extractelement <1 x i32> %132, i32 0
  %134 = bitcast i32 %133 to float
  %135 = insertelement <1 x float> undef, float %134, i32 0
  %136 = extractelement <1 x float> %135, i32 0
  %137 = add i32 %120, 512
  %138 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %137
  %139 = load i32, ptr addrspace(3) %138, align 4
  %140 = insertelement <1 x i32> undef, i32 %139, i32 0
  %141 = extractelement <1 x i32> %140, i32 0
  %142 = bitcast i32 %141 to float
  %143 = insertelement <1 x float> undef, float %142, i32 0
  %144 = extractelement <1 x float> %143, i32 0
  %145 = add i32 %120, 768
  %146 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %145
  %147 = load i32, ptr addrspace(3) %146, align 4
  %148 = insertelement <1 x i32> undef, i32 %147, i32 0
  %149 = extractelement <1 x i32> %148, i32 0
  %150 = bitcast i32 %149 to float
  %151 = insertelement <1 x float> undef, float %150, i32 0
  %152 = extractelement <1 x float> %151, i32 0
  %153 = xor i32 %119, 32
  %154 = add i32 %153, 0
  %155 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %154
  %156 = load i32, ptr addrspace(3) %155, align 4
  %157 = insertelement <1 x i32> undef, i32 %156, i32 0
  %158 = extractelement <1 x i32> %157, i32 0
  %159 = bitcast i32 %158 to float
  %160 = insertelement <1 x float> undef, float %159, i32 0
  %161 = extractelement <1 x float> %160, i32 0
  %162 = add i32 %153, 256
  %163 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %162
  %164 = load i32, ptr addrspace(3) %163, align 4
  %165 = insertelement <1 x i32> undef, i32 %164, i32 0
  %166 = extractelement <1 x i32> %165, i32 0
  %167 = bitcast i32 %166 to float
  %168 = insertelement <1 x float> undef, float %167, i32 0
  %169 = extractelement <1 x float> %168, i32 0
  %170 = add i32 %153, 512
  %171 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %170
  %172 = load i32, ptr addrspace(3) %171, align 4
  %173 = insertelement <1 x i32> undef, i32 %172, i32 0
  %174 = extractelement <1 x i32> %173, i32 0
  %175 = bitcast i32 %174 to float
  %176 = insertelement <1 x float> undef, float %175, i32 0
  %177 = extractelement <1 x float> %176, i32 0
  %178 = add i32 %153, 768
  %179 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %178
  %180 = load i32, ptr addrspace(3) %179, align 4
  %181 = insertelement <1 x i32> undef, i32 %180, i32 0
  %182 = extractelement <1 x i32> %181, i32 0
  %183 = bitcast i32 %182 to float
  %184 = insertelement <1 x float> undef, float %183, i32 0
  %185 = extractelement <1 x float> %184, i32 0
  %186 = add i64 %55, %63
  %187 = add i64 %56, %186
  %188 = getelementptr float, ptr addrspace(1) %1, i64 %187
  %189 = getelementptr float, ptr addrspace(1) %188, i64 %54
  %190 = call { i32, i32 } asm sideeffect "mov.u32 $0, 0x0; mov.u32 $1, 0x0; ld.global.v2.b32 { $0, $1 }, [ $2 + 0 ];", "=r,=r,l"(ptr addrspace(1) %189)
  %191 = extractvalue { i32, i32 } %190, 0
  %192 = bitcast i32 %191 to <1 x float>
  %193 = extractvalue { i32, i32 } %190, 1
  %194 = bitcast i32 %193 to <1 x float>
  %195 = extractelement <1 x float> %192, i32 0
  %196 = extractelement <1 x float> %194, i32 0
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %197 = and i32 %20, 63
  %198 = shl i32 %197, 3
  %199 = and i32 %20, 48
  %200 = lshr i32 %199, 0
  %201 = xor i32 %198, %200
  %202 = or disjoint i32 0, %201
  %203 = xor i32 0, %202
  %204 = xor i32 %203, 0
  %205 = xor i32 %204, 0
  %206 = add i32 %205, 0
  %207 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %206
  %208 = insertelement <2 x float> undef, float %195, i32 0
  %209 = insertelement <2 x float> %208, float %196, i32 1
  %210 = extractelement <2 x float> %209, i32 0
  %211 = extractelement <2 x float> %209, i32 1
  %212 = bitcast float %210 to i32
  %213 = bitcast float %211 to i32
  %214 = insertelement <2 x i32> undef, i32 %212, i32 0
  %215 = insertelement <2 x i32> %214, i32 %213, i32 1
  store <2 x i32> %215, ptr addrspace(3) %207, align 8
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %216 = shl i32 %27, 6
  %217 = and i32 %20, 6
  %218 = shl i32 %217, 3
  %219 = and i32 %20, 24
  %220 = shl i32 %219, 1
  %221 = xor i32 %218, %220
  %222 = or disjoint i32 %216, %221
  %223 = xor i32 0, %222
  %224 = xor i32 %223, 0
  %225 = xor i32 %224, 0
  %226 = add i32 %225, 0
  %227 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %226
  %228 = call { i32, i32, i32, i32 } @llvm.nvvm.ldmatrix.sync.aligned.m8n8.x4.b16.p3(ptr addrspace(3) %227)
  %229 = extractvalue { i32, i32, i32, i32 } %228, 0
  %230 = bitcast i32 %229 to <1 x float>
  %231 = extractelement <1 x float> %230, i32 0
  %232 = extractvalue { i32, i32, i32, i32 } %228, 1
  %233 = bitcast i32 %232 to <1 x float>
  %234 = extractelement <1 x float> %233, i32 0
  %235 = extractvalue { i32, i32, i32, i32 } %228, 2
  %236 = bitcast i32 %235 to <1 x float>
  %237 = extractelement <1 x float> %236, i32 0
  %238 = extractvalue { i32, i32, i32, i32 } %228, 3
  %239 = bitcast i32 %238 to <1 x float>
  %240 = extractelement <1 x float> %239, i32 0
  %241 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %128)
  %242 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %161)
  %243 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %136)
  %244 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %169)
  %245 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %144)
  %246 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %177)
  %247 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %152)
  %248 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %185)
  %249 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %231)
  %250 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %234)
  %251 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %237)
  %252 = call float asm "cvt.rna.tf32.f32 $0, $1;", "=r,r"(float %240)
  %253 = insertelement <1 x float> undef, float %241, i32 0
  %254 = bitcast <1 x float> %253 to i32
  %255 = insertelement <1 x float> undef, float %242, i32 0
  %256 = bitcast <1 x float> %255 to i32
  %257 = insertelement <1 x float> undef, float %243, i32 0
  %258 = bitcast <1 x float> %257 to i32
  %259 = insertelement <1 x float> undef, float %244, i32 0
  %260 = bitcast <1 x float> %259 to i32
  %261 = insertelement <1 x float> undef, float %245, i32 0
  %262 = bitcast <1 x float> %261 to i32
  %263 = insertelement <1 x float> undef, float %246, i32 0
  %264 = bitcast <1 x float> %263 to i32
  %265 = insertelement <1 x float> undef, float %247, i32 0
  %266 = bitcast <1 x float> %265 to i32
  %267 = insertelement <1 x float> undef, float %248, i32 0
  %268 = bitcast <1 x float> %267 to i32
  %269 = insertelement <1 x float> undef, float %249, i32 0
  %270 = bitcast <1 x float> %269 to i32
  %271 = insertelement <1 x float> undef, float %250, i32 0
  %272 = bitcast <1 x float> %271 to i32
  %273 = insertelement <1 x float> undef, float %251, i32 0
  %274 = bitcast <1 x float> %273 to i32
  %275 = insertelement <1 x float> undef, float %252, i32 0
  %276 = bitcast <1 x float> %275 to i32
  %277 = extractvalue { float, float, float, float } %59, 0
  %278 = extractvalue { float, float, float, float } %59, 1
  %279 = extractvalue { float, float, float, float } %59, 2
  %280 = extractvalue { float, float, float, float } %59, 3
  %281 = call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %277, float %278, float %279, float %280, i32 %254, i32 %256, i32 %258, i32 %260, i32 %270, i32 %272)
  %282 = extractvalue { float, float, float, float } %281, 0
  %283 = extractvalue { float, float, float, float } %281, 1
  %284 = extractvalue { float, float, float, float } %281, 2
  %285 = extractvalue { float, float, float, float } %281, 3
  %286 = call { float, float, float, float } asm sideeffect "mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32 { $0, $1, $2, $3 }, { $8, $9, $10, $11 }, { $12, $13 }, { $4, $5, $6, $7 };", "=f,=f,=f,=f,0,1,2,3,r,r,r,r,r,r"(float %282, float %283, float %284, float %285, i32 %262, i32 %264, i32 %266, i32 %268, i32 %274, i32 %276)
  %287 = extractvalue { float, float, float, float } %286, 0
  %288 = extractvalue { float, float, float, float } %286, 1
  %289 = extractvalue { float, float, float, float } %286, 2
  %290 = extractvalue { float, float, float, float } %286, 3
  %291 = insertvalue { float, float, float, float } undef, float %287, 0
  %292 = insertvalue { float, float, float, float } %291, float %288, 1
  %293 = insertvalue { float, float, float, float } %292, float %289, 2
  %294 = insertvalue { float, float, float, float } %293, float %290, 3
  %295 = add i32 %58, 1
  br label %57

296:                                              ; preds = %57
  %297 = mul i64 %8, 4096
  %298 = add i64 %56, %297
  %299 = add i64 %10, %298
  %300 = getelementptr float, ptr addrspace(1) %3, i64 %299
  %301 = getelementptr float, ptr addrspace(1) %300, i64 %54
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %302 = extractvalue { float, float, float, float } %59, 0
  %303 = extractvalue { float, float, float, float } %59, 1
  %304 = extractvalue { float, float, float, float } %59, 2
  %305 = extractvalue { float, float, float, float } %59, 3
  %306 = shl i32 %21, 3
  %307 = and i32 %20, 24
  %308 = shl i32 %307, 2
  %309 = and i32 %20, 4
  %310 = icmp eq i32 %309, 0
  %311 = select i1 %310, i32 0, i32 260
  %312 = xor i32 %306, %308
  %313 = or disjoint i32 %311, %312
  %314 = xor i32 0, %313
  %315 = xor i32 %314, 0
  %316 = xor i32 %315, 0
  %317 = add i32 %316, 0
  %318 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %317
  %319 = insertelement <1 x float> undef, float %302, i32 0
  %320 = extractelement <1 x float> %319, i32 0
  %321 = bitcast float %320 to i32
  %322 = insertelement <1 x i32> undef, i32 %321, i32 0
  store <1 x i32> %322, ptr addrspace(3) %318, align 4
  %323 = xor i32 %315, 144
  %324 = add i32 %323, 0
  %325 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %324
  %326 = insertelement <1 x float> undef, float %303, i32 0
  %327 = extractelement <1 x float> %326, i32 0
  %328 = bitcast float %327 to i32
  %329 = insertelement <1 x i32> undef, i32 %328, i32 0
  store <1 x i32> %329, ptr addrspace(3) %325, align 4
  %330 = xor i32 %315, 4
  %331 = add i32 %330, 0
  %332 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %331
  %333 = insertelement <1 x float> undef, float %304, i32 0
  %334 = extractelement <1 x float> %333, i32 0
  %335 = bitcast float %334 to i32
  %336 = insertelement <1 x i32> undef, i32 %335, i32 0
  store <1 x i32> %336, ptr addrspace(3) %332, align 4
  %337 = xor i32 %315, 148
  %338 = add i32 %337, 0
  %339 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %338
  %340 = insertelement <1 x float> undef, float %305, i32 0
  %341 = extractelement <1 x float> %340, i32 0
  %342 = bitcast float %341 to i32
  %343 = insertelement <1 x i32> undef, i32 %342, i32 0
  store <1 x i32> %343, ptr addrspace(3) %339, align 4
  call void @llvm.nvvm.barrier.cta.sync.aligned.all(i32 0)
  %344 = shl i32 %21, 5
  %345 = and i32 %20, 48
  %346 = lshr i32 %345, 1
  %347 = and i32 %20, 8
  %348 = icmp eq i32 %347, 0
  %349 = select i1 %348, i32 0, i32 144
  %350 = xor i32 %344, %346
  %351 = xor i32 %350, %349
  %352 = or disjoint i32 %309, %351
  %353 = xor i32 0, %352
  %354 = xor i32 %353, 0
  %355 = xor i32 %354, 0
  %356 = add i32 %355, 0
  %357 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %356
  %358 = load i32, ptr addrspace(3) %357, align 4
  %359 = insertelement <1 x i32> undef, i32 %358, i32 0
  %360 = extractelement <1 x i32> %359, i32 0
  %361 = bitcast i32 %360 to float
  %362 = insertelement <1 x float> undef, float %361, i32 0
  %363 = extractelement <1 x float> %362, i32 0
  %364 = xor i32 %354, 260
  %365 = add i32 %364, 0
  %366 = getelementptr inbounds i8, ptr addrspace(3) @global_smem, i32 %365
  %367 = load i32, ptr addrspace(3) %366, align 4
  %368 = insertelement <1 x i32> undef, i32 %367, i32 0
  %369 = extractelement <1 x i32> %368, i32 0
  %370 = bitcast i32 %369 to float
  %371 = insertelement <1 x float> undef, float %370, i32 0
  %372 = extractelement <1 x float> %371, i32 0
  %373 = insertelement <1 x float> undef, float %363, i32 0
  %374 = bitcast <1 x float> %373 to i32
  %375 = insertelement <1 x float> undef, float %372, i32 0
  %376 = bitcast <1 x float> %375 to i32
  call void asm sideeffect "st.global.v2.b32 [ $2 + 0 ], { $0, $1 };", "r,r,l"(i32 %374, i32 %376, ptr addrspace(1) %301)
  ret void
}

attributes #0 = { nounwind }
attributes #1 = { nocallback nofree nosync nounwind speculatable willreturn memory(none) }
attributes #2 = { convergent nocallback nounwind }
attributes #3 = { convergent nocallback nounwind memory(argmem: read) }
attributes #4 = { "nvvm.reqntid"="64,1,1" }

!llvm.module.flags = !{!0}
!nvvm.annotations = !{}

!0 = !{i32 2, !"Debug Info Version", i32 3}

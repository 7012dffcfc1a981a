// memref.atomic_rmw in tile kernels: every lowering keeps the update where the kernel's code goes
// (upstream turns it into the chip's atomic), with the fragment it reads in registers; an argument
// the kernel updates is one the launch manifest marks written.
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu | FileCheck %s --check-prefix=NV
// RUN: tile-opt %s -split-input-file -convert-tile-to-nvgpu 2>&1 >/dev/null | FileCheck %s --check-prefix=QUIET --allow-empty
// RUN: tile-opt %s -split-input-file -convert-tile-to-amdgpu | FileCheck %s --check-prefix=AMD
// RUN: tile-opt %s -split-input-file -convert-tile-to-cpu | FileCheck %s --check-prefix=CPU
// RUN: rm -rf %t && tile-compile %s --target sm_90a -o %t && FileCheck %s --check-prefix=PTX < %t/row_sums_0_kernel.ptx
// RUN: FileCheck %s --check-prefix=JSON < %t/row_sums_0_kernel.json

// Each block adds its 64-column slice's row sums into S.
// QUIET-NOT: warning
// NV-LABEL: gpu.func @row_sums_0_kernel
// NV: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<64xf32>) -> f32
// NV: gpu.return
// AMD-LABEL: gpu.func @row_sums_0_kernel
// AMD: memref.atomic_rmw addf
// CPU-LABEL: func.func @row_sums
// CPU: scf.for
// CPU: memref.atomic_rmw addf
// PTX: atom.global.add.f32
// JSON: "host_argument": 1, "shape": [64], "element": "f32", "written": true
func.func @row_sums(%A: memref<64x256xf32>, %S: memref<64xf32>) {
  %c4 = arith.constant 4 : index
  tile.kernel grid(%c4) threads(64) (%bx) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    %k0 = arith.muli %bx, %c64 : index
    %a = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %A[%c0, %k0], %a : memref<64x256xf32>, memref<64x64xf32, #tile.fragment>
    tile.reduce <sum> %a, %s dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    tile.parallel (%i) in (64) {
      %v = memref.load %s[%i] : memref<64xf32, #tile.fragment>
      %old = memref.atomic_rmw addf %v, %S[%i] : (f32, memref<64xf32>) -> f32
    }
  }
  return
}

// -----

// An atomic copy of row sums that several threads hold each (the slice of the mma.sync
// accumulator's rows over the 4 threads of a quad): one replica, the thread whose replica bits are
// clear, updates each element, element by element. The CPU reference updates in its copy loop.
// NV-LABEL: gpu.func @replicated_0_kernel
// NV: %[[BITS:.*]] = arith.andi %thread_id_x{{.*}}, %c3{{.*}} : index
// NV: %[[FIRST:.*]] = arith.cmpi eq, %[[BITS]], %c0{{.*}} : index
// NV: scf.if %[[FIRST]] {
// NV: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<64xf32>) -> f32
// NV: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<64xf32>) -> f32
// NV: gpu.return
// CPU-LABEL: func.func @replicated
// CPU: memref.atomic_rmw addf %{{.*}}, %{{.*}}[%{{.*}}] : (f32, memref<64xf32>) -> f32
func.func @replicated(%A: memref<64x32xf16>, %B: memref<32x64xf16>, %S: memref<64xf32>) {
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c1) threads(128) (%bx) {
    %As = tile.alloc_shared : memref<64x32xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<32x64xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %s = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x64xf32, #tile.fragment>
    tile.copy %A, %As : memref<64x32xf16>, memref<64x32xf16, #gpu.address_space<workgroup>>
    tile.copy %B, %Bs : memref<32x64xf16>, memref<32x64xf16, #gpu.address_space<workgroup>>
    tile.gemm %As, %Bs, %Cf : memref<64x32xf16, #gpu.address_space<workgroup>>, memref<32x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.reduce <sum> %Cf, %s dim(1) : memref<64x64xf32, #tile.fragment>, memref<64xf32, #tile.fragment>
    %c0 = arith.constant 0 : index
    tile.copy %s, %S[%c0] atomic <sum> : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// -----

// Split K: each block adds its product into C and keeps the larger of it and M. On sm_90a the sum
// of a wgmma accumulator into f32 goes through the staging area as TMA reductions (the copy
// engine adds each box into the tensor), the maximum element by element.
// NV-LABEL: gpu.func @split_k_sum_0_kernel
// NV: nvvm.cp.async.bulk.wait_group 0 {read}
// NV: nvvm.cp.async.bulk.tensor.reduce %{{.*}}, %{{.*}}, box[%{{.*}}, %{{.*}}] {redKind = #nvvm.tma_redux_kind<add>}
// NV: nvvm.cp.async.bulk.commit.group
// NV: memref.atomic_rmw maximumf %{{.*}}, %{{.*}}[%{{.*}}, %{{.*}}] : (f32, memref<64x64xf32>) -> f32
// NV-NOT: memref.atomic_rmw addf
// AMD-LABEL: gpu.func @split_k_sum_0_kernel
// AMD: memref.atomic_rmw addf
// AMD: memref.atomic_rmw maximumf
// CPU-LABEL: func.func @split_k_sum
// CPU: memref.atomic_rmw addf
func.func @split_k_sum(%A: memref<64x256xf16>, %B: memref<256x64xf16>, %C: memref<64x64xf32>, %M: memref<64x64xf32>) {
  %c0 = arith.constant 0 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %zero = arith.constant 0.0 : f32
  tile.kernel grid(%c4) threads(128) (%bk) {
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Acc = tile.alloc_fragment : memref<64x64xf32, #tile.fragment>
    %k0 = arith.muli %bk, %c64 : index
    tile.copy %A[%c0, %k0], %As : memref<64x256xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.copy %B[%k0, %c0], %Bs : memref<256x64xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
    tile.fill %Acc, %zero : memref<64x64xf32, #tile.fragment>
    tile.gemm %As, %Bs, %Acc : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x64xf32, #tile.fragment>
    tile.copy %Acc, %C[%c0, %c0] atomic <sum> : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
    tile.copy %Acc, %M[%c0, %c0] atomic <max> : memref<64x64xf32, #tile.fragment>, memref<64x64xf32>
  }
  return
}

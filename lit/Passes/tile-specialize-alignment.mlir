// tile-specialize-alignment: on targets that access global tensors in vectors, a memory-bound
// kernel (op by op, no tile.gemm) whose fragments are copied to or from the host function's
// tensors gets a twin launched where all of them start on 16-byte boundaries (an scf.if on their
// addresses, which the launcher evaluates from the manifest's `when`); the original kernel runs
// elsewhere.
// RUN: tile-opt %s -split-input-file -tile-infer-layouts -tile-specialize-alignment 2>&1 | FileCheck %s

// Both tensors the fragment is copied from and to are in the condition; the twin comes first.
// CHECK-LABEL: func.func @rows
// CHECK: %[[C16:.*]] = arith.constant 16 : index
// CHECK: %[[X:.*]] = memref.extract_aligned_pointer_as_index %arg0
// CHECK: %[[XR:.*]] = arith.remui %[[X]], %[[C16]]
// CHECK: %[[Y:.*]] = memref.extract_aligned_pointer_as_index %arg1
// CHECK: %[[YR:.*]] = arith.remui %[[Y]], %[[C16]]
// CHECK: %[[R:.*]] = arith.ori %[[XR]], %[[YR]]
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: %[[ALIGNED:.*]] = arith.cmpi eq, %[[R]], %[[C0]]
// CHECK: scf.if %[[ALIGNED]] {
// CHECK-NEXT: tile.kernel
// CHECK: } else {
// CHECK-NEXT: tile.kernel
// CHECK-NOT: tile.kernel
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @rows(%X: memref<256x128xf16>, %Y: memref<256x128xf16>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    tile.kernel grid(%c64) threads(128) (%b) {
      %row = arith.muli %b, %c64 : index
      %S = tile.alloc_fragment : memref<4x128xf32, #tile.fragment>
      tile.copy %X[%row, %c0], %S : memref<256x128xf16>, memref<4x128xf32, #tile.fragment>
      tile.copy %S, %Y[%row, %c0] : memref<4x128xf32, #tile.fragment>, memref<256x128xf16>
    }
    return
  }
}

// -----

// A kernel the program already launches under a condition proving the alignment keeps its
// place; so does one on a target without vector accesses (SPIR-V).
// CHECK-LABEL: func.func @proven
// CHECK: scf.if
// CHECK-NEXT: tile.kernel
// CHECK-NOT: scf.if
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @proven(%X: memref<256x128xf32>) {
    %c0 = arith.constant 0 : index
    %c15 = arith.constant 15 : index
    %c64 = arith.constant 64 : index
    %x = memref.extract_aligned_pointer_as_index %X : memref<256x128xf32> -> index
    %low = arith.andi %x, %c15 : index
    %aligned = arith.cmpi eq, %low, %c0 : index
    scf.if %aligned {
      tile.kernel grid(%c64) threads(128) (%b) {
        %S = tile.alloc_fragment : memref<4x128xf32, #tile.fragment>
        tile.copy %X[%b, %c0], %S : memref<256x128xf32>, memref<4x128xf32, #tile.fragment>
        tile.copy %S, %X[%b, %c0] : memref<4x128xf32, #tile.fragment>, memref<256x128xf32>
      }
    }
    return
  }
}

// -----

// CHECK-LABEL: func.func @vulkan
// CHECK-NOT: scf.if
// CHECK: return
module attributes {tile.target = "spirv"} {
  func.func @vulkan(%X: memref<256x128xf32>) {
    %c0 = arith.constant 0 : index
    %c64 = arith.constant 64 : index
    tile.kernel grid(%c64) threads(128) (%b) {
      %S = tile.alloc_fragment : memref<4x128xf32, #tile.fragment>
      tile.copy %X[%b, %c0], %S : memref<256x128xf32>, memref<4x128xf32, #tile.fragment>
      tile.copy %S, %X[%b, %c0] : memref<4x128xf32, #tile.fragment>, memref<256x128xf32>
    }
    return
  }
}

// -----

// Kernels with a gemm (their tiles move by TMA, cp.async or whole-line copies) and copies of
// shared tiles alone are left as they are.
// CHECK-LABEL: func.func @gemm
// CHECK-NOT: scf.if
// CHECK: return
module attributes {tile.target = "sm_90a"} {
  func.func @gemm(%A: memref<128x64xf16>, %B: memref<64x128xf16>, %C: memref<128x128xf32>) {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    tile.kernel grid(%c1) threads(128) (%b) {
      %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
      %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
      %acc = tile.alloc_fragment : memref<128x128xf32, #tile.fragment>
      %zero = arith.constant 0.0 : f32
      tile.fill %acc, %zero : memref<128x128xf32, #tile.fragment>
      tile.copy %A[%c0, %c0], %As : memref<128x64xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%c0, %c0], %Bs : memref<64x128xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %acc : memref<128x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<128x128xf32, #tile.fragment>
      tile.copy %acc, %C[%c0, %c0] : memref<128x128xf32, #tile.fragment>, memref<128x128xf32>
    }
    return
  }
}

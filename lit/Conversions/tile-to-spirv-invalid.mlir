// convert-tile-to-spirv on programs the plain strategy cannot run: one located error each.
// RUN: tile-opt %s -split-input-file -verify-diagnostics -convert-tile-to-spirv

// 64 KiB of shared tiles does not fit in lavapipe's workgroup memory.
func.func @too_much_shared_memory(%n: index) {
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'tile.kernel' op needs 65536 bytes of workgroup memory for its tiles (shared tiles, and fragments the threads share, live there in the plain SPIR-V strategy), but the SPIR-V lowering allows 32768 (lavapipe's limit; a module for a device with more sets tile.shared_memory_bytes); use smaller tiles (target spirv)}}
  tile.kernel grid(%c1) threads(128) (%bx) {
    %S = tile.alloc_shared : memref<128x128xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// A tensor of dynamic shape is bound as a row-major runtime array: one with other strides is not.
func.func @dynamic_strided(%X: memref<?x?xf32, strided<[?, 1], offset: ?>>, %Y: memref<8x8xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<8x8xf32, #tile.fragment>
    tile.parallel (%i, %j) in (8, 8) {
      // expected-error @+1 {{'memref.load' op reads the tensor memref<?x?xf32, strided<[?, 1], offset: ?>>, whose shape is dynamic and whose layout is not row-major; spirv binds a tensor of dynamic shape as a row-major runtime array (give it the identity layout, or static sizes)}}
      %v = memref.load %X[%i, %j] : memref<?x?xf32, strided<[?, 1], offset: ?>>
      memref.store %v, %F[%i, %j] : memref<8x8xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%c0, %c0] : memref<8x8xf32, #tile.fragment>, memref<8x8xf32>
  }
  return
}

// -----

// A ring read slot by slot (hand-written, or expanded for another chip): SPIR-V has no views of
// workgroup memory.
func.func @ring(%K: memref<256x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %ring = tile.alloc_shared : memref<2x32x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.slot' op reads a ring of shared tiles, which the SPIR-V lowering cannot view slot by slot; tile-plan-pipelines keeps SPIR-V loops synchronous, so leave tile.pipelined loops to it (target spirv)}}
    %s = tile.slot %ring[%c1] : memref<2x32x64xf32, #gpu.address_space<workgroup>> -> memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.copy %K[%c0, %c0], %s : memref<256x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
  }
  return
}

// -----

// SPIR-V indices have 32 bits.
func.func @wide_index(%X: memref<4x64xf32>) {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %far = arith.constant 4294967296 : index
  tile.kernel grid(%c1) threads(32) (%bx) {
    %F = tile.alloc_fragment : memref<4x32xf32, #tile.fragment>
    // expected-error @+1 {{'tile.copy' op uses the index 4294967296, which does not fit the 32-bit indices of spirv}}
    tile.copy %X[%c0, %far], %F : memref<4x64xf32>, memref<4x32xf32, #tile.fragment>
  }
  return
}

// -----

// A global tensor past 32-bit indices: a located error, not "failed to legalize operation
// 'arith.constant'" at an unknown location (fuzzer, seed 7171).
func.func @huge_tensor(%A: memref<4294967296x64xf32>, %O: memref<32x64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %s = tile.alloc_shared : memref<32x64xf32, #gpu.address_space<workgroup>>
    // expected-error @+1 {{'tile.copy' op uses memref<4294967296x64xf32> (274877906944 elements), more than the SPIR-V lowering's 32-bit indices address (2^31 - 1 elements) (target spirv)}}
    tile.copy %A[%c0, %c0], %s : memref<4294967296x64xf32>, memref<32x64xf32, #gpu.address_space<workgroup>>
    tile.copy %s, %O : memref<32x64xf32, #gpu.address_space<workgroup>>, memref<32x64xf32>
  }
  return
}

// -----

// SPIR-V's atomics update 32-bit integers: a float add is refused, naming the targets that make it.
func.func @atomic_float_add(%X: memref<64xf32>, %S: memref<1xf32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    tile.parallel (%i) in (64) {
      %c0 = arith.constant 0 : index
      %v = memref.load %X[%i] : memref<64xf32>
      // expected-error @+1 {{'memref.atomic_rmw' op makes an atomic addf of f32, which spirv cannot: its atomics are addi, andi, ori, maxs, maxu, mins and minu on i32; sm_90a, sm_80, gfx942 and the CPU reference make it}}
      %old = memref.atomic_rmw addf %v, %S[%c0] : (f32, memref<1xf32>) -> f32
    }
  }
  return
}

// -----

// An exclusive or: SPIR-V has no atomic for it.
func.func @atomic_xor(%X: memref<64xi32>, %S: memref<1xi32>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    tile.parallel (%i) in (64) {
      %c0 = arith.constant 0 : index
      %v = memref.load %X[%i] : memref<64xi32>
      // expected-error @+1 {{'memref.atomic_rmw' op makes an atomic xori of i32, which spirv cannot: its atomics are addi, andi, ori, maxs, maxu, mins and minu on i32; sm_90a, sm_80, gfx942 and the CPU reference make it}}
      %old = memref.atomic_rmw xori %v, %S[%c0] : (i32, memref<1xi32>) -> i32
    }
  }
  return
}

// -----

// Vulkan kernels cannot print (tile.print): the error says where printing works.
func.func @prints(%n: index) {
  tile.kernel grid(%n) threads(64) (%b) {
    // expected-error @+1 {{'tile.print' op cannot print in a spirv kernel: Vulkan prints through the NonSemantic.DebugPrintf instruction set, which MLIR's SPIR-V dialect cannot express; print on sm_90a or sm_80, or run the program with tile-run (the interpreter or the CPU reference print too)}}
    tile.print "block", %b : index
  }
  return
}

// -----

// f64 arithmetic: the SPIR-V lowering enables no Float64 capability (many Vulkan devices lack it);
// the error is at the op where f64 values start.
func.func @f64_math(%X: memref<64xf32>, %Y: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %F : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.parallel (%i) in (64) {
      %v = memref.load %F[%i] : memref<64xf32, #tile.fragment>
      // expected-error @+1 {{'arith.extf' op makes an f64 value, which spirv kernels cannot compute on (Vulkan devices need not have Float64, and the SPIR-V lowering enables none); compute on f32, or compile for sm_90a, sm_80 or gfx942}}
      %w = arith.extf %v : f32 to f64
      %e = math.exp %w : f64
      %r = arith.truncf %e : f64 to f32
      memref.store %r, %F[%i] : memref<64xf32, #tile.fragment>
    }
    tile.copy %F, %Y[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

// -----

// A tensor of f64 read in a kernel: the error is at the load, where its f64 values start (the
// lowering failed on the kernel's signature before, naming no op).
func.func @f64_tensor(%X: memref<64xf64>, %Y: memref<64xf64>) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%b) {
    tile.parallel (%i) in (64) {
      // expected-error @+1 {{'memref.load' op makes an f64 value, which spirv kernels cannot compute on (Vulkan devices need not have Float64, and the SPIR-V lowering enables none); compute on f32, or compile for sm_90a, sm_80 or gfx942}}
      %x = memref.load %X[%i] : memref<64xf64>
      %e = arith.addf %x, %x : f64
      memref.store %e, %Y[%i] : memref<64xf64>
    }
  }
  return
}

// -----

// Host integers reach a SPIR-V kernel as the 32-bit contents of a binding each.
func.func @wide_host_integer(%X: memref<64xf32>, %n: i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %F = tile.alloc_fragment : memref<64xf32, #tile.fragment>
    tile.copy %X[%c0], %F : memref<64xf32>, memref<64xf32, #tile.fragment>
    tile.parallel (%i) in (64) {
      %v = memref.load %F[%i] : memref<64xf32, #tile.fragment>
      // expected-error @+1 {{'arith.sitofp' op reads a host integer of type i64 inside the kernel; spirv passes host integers as 32-bit values (index or i32): convert it on the host (arith.trunci, arith.index_cast)}}
      %f = arith.sitofp %n : i64 to f32
      %r = arith.mulf %v, %f : f32
      memref.store %r, %F[%i] : memref<64xf32, #tile.fragment>
    }
    tile.copy %F, %X[%c0] : memref<64xf32, #tile.fragment>, memref<64xf32>
  }
  return
}

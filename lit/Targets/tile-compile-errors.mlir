// tile-compile rejects what it cannot do with a message and a non-zero exit.
// RUN: not tile-compile %s --target sm_75 -o %t 2>&1 | FileCheck %s --check-prefix=CHIP
// RUN: not tile-compile %s --target sm_90a -o %t 2>&1 | FileCheck %s --check-prefix=LOWER
// RUN: not tile-compile %s 2>&1 | FileCheck %s --check-prefix=USAGE
// RUN: not tile-compile %t.missing.mlir --target sm_90a -o %t 2>&1 | FileCheck %s --check-prefix=MISSING

// CHIP: error: unknown target sm_75: expected sm_90a, sm_80, gfx942, spirv, spirv-coopmat (sm_90a: TMA, mbarrier, wgmma; sm_80: mma.sync, no TMA; gfx942: LDS, mfma; spirv: loops shared by a workgroup's threads; spirv-coopmat: KHR cooperative matrices)
// LOWER: tile-compile-errors.mlir:[[# @LINE + 6]]:3: error: 'tile.kernel' op needs 262144 bytes of workgroup memory for its tiles (shared tiles, and fragments the threads share, live there in the generic strategy), but sm_90a allows 232448 (shared memory of one block); use smaller tiles (target sm_90a)
// LOWER: error: {{.*}}tile-compile-errors.mlir: lowering for sm_90a failed
// USAGE: --target is required
// MISSING: error: {{.*}}missing.mlir: cannot be compiled
func.func @small(%n: index) {
  %c1 = arith.constant 1 : index
  tile.kernel grid(%c1) threads(64) (%bx) {
    %S = tile.alloc_shared : memref<256x256xf32, #gpu.address_space<workgroup>>
  }
  return
}

//! `tile-gpu-module-to-isa`: upstream's `gpu-module-to-binary{format=isa}` (each `gpu.module` becomes
//! a `gpu.binary` holding its targets' assembly), with one change: AMDGCN modules are compiled on a
//! target machine that each thread makes once and keeps. Upstream makes a new LLVM TargetMachine
//! for every module, and for AMDGCN a new machine builds its subtarget and its register-alias
//! cache again: a fixed cost per kernel, paid 200 times in a module of 200 kernels. The
//! serialization itself is upstream's ROCDL serializer (`dialect/shim/TileSerialize.cpp`); other
//! targets go through their own `gpu-module-to-binary` interface unchanged.

/// The pass's flag.
pub const ARGUMENT: &str = "tile-gpu-module-to-isa";

crate::rust_pass! {
    /// Creates `tile-gpu-module-to-isa` (on any op whose regions hold `gpu.module`s directly).
    pub fn create_gpu_module_to_isa_pass() {
        argument: ARGUMENT,
        name: "TileGpuModuleToIsa",
        description: "Serialize each gpu.module into a gpu.binary of its targets' assembly (gpu-module-to-binary{format=isa}), on one AMDGCN target machine per thread",
        anchor: "",
        dialects: [],
        run: |op| if tile_dialect::driver::serialize_gpu_modules_to_assembly(op) { Ok(()) } else { Err(String::new()) },
    }
}

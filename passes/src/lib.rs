//! Passes over tile IR, written in Rust.
//!
//! | flag | module | what it does |
//! |------|--------|--------------|
//! | `tile-canonicalize` | [`canonicalize`] | applies the tile ops' canonicalization patterns and folds |
//! | `tile-math-to-nvptx` | [`math_to_nvptx`] | `math` ops as NVPTX instructions and polynomials (no libdevice) |
//! | `tile-math-to-rocdl` | [`math_to_rocdl`] | `math` ops as AMDGCN instructions and polynomials (no `__ocml_*`) |
//! | `tile-math-to-spirv` | [`math_to_spirv`] | the `math` ops `convert-math-to-spirv` lacks, rewritten into ones it has |
//! | `tile-check-external-calls` | [`check_external_calls`] | an error at each call a GPU kernel could not resolve |
//! | `tile-gpu-module-to-isa` | [`gpu_module_to_isa`] | `gpu-module-to-binary{format=isa}`, on one AMDGCN target machine per thread |
//! | `tile-vector-to-scf` | [`vector_to_scf`] | `convert-vector-to-scf` where there are vector transfers, nothing elsewhere |
//!
//! [`register_all`] registers the dialect hooks and every pass in MLIR's global registry; `tile-opt`,
//! the `mlir-opt` plugin and the C API all call it.

#![deny(missing_docs)]

pub mod canonicalize;
pub mod check_external_calls;
pub mod gpu_module_to_isa;
pub mod guard;
pub mod llvm_stage;
pub mod math_rules;
pub mod math_to_nvptx;
pub mod math_to_rocdl;
pub mod math_to_spirv;
pub mod vector_to_scf;

pub use canonicalize::create_canonicalize_pass;

/// Registers every tile pass in MLIR's global pass registry (idempotent).
pub fn register_all() {
    tile_dialect::install_hooks();
    tile_dialect::register_pass(canonicalize::ARGUMENT, create_canonicalize_pass);
    tile_dialect::register_pass(math_to_nvptx::ARGUMENT, math_to_nvptx::create_math_to_nvptx_pass);
    tile_dialect::register_pass(math_to_rocdl::ARGUMENT, math_to_rocdl::create_math_to_rocdl_pass);
    tile_dialect::register_pass(math_to_spirv::ARGUMENT, math_to_spirv::create_math_to_spirv_pass);
    tile_dialect::register_pass(
        check_external_calls::ARGUMENT,
        check_external_calls::create_check_external_calls_pass,
    );
    tile_dialect::register_pass(
        gpu_module_to_isa::ARGUMENT,
        gpu_module_to_isa::create_gpu_module_to_isa_pass,
    );
    tile_dialect::register_pass(vector_to_scf::ARGUMENT, vector_to_scf::create_vector_to_scf_pass);
}

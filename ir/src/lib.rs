//! Typed builders and names of every op the compiler builds or reads, generated from ODS.
//!
//! Upstream dialects come from melior's generated modules (its `ods-dialects` feature); the ones melior
//! does not generate (`nvvm`, `nvgpu`, `rocdl`) and the `tile` dialect itself are generated here by
//! `melior_macro::dialect!` from the same `.td` files MLIR's C++ classes come from. Each op has a
//! constructor (`arith::addi(context, lhs, rhs, location)`), a builder for optional parts
//! (`nvvm::WgmmaMmaAsyncOperation::builder`) and its name (`tile::GemmOperation::name()`), so no op is
//! built or recognized by a name written by hand.

pub use melior::dialect::ods::{affine, amdgpu, arith, builtin, cf, func, gpu, index, llvm, math, memref, scf, vector};
use melior::ir::operation::OperationLike;

melior_macro::dialect! {
    name: "nvvm",
    files: ["mlir/Dialect/LLVMIR/NVVMOps.td"],
}

melior_macro::dialect! {
    name: "nvgpu",
    files: ["mlir/Dialect/NVGPU/IR/NVGPUOps.td"],
}

melior_macro::dialect! {
    name: "rocdl",
    files: ["mlir/Dialect/LLVMIR/ROCDLOps.td"],
}

melior_macro::dialect! {
    name: "tile",
    files: ["TileOps.td"],
    include_directory_env_vars: ["TILE_TD_DIR"],
}

/// Whether `op` is the op whose generated `name` function is given: `is(&op, tile::GemmOperation::name)`.
pub fn is<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: fn() -> &'static str) -> bool {
    // Compared as bytes, without validating the interned name as UTF-8: rules ask this of every op,
    // often several times.
    let expected = name().as_bytes();
    // SAFETY: an op's name is an identifier interned in its context, alive while the op is.
    let actual = unsafe {
        let name = mlir_sys::mlirIdentifierStr(mlir_sys::mlirOperationGetName(op.to_raw()));
        std::slice::from_raw_parts(name.data as *const u8, name.length)
    };
    actual == expected
}

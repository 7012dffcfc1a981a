//! The host side of every GPU lowering: the `func.func` that prepares a kernel's arguments and
//! launches it ([`launch`]), the host expressions a launcher recomputes the grid and sizes from
//! ([`values`]), and the symbols a lowered kernel defines ([`symbols`]); and what a launcher does not
//! run ([`launches_only`]).

pub mod launch;
pub mod symbols;
pub mod values;

use crate::target::Target;
use melior::ir::operation::OperationRef;

/// Says, at each op of the functions of `module` outside their kernels, what a launcher does not
/// carry out, and returns false when one of them was an error. The compiler returns each kernel's
/// code and launch manifest, and a launcher runs kernels, each with the grid and scalars its
/// manifest computes from the arguments (`tile-run --target vulkan` runs a function's kernels in
/// order): a launch under host control flow cannot be described (a launcher would run both kernels
/// of an `scf.if`, a loop's once), an error; other host work (memory the host allocates, reads or
/// writes) is not run, a warning. Integer arithmetic, constants, tensor sizes, calls and the
/// launches themselves are what manifests describe.
pub fn launches_only(module: OperationRef, target: &Target) -> bool {
    use melior::ir::operation::OperationLike;
    use melior::ir::{BlockLike, RegionLike};
    use tile_ir::{func, memref};
    let pipeline = format!("{}{{chip={}}}", target.pipeline.name(), target.name);
    let mut fine = true;
    for function in tile_dialect::ops::find_ops(module, func::FuncOperation::name()) {
        let Some(body) = function.region(0).ok().and_then(|region| region.first_block()) else {
            continue;
        };
        // The function's top-level ops: what is nested in one is said at it.
        for op in std::iter::successors(body.first_operation(), |op| op.next_in_block()) {
            let launch_value = op.region_count() == 0
                && (tile_ir::in_dialect(&op, melior::dialect::DialectHandle::arith())
                    || tile_ir::in_dialect(&op, tile_ir::index_dialect())
                    || tile_ir::is(&op, memref::DimOperation::name));
            // Another frontend's GPU code is `no_foreign_gpu_code`'s.
            let foreign = op
                .name()
                .as_string_ref()
                .as_str()
                .is_ok_and(|name| name.starts_with("gpu."));
            if launch_value
                || foreign
                || tile_ir::is(&op, func::ReturnOperation::name)
                || tile_ir::is(&op, func::CallOperation::name)
                || tile_ir::is(&op, tile_ir::tile::KernelOperation::name)
            {
                continue;
            }
            let launches = tile_dialect::ops::nested_ops(op)
                .iter()
                .any(|inner| tile_ir::is(inner, tile_ir::tile::KernelOperation::name));
            let name = tile_dialect::ops::op_name(&op);
            if launches {
                tile_dialect::diagnostics::emit_error(
                    op.location(),
                    &format!(
                        "'{name}' op launches tile kernels under host control flow, which a launch manifest cannot describe (a launcher runs kernels, each with the grid its manifest computes, and nothing around them); launch them from the function's top level and choose between them in the caller, or lower the module with the {pipeline} pipeline, whose host code keeps it"
                    ),
                );
                fine = false;
            } else {
                tile_dialect::diagnostics::emit_warning(
                    op.location(),
                    &format!(
                        "'{name}' op is host code, which a launcher does not run (the compiler returns the tile kernels' code and launch manifests only); do it in a tile.kernel or in the caller, or lower the module with the {pipeline} pipeline, whose host code keeps it"
                    ),
                );
            }
        }
    }
    fine
}

//! The host side of every GPU lowering: the `func.func` that prepares a kernel's arguments and
//! launches it ([`launch`]), the host expressions a launcher recomputes the grid and sizes from
//! ([`values`]), and the symbols a lowered kernel defines ([`symbols`]); and what a launcher does not
//! run ([`launches_only`]).

pub mod launch;
pub mod symbols;
pub mod values;

use crate::target::Target;
use melior::ir::operation::OperationRef;
use tile_dialect::positions::OperationAt;

/// Says, at each op of the functions of `module` outside their kernels, what a launcher does not
/// carry out, and returns false when one of them was an error. The compiler returns each kernel's
/// code and launch manifest, and a launcher runs kernels, each with the grid and scalars its
/// manifest computes from the arguments, where its condition holds (`tile-run --target vulkan`
/// runs a function's kernels in order). Manifests describe integer arithmetic, tensor sizes, calls,
/// launches (a `tile.matmul` is launches too: the target's decisions write its kernels), and `scf.if`s around launches whose conditions a launcher recomputes (each kernel's
/// `when`). A launch under other host control flow (a loop) cannot be described (a launcher would
/// run it once), an error; other host work (memory the host allocates, reads or writes) is not
/// run, a warning.
pub fn launches_only(module: OperationRef, target: &Target) -> bool {
    use tile_ir::func;
    let pipeline = format!("{}{{chip={}}}", target.pipeline.name(), target.name);
    let mut fine = true;
    for function in tile_dialect::ops::find_ops(module, func::FuncOperation::name()) {
        if let Some(body) = function.body() {
            fine &= launches_in(body, &pipeline);
        }
    }
    fine
}

/// [`launches_only`] for the ops of `block` (a function's body, or a region of an `scf.if` in it):
/// what is nested in an op that is no launch is said at that op.
fn launches_in(block: melior::ir::block::BlockRef, pipeline: &str) -> bool {
    use melior::ir::{BlockLike, RegionLike, operation::OperationLike};
    use tile_ir::{func, memref, scf};
    let mut fine = true;
    for op in std::iter::successors(block.first_operation(), |op| op.next_in_block()) {
        let launch_value = op.region_count() == 0
            && (tile_ir::in_dialect(&op, melior::dialect::DialectHandle::arith())
                || tile_ir::in_dialect(&op, tile_ir::index_dialect())
                || tile_ir::is(&op, memref::DimOperation::name)
                || tile_ir::is(&op, memref::ExtractAlignedPointerAsIndexOperation::name));
        // Another frontend's GPU code is the compiler's `no_foreign_gpu_code`'s.
        let foreign = op
            .name()
            .as_string_ref()
            .as_str()
            .is_ok_and(|name| name.starts_with("gpu."));
        if launch_value
            || foreign
            || tile_ir::is(&op, func::ReturnOperation::name)
            || tile_ir::is(&op, func::CallOperation::name)
            || tile_ir::is(&op, scf::YieldOperation::name)
            || tile_ir::is(&op, tile_ir::tile::KernelOperation::name)
            || tile_ir::is(&op, tile_ir::tile::MatmulOperation::name)
        {
            continue;
        }
        let name = tile_dialect::ops::op_name(&op);
        let launches = tile_dialect::ops::nested_ops(op).iter().any(|inner| {
            tile_ir::is(inner, tile_ir::tile::KernelOperation::name)
                || tile_ir::is(inner, tile_ir::tile::MatmulOperation::name)
        });
        // A choice between launches: each kernel's manifest says when it runs.
        if launches && tile_ir::is(&op, scf::IfOperation::name) && op.result_count() == 0 {
            match op
                .operand_at(0)
                .ok_or_else(|| tile_dialect::positions::missing("operand", 0))
                .and_then(values::host_expression)
            {
                Ok(_) => {
                    for region in op.regions() {
                        if let Some(branch) = region.first_block() {
                            fine &= launches_in(branch, pipeline);
                        }
                    }
                }
                Err(why) => {
                    tile_dialect::diagnostics::emit_error(
                        op.location(),
                        &format!(
                            "'{name}' op chooses between tile kernel launches on {why}; compute the condition from the function's integer arguments and its tensors' sizes and addresses, or lower the module with the {pipeline} pipeline, whose host code keeps it"
                        ),
                    );
                    fine = false;
                }
            }
        } else if launches {
            tile_dialect::diagnostics::emit_error(
                op.location(),
                &format!(
                    "'{name}' op launches tile kernels under host control flow that a launch manifest cannot describe (a launcher runs kernels, each with the grid its manifest computes where its condition holds, once); launch them from the function's top level or an scf.if, and repeat them in the caller, or lower the module with the {pipeline} pipeline, whose host code keeps it"
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
    fine
}

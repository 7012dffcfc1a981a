//! The driver every kernel lowering shares: visit each `tile.kernel` of a module, report a failure
//! as an error at the op it concerns, and fail the pass if any kernel failed.

use melior::{
    Context,
    ir::operation::{OperationLike, OperationRef},
};
use tile_dialect::{
    diagnostics::emit_error,
    ops::{find_ops, with_context},
};

/// The `tile.kernel` holding `op`.
pub fn kernel_of<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        if tile_ir::is(&current, tile_ir::tile::KernelOperation::name) {
            return Some(current);
        }
        parent = current.parent_operation();
    }
    None
}

/// A failure: the op the diagnostic goes to and its message (without the `'op' op` prefix).
pub type Failure<'c, 'a> = (OperationRef<'c, 'a>, String);

/// Lowers one kernel: (context, module, kernel, index of the kernel in the module).
pub type LowerKernel<'f, 'c, 'a> =
    dyn Fn(&'c Context, OperationRef<'c, 'a>, OperationRef<'c, 'a>, usize) -> Result<(), Failure<'c, 'a>> + 'f;

/// The integer attribute on a module that is one part of a larger module (see `tile-compile`, which
/// splits a module so that MLIR's threads lower and compile the parts side by side): how many
/// `tile.kernel`s the parts before it hold. Kernels are numbered from it, so that their symbols
/// (`{function}_{index}`) are those of the whole module.
pub const KERNEL_OFFSET_ATTRIBUTE: &str = tile_dialect::decisions::KERNEL_OFFSET.name;

/// The number of the first `tile.kernel` of `module`: its [`KERNEL_OFFSET_ATTRIBUTE`], or 0.
fn kernel_offset(module: OperationRef) -> usize {
    module
        .attribute(KERNEL_OFFSET_ATTRIBUTE)
        .ok()
        .and_then(|attribute| melior::ir::attribute::IntegerAttribute::try_from(attribute).ok())
        .map_or(0, |offset| offset.value().max(0) as usize)
}

/// Runs `lower` on every `tile.kernel` of `module`, numbered in program order from the module's
/// [`KERNEL_OFFSET_ATTRIBUTE`]. Errors are emitted at the ops they concern; the `Err` (with an
/// empty message) only tells the pass to fail.
pub fn lower_each_kernel<'c, 'a>(module: OperationRef<'c, 'a>, lower: &LowerKernel<'_, 'c, 'a>) -> Result<(), String> {
    let mut failed = false;
    let offset = kernel_offset(module);
    for (index, kernel) in find_ops(module, tile_ir::tile::KernelOperation::name())
        .into_iter()
        .enumerate()
    {
        let index = offset + index;
        if let Err((op, message)) = with_context(kernel, |context| lower(context, module, kernel, index)) {
            let name = op.name();
            emit_error(
                op.location(),
                &format!("'{}' op {message}", name.as_string_ref().as_str().unwrap_or("?")),
            );
            failed = true;
        }
    }
    if failed { Err(String::new()) } else { Ok(()) }
}

/// The launch manifests a lowering left on the `gpu.module`s of `module`: (module symbol, JSON).
pub fn manifests(module: &melior::ir::Module) -> Vec<(String, String)> {
    find_ops(module.as_operation(), tile_ir::gpu::GPUModuleOperation::name())
        .into_iter()
        .filter_map(|op| {
            let manifest = tile_dialect::ops::string_attribute(&op, tile_dialect::decisions::MANIFEST.name)?;
            Some((
                tile_dialect::ops::string_attribute(&op, "sym_name").unwrap_or_default(),
                manifest,
            ))
        })
        .collect()
}

/// The launch manifests of `module`'s `gpu.module`s, read into the typed schema: (module symbol,
/// manifest). Fails naming the module whose manifest does not read, or does not write back to the
/// same text (a field the schema lacks).
pub fn typed_manifests(module: &melior::ir::Module) -> Result<Vec<(String, tile_manifest::Manifest)>, String> {
    manifests(module)
        .into_iter()
        .map(|(name, json)| {
            let manifest = tile_manifest::Manifest::from_json(&json).map_err(|error| format!("{name}: {error}"))?;
            // The schema must hold everything a lowering wrote: no field dropped or reordered.
            if manifest.to_json() != json {
                return Err(format!(
                    "{name}: the manifest does not round-trip through tile-manifest's schema: {json}"
                ));
            }
            Ok((name, manifest))
        })
        .collect()
}

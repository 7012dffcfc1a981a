//! The symbols a lowered `tile.kernel` defines, and the call of its host launch function that
//! replaces it.

use melior::{
    Context,
    ir::{
        BlockLike,
        operation::{OperationLike, OperationRef},
    },
};

/// The symbols the lowering of a `tile.kernel` defines: `{function}_{index}` is the stem of its
/// `gpu.module`, its kernel, its helpers and its host launch function.
pub struct Symbols {
    /// The host function the `tile.kernel` stands in.
    pub function: String,
    /// `{function}_{index}`.
    pub stem: String,
    /// The `gpu.module`.
    pub module: String,
    /// The kernel (`gpu.func`), the entry the manifest names.
    pub kernel: String,
}

impl Symbols {
    /// The symbols of `kernel`, the `index`-th `tile.kernel` of its module.
    pub fn of(kernel: OperationRef, index: usize) -> Self {
        let function = tile_dialect::ops::enclosing_symbol(kernel, "kernel");
        let stem = format!("{function}_{index}");
        Symbols {
            module: format!("{stem}_module"),
            kernel: format!("{stem}_kernel"),
            function,
            stem,
        }
    }
}

/// How the host calls a lowered kernel's launch function `func.func private @{name}(operands...)`
/// where the `tile.kernel` stood.
pub struct HostLaunch<'c, 'a> {
    /// The launch function's symbol.
    pub name: String,
    /// The host values it takes, in order.
    pub operands: Vec<melior::ir::Value<'c, 'a>>,
}

/// Calls `launch`'s function just before `kernel`, with the host values it takes.
pub fn call_launch<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    launch: &HostLaunch<'c, 'a>,
) -> Result<(), String> {
    let call = melior::dialect::func::call(
        context,
        melior::ir::attribute::FlatSymbolRefAttribute::new(context, &launch.name),
        &launch.operands,
        &[],
        kernel.location(),
    );
    let block = kernel.block().ok_or("the kernel is in no block")?;
    block.insert_operation_before(kernel, call);
    Ok(())
}

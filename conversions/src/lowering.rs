//! `convert-tile-to-<target>`: the lowering pass, one for every target, registered under each
//! target's flag ([`crate::target::Lowering`]). It refuses what the target cannot build
//! ([`crate::support::check_supported`]), then lowers each kernel with the target's strategy
//! ([`crate::generic`]): op by op, fragments in registers and gemms on the target's matrix
//! instructions where the layouts `tile-infer-layouts` recorded allow, or the plain loops.

use crate::target::{Strategy, Target};
use melior::{
    Context,
    ir::{operation::OperationRef, r#type::TypeId},
    pass::Pass,
};

/// Creates `target`'s lowering pass (on `builtin.module`).
pub fn create_pass(target: &'static Target) -> Pass {
    #[derive(Clone)]
    struct Lower(&'static Target);

    impl<'c> melior::pass::RunExternalPass<'c> for Lower {
        fn initialize(&mut self, _context: melior::ContextRef<'c>) {}

        fn run(&mut self, op: OperationRef<'c, '_>, pass: melior::pass::ExternalPass<'_>) {
            let target = self.0;
            tile_passes::guard::run_guarded(target.lowering.argument, op, pass, |module| {
                lower_module(module, target)
            });
        }
    }

    melior::pass::create_external(
        Lower(target),
        TypeId::create(target),
        target.lowering.name,
        target.lowering.argument,
        target.lowering.description,
        tile_ir::builtin::ModuleOperation::name(),
        &(target.lowering.dialects)(),
    )
}

/// Lowers every `tile.kernel` of `module` for `target`.
pub fn lower_module(module: OperationRef, target: &'static Target) -> Result<(), String> {
    crate::support::check_supported(module, Some(target))?;
    crate::kernels::lower_each_kernel(module, &|context, module, kernel, index| {
        lower_kernel(context, module, kernel, index, target)
    })?;
    // The passes after it read the target from the module (`tile-emulate-small-floats` in the
    // backend), as the target pipelines set it; a lowering run on its own records its own, also
    // over another target's name (a module written for sm_90a run through the SPIR-V lowering by
    // tile-run: its backend emulated sm_90a's types, not SPIR-V's, and bf16 came out wrong). After
    // the kernels: layouts recorded for the other target are refused at their ops, naming it.
    target.record(module);
    Ok(())
}

fn lower_kernel<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
    target: &'static Target,
) -> Result<(), crate::kernels::Failure<'c, 'a>> {
    match target.strategy {
        Strategy::PerOp => crate::generic::lower_per_op(context, module, kernel, index, target),
        Strategy::Plain => crate::generic::lower_plain(context, module, kernel, index, target),
    }
}

//! Runs a pass body so that neither an error nor a panic escapes as anything but a diagnostic.

use melior::{
    ir::operation::{OperationLike, OperationRef},
    pass::ExternalPass,
};
use tile_dialect::diagnostics::{catch_panic, emit_error};

/// Runs `body` on `op`; an `Err` or a panic becomes an error at `op`'s location and fails the pass.
/// An empty `Err` message means the body already reported its errors where they belong.
pub fn run_guarded(
    pass_name: &str,
    op: OperationRef,
    pass: ExternalPass,
    body: impl FnOnce(OperationRef) -> Result<(), String>,
) {
    let failure = match catch_panic(|| body(op)) {
        Ok(Ok(())) => return,
        Ok(Err(message)) => message,
        Err(panic) => panic,
    };
    if !failure.is_empty() {
        emit_error(op.location(), &format!("{pass_name} failed: {failure}"));
    }
    pass.signal_failure();
}

/// Defines `pub fn $create() -> Pass`: a stateless Rust pass whose body runs on the op it is
/// scheduled on through [`run_guarded`] (so that an error or a panic becomes a diagnostic). What
/// differs between passes is all in the arguments; the type-id anchor, the `RunExternalPass`
/// implementation and `create_external` are written once, here.
#[macro_export]
macro_rules! rust_pass {
    (
        $(#[$doc:meta])*
        pub fn $create:ident() {
            argument: $argument:expr,
            name: $name:literal,
            description: $description:literal,
            anchor: $anchor:expr,
            dialects: $dialects:expr,
            run: |$op:ident| $body:expr $(,)?
        }
    ) => {
        $(#[$doc])*
        pub fn $create() -> melior::pass::Pass {
            #[repr(align(8))]
            struct PassId;
            static PASS_ID: PassId = PassId;

            #[derive(Clone)]
            struct RustPass;

            impl<'c> melior::pass::RunExternalPass<'c> for RustPass {
                fn initialize(&mut self, _context: melior::ContextRef<'c>) {}

                fn run(
                    &mut self,
                    op: melior::ir::operation::OperationRef<'c, '_>,
                    pass: melior::pass::ExternalPass<'_>,
                ) {
                    $crate::guard::run_guarded($argument, op, pass, |$op| $body);
                }
            }

            melior::pass::create_external(
                RustPass,
                melior::ir::r#type::TypeId::create(&PASS_ID),
                $name,
                $argument,
                $description,
                $anchor,
                &$dialects,
            )
        }
    };
}

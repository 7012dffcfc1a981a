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

//! Emitting diagnostics and guarding Rust callbacks that C++ calls.

use melior::ir::Location;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Emits an `error:` diagnostic at `location` through the context's diagnostic engine (so that
/// `--verify-diagnostics` and every handler see it).
pub fn emit_error(location: Location, message: &str) {
    let text = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), text.as_ptr()) }
}

/// Runs `body`, turning a panic into `Err` with the panic's message, so that no panic unwinds into
/// C++.
pub fn catch_panic<T>(body: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(body))
        .map_err(|payload| format!("internal error: {}", crate::ffi::panic_message(&*payload)))
}

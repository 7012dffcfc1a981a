//! Emitting diagnostics and guarding Rust callbacks that C++ calls.

use melior::ir::Location;
use std::panic::{AssertUnwindSafe, catch_unwind};

/// Emits an `error:` diagnostic at `location` through the context's diagnostic engine (so that
/// `--verify-diagnostics` and every handler see it).
pub fn emit_error(location: Location, message: &str) {
    let text = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { mlir_sys::mlirEmitError(location.to_raw(), text.as_ptr()) }
}

/// Emits a `warning:` diagnostic at `location` (a lowering that works but not as the user may expect).
pub fn emit_warning(location: Location, message: &str) {
    let text = std::ffi::CString::new(message.replace('\0', " ")).unwrap_or_default();
    unsafe { crate::ffi::tileShimEmitWarning(location.to_raw(), text.as_ptr()) }
}

/// Runs `body`, turning a panic into `Err` with the panic's message, so that no panic unwinds into
/// C++.
pub fn catch_panic<T>(body: impl FnOnce() -> T) -> Result<T, String> {
    catch_unwind(AssertUnwindSafe(body))
        .map_err(|payload| format!("internal error: {}", crate::ffi::panic_message(&*payload)))
}

/// Formats a diagnostic as compilers print them: `file:line:col: error: message`, then its notes,
/// except MLIR's "see current operation" note (the op printed whole: a failing `tile.kernel` or
/// module would dump its IR at the user).
pub fn format_diagnostic(diagnostic: &melior::diagnostic::Diagnostic) -> String {
    use melior::diagnostic::DiagnosticSeverity;
    let location = diagnostic.location();
    let place = if location.is_file_line_col_range() {
        format!(
            "{}:{}:{}",
            location
                .file_line_col_range_filename()
                .as_string_ref()
                .as_str()
                .unwrap_or("?"),
            location.file_line_col_range_start_line(),
            location.file_line_col_range_start_column()
        )
    } else {
        location.to_string()
    };
    let severity = match diagnostic.severity() {
        DiagnosticSeverity::Error => "error",
        DiagnosticSeverity::Warning => "warning",
        DiagnosticSeverity::Note => "note",
        DiagnosticSeverity::Remark => "remark",
    };
    let message = message_without_ir(&diagnostic.to_string());
    let mut text = format!("{place}: {severity}: {message}");
    for index in 0..diagnostic.note_count() {
        if let Ok(note) = diagnostic.note(index) {
            if is_op_dump(&note.to_string()) {
                continue;
            }
            text.push('\n');
            text.push_str(&format_diagnostic(&note));
        }
    }
    text
}

/// Returns a diagnostic's message with any op it prints on lines of its own ("block with no
/// terminator, has <op>") cut to that op's first line: the user gets a line, not the IR (as the
/// dialect's C++ handler does for tile-opt).
pub fn message_without_ir(message: &str) -> String {
    let lines: Vec<&str> = message.lines().collect();
    match lines.as_slice() {
        [first, op, rest @ ..] => {
            format!(
                "{}{} ({} more lines of IR omitted)",
                first.trim_end(),
                op.trim_end(),
                rest.len()
            )
        }
        _ => message.trim_end().to_owned(),
    }
}

/// Returns whether a note only repeats the op a diagnostic concerns ("see current operation").
pub fn is_op_dump(note: &str) -> bool {
    note.starts_with("see current operation")
}

//! Diagnostics collected from MLIR's diagnostic engine while a compilation runs, instead of
//! printed: each with its severity, location and notes.

use melior::diagnostic::DiagnosticSeverity;
use std::{
    fmt,
    sync::{Arc, Mutex},
};

/// How serious a diagnostic is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Severity {
    /// The compilation failed because of it.
    Error,
    /// The kernel compiled, but perhaps not as expected (a slower strategy, for instance).
    Warning,
    /// More about the diagnostic it belongs to.
    Note,
    /// Information.
    Remark,
}

impl fmt::Display for Severity {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str(match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Note => "note",
            Severity::Remark => "remark",
        })
    }
}

/// A place in the source.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SourceLocation {
    /// The file (the source name given to the compile call).
    pub file: String,
    /// The line, from 1.
    pub line: u32,
    /// The column, from 1.
    pub column: u32,
}

/// One diagnostic.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Diagnostic {
    /// How serious it is.
    pub severity: Severity,
    /// Where, when MLIR knows a file position.
    pub location: Option<SourceLocation>,
    /// The location as MLIR prints it (for locations that are not file positions).
    pub location_text: String,
    /// The message.
    pub message: String,
    /// Its notes.
    pub notes: Vec<Diagnostic>,
}

impl fmt::Display for Diagnostic {
    /// Formats the diagnostic as compilers print them: `file:line:col: error: message`, then its
    /// notes, one a line.
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match &self.location {
            Some(SourceLocation { file, line, column }) => write!(f, "{file}:{line}:{column}")?,
            None => f.write_str(&self.location_text)?,
        }
        write!(f, ": {}: {}", self.severity, self.message)?;
        for note in &self.notes {
            write!(f, "\n{note}")?;
        }
        Ok(())
    }
}

impl Diagnostic {
    /// Reads an MLIR diagnostic, naming its file `rename(file)`.
    fn read(diagnostic: &melior::diagnostic::Diagnostic, rename: &dyn Fn(&str) -> String) -> Self {
        let location = diagnostic.location();
        let file_position = location.is_file_line_col_range().then(|| SourceLocation {
            file: rename(
                location
                    .file_line_col_range_filename()
                    .as_string_ref()
                    .as_str()
                    .unwrap_or("?"),
            ),
            line: location.file_line_col_range_start_line() as u32,
            column: location.file_line_col_range_start_column() as u32,
        });
        let severity = match diagnostic.severity() {
            DiagnosticSeverity::Error => Severity::Error,
            DiagnosticSeverity::Warning => Severity::Warning,
            DiagnosticSeverity::Note => Severity::Note,
            DiagnosticSeverity::Remark => Severity::Remark,
        };
        Diagnostic {
            severity,
            location: file_position,
            location_text: location.to_string(),
            message: tile_dialect::diagnostics::message_without_ir(&diagnostic.to_string()),
            notes: (0..diagnostic.note_count())
                .filter_map(|index| diagnostic.note(index).ok())
                .filter(|note| !tile_dialect::diagnostics::is_op_dump(&note.to_string()))
                .map(|note| Diagnostic::read(&note, rename))
                .collect(),
        }
    }
}

/// Collects a context's diagnostics while it lives, and detaches itself on drop.
pub(crate) struct Collector<'c> {
    context: &'c melior::Context,
    id: Option<melior::diagnostic::DiagnosticHandlerId>,
    collected: Arc<Mutex<Vec<Diagnostic>>>,
}

impl<'c> Collector<'c> {
    /// Attaches a handler to `context` that collects every diagnostic (and prints none), naming
    /// files `rename(file)`. A diagnostic already collected is not collected again: a kernel and
    /// its twin for aligned tensors (`tile-specialize-alignment`) fail alike, at one place.
    pub(crate) fn attach(context: &'c melior::Context, rename: impl Fn(&str) -> String + Send + 'static) -> Self {
        let collected = Arc::new(Mutex::new(Vec::new()));
        let sink = collected.clone();
        let id = context.attach_diagnostic_handler(move |diagnostic| {
            let read = Diagnostic::read(&diagnostic, &rename);
            let mut sink = sink.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            if !sink.contains(&read) {
                sink.push(read);
            }
            true
        });
        Collector {
            context,
            id: Some(id),
            collected,
        }
    }

    /// Returns the diagnostics collected so far, leaving none.
    pub(crate) fn take(&self) -> Vec<Diagnostic> {
        std::mem::take(&mut *self.collected.lock().unwrap_or_else(|poisoned| poisoned.into_inner()))
    }
}

impl Drop for Collector<'_> {
    fn drop(&mut self) {
        if let Some(id) = self.id.take() {
            self.context.detach_diagnostic_handler(id);
        }
    }
}

//! The one test context: every upstream dialect plus tile, with a handler that records diagnostics.

#![allow(dead_code)] // each test binary uses part of the helpers

use melior::{Context, dialect::DialectRegistry, utility::register_all_dialects};
use std::{cell::RefCell, rc::Rc};

/// Diagnostics reported while a test ran, as "message" strings.
pub type Diagnostics = Rc<RefCell<Vec<String>>>;

/// Creates a context with every dialect loaded and a diagnostic handler that records messages.
pub fn test_context() -> (Context, Diagnostics) {
    let registry = DialectRegistry::new();
    register_all_dialects(&registry);
    tile_dialect::register(&registry);
    let context = Context::new();
    context.append_dialect_registry(&registry);
    context.load_all_available_dialects();
    let diagnostics: Diagnostics = Rc::default();
    let sink = diagnostics.clone();
    context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut().push(diagnostic.to_string());
        true
    });
    (context, diagnostics)
}

/// Returns the repository's root folder.
pub fn repo_root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("test/ is in the repository")
        .into()
}

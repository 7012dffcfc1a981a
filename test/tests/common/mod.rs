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

/// Builds `packages` (tools the test runs) in this test binary's profile and returns the folder
/// their binaries are in, `target/<profile>` (test binaries live one folder down, in `deps/`).
pub fn build_tools(packages: &[&str]) -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("test binary path");
    let bin: std::path::PathBuf = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps")
        .into();
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = std::process::Command::new(cargo);
    build.current_dir(repo_root()).arg("build");
    for package in packages {
        build.args(["-p", package]);
    }
    if bin.file_name().is_some_and(|name| name == "release") {
        build.arg("--release");
    }
    assert!(
        build.status().expect("cargo runs").success(),
        "building {packages:?} failed"
    );
    bin
}

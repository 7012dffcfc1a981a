//! A panic inside a Rust pass never unwinds into C++: it becomes a located error and a failed pass.

mod common;

use common::test_context;
use melior::{
    ContextRef,
    ir::{Location, Module, operation::OperationRef, r#type::TypeId},
    pass::{ExternalPass, PassManager, RunExternalPass, create_external},
};

#[repr(align(8))]
struct PassId;
static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct Panicking;

impl<'c> RunExternalPass<'c> for Panicking {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, op: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        tile_passes::guard::run_guarded("test-panic", op, pass, |_| panic!("boom in a rewrite"));
    }
}

#[test]
fn panic_in_pass_becomes_a_diagnostic() {
    let (context, diagnostics) = test_context();
    let mut module = Module::new(Location::new(&context, "input.mlir", 3, 1));
    let manager = PassManager::new(&context);
    manager.add_pass(create_external(
        Panicking,
        TypeId::create(&PASS_ID),
        "Panicking",
        "test-panic",
        "",
        "",
        &[],
    ));
    assert!(manager.run(&mut module).is_err());
    let diagnostics = diagnostics.borrow();
    assert!(
        diagnostics
            .iter()
            .any(|message| message.contains("test-panic failed: internal error: boom in a rewrite")),
        "{diagnostics:?}"
    );
}

//! The C boundary with the C++ shim (`shim/TileShim.h`). All `extern "C"` declarations and all
//! callbacks that C++ calls live here; every callback catches panics, so none crosses into C++.

#![allow(non_snake_case)]

use mlir_sys::{
    MlirAffineMap, MlirAttribute, MlirContext, MlirDialectHandle, MlirOperation, MlirPass, MlirRewritePatternSet,
    MlirStringRef, MlirType,
};
use std::ffi::{c_char, c_int, c_void};

/// Receives one message from Rust.
pub type MessageSink = unsafe extern "C" fn(user_data: *mut c_void, message: MlirStringRef);
/// Verifies one op.
pub type VerifyHook =
    unsafe extern "C" fn(op: MlirOperation, sink: MessageSink, user_data: *mut c_void) -> bool;
/// Adds canonicalization patterns of one op.
pub type CanonicalizeHook = unsafe extern "C" fn(
    op_name: MlirStringRef,
    patterns: MlirRewritePatternSet,
    context: MlirContext,
);
/// Builds registered pipeline number `id` for a chip.
pub type PipelineBuilder =
    unsafe extern "C" fn(id: i32, pm: mlir_sys::MlirOpPassManager, chip: MlirStringRef);
/// Creates registered pass number `id`.
pub type PassFactory = unsafe extern "C" fn(id: i32) -> MlirPass;

unsafe extern "C" {
    pub fn tileShimSetHooks(verify: VerifyHook, canonicalize: CanonicalizeHook);
    pub fn tileShimGetDialectHandle() -> MlirDialectHandle;
    pub fn tileShimInsertDialect(registry: *mut c_void);
    pub fn tileShimMemoryLevel(r#type: MlirType) -> i32;
    pub fn tileShimFragmentSpaceGet(context: MlirContext) -> MlirAttribute;
    pub fn tileShimWorkgroupSpaceGet(context: MlirContext) -> MlirAttribute;
    pub fn tileShimReductionKindGet(context: MlirContext, kind: i32) -> MlirAttribute;
    pub fn tileShimReductionKindValue(attr: MlirAttribute) -> i32;
    pub fn tileShimFragmentLayoutGet(
        context: MlirContext,
        rank: isize,
        shape: *const i64,
        threads: i64,
        replicate: i64,
        thread: MlirAffineMap,
        slot: MlirAffineMap,
        origin: MlirStringRef,
    ) -> MlirAttribute;
    pub fn tileShimIsFragmentLayout(attr: MlirAttribute) -> bool;
    pub fn tileShimFragmentLayoutRank(attr: MlirAttribute) -> isize;
    pub fn tileShimFragmentLayoutSize(attr: MlirAttribute, dim: isize) -> i64;
    pub fn tileShimFragmentLayoutThreads(attr: MlirAttribute) -> i64;
    pub fn tileShimFragmentLayoutReplicate(attr: MlirAttribute) -> i64;
    pub fn tileShimFragmentLayoutThreadMap(attr: MlirAttribute) -> MlirAffineMap;
    pub fn tileShimFragmentLayoutSlotMap(attr: MlirAttribute) -> MlirAffineMap;
    pub fn tileShimFragmentLayoutOrigin(attr: MlirAttribute) -> MlirStringRef;
    pub fn tileShimSharedLayoutGet(
        context: MlirContext,
        swizzle: i64,
        padding: i64,
        transposed: bool,
        box_rank: isize,
        r#box: *const i64,
        boxes: i64,
        buffers: i64,
    ) -> MlirAttribute;
    pub fn tileShimIsSharedLayout(attr: MlirAttribute) -> bool;
    pub fn tileShimSharedLayoutField(attr: MlirAttribute, field: isize) -> i64;
    pub fn tileShimRegisterPass(factory: PassFactory, id: i32);
    pub fn tileShimRegisterPipeline(
        name: *const c_char,
        description: *const c_char,
        build: PipelineBuilder,
        id: i32,
    );
    pub fn tileShimSerializeSpirv(
        op: mlir_sys::MlirOperation,
        sink: unsafe extern "C" fn(user_data: *mut c_void, words: *const u32, count: usize),
        user_data: *mut c_void,
    ) -> bool;
    pub fn tileShimEmitWarning(location: mlir_sys::MlirLocation, message: *const c_char);
    pub fn tileShimRewriteMath(
        root: MlirOperation,
        seeds: MlirStringRef,
        expand: MlirStringRef,
        approximate: MlirStringRef,
    ) -> bool;
    pub fn tileShimOptMain(argc: c_int, argv: *mut *mut c_char) -> c_int;
}

/// Returns the text of a panic payload.
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|text| text.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

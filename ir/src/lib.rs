//! Typed builders and names of every op the compiler builds or reads, generated from ODS.
//!
//! Upstream dialects come from melior's generated modules (its `ods-dialects` feature); the ones melior
//! does not generate (`nvvm`, `nvgpu`, `rocdl`) and the `tile` dialect itself are generated here by
//! `melior_macro::dialect!` from the same `.td` files MLIR's C++ classes come from. Each op has a
//! constructor (`arith::addi(context, lhs, rhs, location)`), a builder for optional parts
//! (`nvvm::WgmmaMmaAsyncOperation::builder`) and its name (`tile::GemmOperation::name()`), so no op is
//! built or recognized by a name written by hand.

pub use melior::dialect::ods::{affine, amdgpu, arith, builtin, cf, func, gpu, index, llvm, math, memref, scf, vector};
use melior::{
    Context,
    dialect::DialectHandle,
    ir::{
        attribute::DenseI32ArrayAttribute,
        operation::{Operation, OperationLike, OperationMutLike},
    },
};

melior_macro::dialect! {
    name: "nvvm",
    files: ["mlir/Dialect/LLVMIR/NVVMOps.td"],
}

melior_macro::dialect! {
    name: "nvgpu",
    files: ["mlir/Dialect/NVGPU/IR/NVGPUOps.td"],
}

melior_macro::dialect! {
    name: "rocdl",
    files: ["mlir/Dialect/LLVMIR/ROCDLOps.td"],
}

melior_macro::dialect! {
    name: "tile",
    files: ["TileOps.td"],
    include_directory_env_vars: ["TILE_TD_DIR"],
}

/// Whether `op` is the op whose generated `name` function is given: `is(&op, tile::GemmOperation::name)`.
pub fn is<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, name: fn() -> &'static str) -> bool {
    raw_name(op.to_raw()) == name().as_bytes()
}

/// The name of the op behind `op`, compared as bytes without validating it as UTF-8: rules ask this of
/// every op, often several times.
#[doc(hidden)]
pub fn raw_name<'n>(op: mlir_sys::MlirOperation) -> &'n [u8] {
    // SAFETY: an op's name is an identifier interned in its context, alive while the op is (callers
    // compare it at once).
    unsafe {
        let name = mlir_sys::mlirIdentifierStr(mlir_sys::mlirOperationGetName(op));
        std::slice::from_raw_parts(name.data as *const u8, name.length)
    }
}

#[doc(hidden)]
pub use melior::ir::operation::OperationLike as __OperationLike;

/// `op` with the sizes of its operand groups (`operandSegmentSizes`), one for each of its ODS operands
/// in order: the generated builders take an op's optional and variadic operands but leave their
/// sizes at zero, which the op's verifier refuses.
pub fn with_segments<'c>(context: &'c Context, op: impl Into<Operation<'c>>, sizes: &[i32]) -> Operation<'c> {
    let mut op = op.into();
    op.set_attribute(
        "operandSegmentSizes",
        DenseI32ArrayAttribute::new(context, sizes).into(),
    );
    op
}

/// Whether `op` is one of `dialect`'s ops (`in_dialect(&op, DialectHandle::arith())`).
pub fn in_dialect<'c: 'a, 'a>(op: &impl OperationLike<'c, 'a>, dialect: DialectHandle) -> bool {
    let name = raw_name(op.to_raw());
    let namespace = dialect.namespace();
    let namespace = namespace.as_str().unwrap_or_default().as_bytes();
    name.len() > namespace.len() && name.starts_with(namespace) && name[namespace.len()] == b'.'
}

/// The `index` dialect's handle (melior names the others: `DialectHandle::arith()`, ...).
pub fn index_dialect() -> DialectHandle {
    // SAFETY: the handle is a static registration record of libMLIR's.
    unsafe { DialectHandle::from_raw(mlir_sys::mlirGetDialectHandle__index__()) }
}

/// A `match` on which op `op` is: each arm names generated op types, with an optional guard, and the
/// last arm is `_`; the first arm that fits runs.
///
/// ```ignore
/// match_op!(op, {
///     tile::CopyOperation | tile::CopyAsyncOperation => copy(op),
///     tile::GemmOperation if held => gemm(op),
///     _ => other(op),
/// })
/// ```
#[macro_export]
macro_rules! match_op {
    ($op:expr, {
        $($($($segment:ident)::+)|+ $(if $guard:expr)? => $body:expr,)+
        _ => $default:expr $(,)?
    }) => {{
        let name = {
            use $crate::__OperationLike as _;
            $crate::raw_name($op.to_raw())
        };
        $(
            if ($(name == $($segment)::+::name().as_bytes())||+) $(&& $guard)? { $body } else
        )+
        { $default }
    }};
}

#[cfg(test)]
mod tests {
    use melior::{
        Context,
        ir::{Block, BlockLike, Location, Type, attribute::IntegerAttribute, operation::OperationLike},
    };

    #[test]
    fn match_op_picks_the_first_fitting_arm() {
        let context = Context::new();
        context.set_allow_unregistered_dialects(true);
        melior::dialect::DialectHandle::arith().load_dialect(&context);
        let location = Location::unknown(&context);
        let block = Block::new(&[]);
        let index = Type::index(&context);
        let one = block.append_operation(
            super::arith::constant(&context, index, IntegerAttribute::new(index, 1).into(), location).into(),
        );
        let value = one.result(0).unwrap().into();
        let sum = block.append_operation(super::arith::addi(&context, value, value, location).into());
        let kind = |op: &melior::ir::operation::OperationRef| {
            crate::match_op!(op, {
                super::arith::MulIOperation | super::arith::SubIOperation => "other",
                super::arith::AddIOperation if op.operand_count() == 3 => "three",
                super::arith::AddIOperation => "sum",
                super::arith::ConstantOperation => "constant",
                _ => "unknown",
            })
        };
        assert_eq!(kind(&sum), "sum");
        assert_eq!(kind(&one), "constant");
        assert!(super::in_dialect(&sum, melior::dialect::DialectHandle::arith()));
        assert!(!super::in_dialect(&sum, super::index_dialect()));
    }
}

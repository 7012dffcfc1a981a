//! `tile-math-to-nvptx`: rewrites f32 `math` ops as LLVM/NVPTX intrinsics through the typed
//! `llvm.call_intrinsic`: `exp(x)` as `ex2.approx(x * log2(e))`, `log(x)` as `lg2.approx(x) * ln(2)`,
//! `absf` and `sqrt` as `llvm.fabs`/`llvm.sqrt`. Upstream lowers them to calls into libdevice, which
//! an offline build without the CUDA toolkit cannot link.

use melior::ir::{
    Attribute, BlockLike, TypeLike, ValueLike,
    attribute::FloatAttribute,
    operation::{OperationBuilder, OperationLike, OperationRef},
};
use tile_dialect::ops::{find_ops, with_context};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-math-to-nvptx";

/// Replaces every f32 `from(x)` under `root` by the intrinsic `to(x * factor)` (`scale_input`),
/// `to(x) * factor`, or `to(x)` without a factor.
fn rewrite(root: OperationRef, from: &str, to: &str, factor: Option<f64>, scale_input: bool) {
    with_context(root, |context| {
        let rewriter = melior::IrRewriter::new(context);
        let rewriter = rewriter.as_rewriter_base();
        for op in find_ops(root, from) {
            let Ok(input) = op.operand(0) else { continue };
            let ty = input.r#type();
            // `llvm.fabs` takes any float: f16 and bf16 absolute values (from `tile.reduce` with
            // `<absmax>` or `<abssum>` on half tiles) need no libdevice either.
            let to = if ty.is_f32() {
                to.to_owned()
            } else if from == "math.absf" && (ty.is_f16() || ty.is_bf16()) {
                format!("llvm.fabs.{ty}")
            } else {
                continue;
            };
            let to = to.as_str();
            let block = op.block().expect("op in a block");
            let location = op.location();
            let binary = |name: &str, a, b| {
                OperationBuilder::new(name, location)
                    .add_operands(&[a, b])
                    .enable_result_type_inference()
                    .build()
                    .expect("binary")
            };
            let unary = |intrinsic: &str, a| {
                let attribute = |name: &str, text: &str| {
                    (
                        melior::ir::Identifier::new(context, name),
                        Attribute::parse(context, text).expect("attribute"),
                    )
                };
                OperationBuilder::new("llvm.call_intrinsic", location)
                    .add_operands(&[a])
                    .add_results(&[ty])
                    .add_attributes(&[
                        attribute("intrin", &format!("\"{intrinsic}\"")),
                        attribute("fastmathFlags", "#llvm.fastmath<none>"),
                        attribute("op_bundle_sizes", "array<i32>"),
                        attribute("operandSegmentSizes", "array<i32: 1, 0>"),
                    ])
                    .build()
                    .expect("llvm.call_intrinsic")
            };
            let result = match factor {
                None => block
                    .insert_operation_before(op, unary(to, input))
                    .result(0)
                    .expect("intrinsic")
                    .into(),
                Some(factor) => {
                    let constant: Attribute = FloatAttribute::new(context, ty, factor).into();
                    let factor = block.insert_operation_before(
                        op,
                        melior::dialect::arith::constant(context, constant, location),
                    );
                    let factor = factor.result(0).expect("constant").into();
                    if scale_input {
                        let scaled = block
                            .insert_operation_before(op, binary("arith.mulf", input, factor))
                            .result(0)
                            .expect("mulf")
                            .into();
                        block
                            .insert_operation_before(op, unary(to, scaled))
                            .result(0)
                            .expect("intrinsic")
                            .into()
                    } else {
                        let base2 = block
                            .insert_operation_before(op, unary(to, input))
                            .result(0)
                            .expect("intrinsic")
                            .into();
                        block
                            .insert_operation_before(op, binary("arith.mulf", base2, factor))
                            .result(0)
                            .expect("mulf")
                            .into()
                    }
                }
            };
            rewriter.replace_op_with_values(op, &[result]);
        }
    });
}

crate::rust_pass! {
    /// Creates the `tile-math-to-nvptx` pass (any op).
    pub fn create_math_to_nvptx_pass() {
        argument: ARGUMENT,
        name: "TileMathToNvptx",
        description: "Rewrite f32 math ops (exp, log, absf, sqrt) as NVPTX intrinsics, so no libdevice is needed",
        anchor: "",
        dialects: [tile_dialect::registration::math_dialect(), tile_dialect::registration::llvm_dialect()],
        run: |op| {
            rewrite(op, "math.exp", "llvm.nvvm.ex2.approx.f32", Some(std::f64::consts::LOG2_E), true);
            rewrite(op, "math.log", "llvm.nvvm.lg2.approx.f", Some(std::f64::consts::LN_2), false);
            rewrite(op, "math.absf", "llvm.fabs.f32", None, false);
            rewrite(op, "math.sqrt", "llvm.sqrt.f32", None, false);
            Ok(())
        },
    }
}

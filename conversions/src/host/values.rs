//! Launch values: how the host recomputes, from its own arguments, the grid and the scalars a
//! lowered kernel takes. Every target's manifest writes them the same way.

use melior::ir::{
    ShapedTypeLike, Value, ValueLike,
    operation::{OperationLike, OperationRef},
    r#type::MemRefType,
};
use tile_dialect::ops::{constant_integer, op_name};
use tile_dialect::positions::OperationAt;
use tile_ir::{arith, memref};
use tile_manifest::{Expr, HostOp};

/// Host ops whose value a launcher can recompute from the host arguments, each with the `HostOp` a
/// manifest writes for it.
const HOST_OPS: [(fn() -> &'static str, HostOp); 16] = [
    (arith::AddIOperation::name, HostOp::Add),
    (arith::SubIOperation::name, HostOp::Sub),
    (arith::MulIOperation::name, HostOp::Mul),
    (arith::DivUIOperation::name, HostOp::DivU),
    (arith::DivSIOperation::name, HostOp::DivS),
    (arith::CeilDivUIOperation::name, HostOp::CeilDivU),
    (arith::CeilDivSIOperation::name, HostOp::CeilDivS),
    (arith::RemUIOperation::name, HostOp::RemU),
    (arith::RemSIOperation::name, HostOp::RemS),
    (arith::MinUIOperation::name, HostOp::MinU),
    (arith::MaxUIOperation::name, HostOp::MaxU),
    (arith::MinSIOperation::name, HostOp::MinS),
    (arith::MaxSIOperation::name, HostOp::MaxS),
    (arith::AndIOperation::name, HostOp::And),
    (arith::OrIOperation::name, HostOp::Or),
    (arith::XOrIOperation::name, HostOp::Xor),
];

/// `arith.cmpi`'s predicates (their numbers in the op's attribute) as the ops a manifest writes.
const COMPARISONS: [HostOp; 10] = [
    HostOp::Eq,
    HostOp::Ne,
    HostOp::SLt,
    HostOp::SLe,
    HostOp::SGt,
    HostOp::SGe,
    HostOp::ULt,
    HostOp::ULe,
    HostOp::UGt,
    HostOp::UGe,
];

/// Describes how the host computes `value` from its arguments: a number, a size or the address
/// of a tensor argument, a scalar argument, or integer arithmetic and comparisons over those (a
/// condition is 1 or 0).
pub fn host_expression(value: Value) -> Result<Expr, String> {
    if let Some(constant) = constant_integer(value) {
        // An i1 `true` is -1 to MLIR; a condition is 1.
        let boolean = melior::ir::r#type::IntegerType::try_from(value.r#type()).is_ok_and(|ty| ty.width() == 1);
        return Ok(Expr::Const(if boolean { constant & 1 } else { constant }));
    }
    if let Some(argument) = tile_dialect::ops::as_argument(value) {
        return Ok(Expr::Argument {
            argument: argument.argument_number(),
        });
    }
    let owner = tile_dialect::ops::as_result(value)
        .ok_or_else(|| "an unknown value".to_string())?
        .owner();
    let operands: Vec<Value> = owner.operands().collect();
    tile_ir::match_op!(owner, {
        memref::DimOperation => {
            let tensor = tile_dialect::ops::as_argument(operands[0])
                .ok_or("memref.dim of a tensor that is not a host argument")?;
            let dim = constant_integer(operands[1]).ok_or("memref.dim with a dynamic dimension index")?;
            Ok(Expr::Dim {
                dim: [tensor.argument_number(), dim as usize],
            })
        },
        memref::ExtractAlignedPointerAsIndexOperation => {
            let tensor = tile_dialect::ops::as_argument(operands[0])
                .ok_or("the address of a tensor that is not a host argument")?;
            Ok(Expr::Address {
                address: tensor.argument_number(),
            })
        },
        arith::IndexCastOperation | arith::IndexCastUIOperation => host_expression(operands[0]),
        arith::CmpIOperation => {
            let predicate = owner
                .attribute("predicate")
                .ok()
                .and_then(|attribute| melior::ir::attribute::IntegerAttribute::try_from(attribute).ok())
                .and_then(|predicate| COMPARISONS.get(predicate.value() as usize).copied())
                .ok_or("an arith.cmpi without a predicate")?;
            let args = operands
                .into_iter()
                .map(host_expression)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Expr::Op { op: predicate, args })
        },
        _ => match HOST_OPS.iter().find(|(name, _)| tile_ir::is(&owner, *name)) {
            Some((_, op)) => {
                let args = operands
                    .into_iter()
                    .map(host_expression)
                    .collect::<Result<Vec<_>, _>>()?;
                Ok(Expr::Op { op: *op, args })
            }
            None => Err(format!(
                "a value computed by {}, which a launcher cannot recompute",
                op_name(&owner)
            )),
        },
    })
}

/// The condition the host function launches `kernel` under: the conditions of the `scf.if`s around
/// it (negated in their else regions), all of them; `None` at the function's top level.
pub fn host_condition(kernel: OperationRef) -> Result<Option<Expr>, String> {
    let mut condition: Option<Expr> = None;
    let mut inner = kernel;
    while let Some(parent) = inner.parent_operation() {
        if tile_ir::is(&parent, tile_ir::scf::IfOperation::name) {
            let test = truth(host_expression(
                parent
                    .operand_at(0)
                    .ok_or_else(|| tile_dialect::positions::missing("operand", 0))?,
            )?);
            use melior::ir::BlockLike;
            let in_then = parent.region_at(0).is_some_and(|region| {
                inner
                    .block()
                    .and_then(|block| block.parent_region())
                    .is_some_and(|own| own == region)
            });
            let test = if in_then {
                test
            } else {
                Expr::Op {
                    op: HostOp::Xor,
                    args: vec![test, Expr::Const(1)],
                }
            };
            condition = Some(match condition {
                Some(inside) => Expr::Op {
                    op: HostOp::And,
                    args: vec![test, inside],
                },
                None => test,
            });
        }
        inner = parent;
    }
    Ok(condition)
}

/// `condition` as 1 or 0: a comparison is; any other value (a host argument a launcher passes
/// as -1 for `true`, say) is compared with 0, so that negating it with `xor 1` holds.
fn truth(condition: Expr) -> Expr {
    match condition {
        Expr::Op { op, .. } if COMPARISONS.contains(&op) => condition,
        other => Expr::Op {
            op: HostOp::Ne,
            args: vec![other, Expr::Const(0)],
        },
    }
}

/// The grid of a launch as host expressions (see [`host_expression`]), padded to three dimensions.
pub fn host_grid<'c, 'a>(sizes: impl IntoIterator<Item = Value<'c, 'a>>) -> Result<Vec<Expr>, String> {
    let mut grid = sizes.into_iter().map(host_expression).collect::<Result<Vec<_>, _>>()?;
    grid.resize(3, Expr::Const(1));
    Ok(grid)
}

/// A global tensor as a manifest describes it.
pub struct HostTensor {
    /// Which argument of the host function it is (-1 when it is not one).
    pub argument: i64,
    /// Its sizes, `None` where dynamic.
    pub shape: Vec<Option<i64>>,
    /// Its element type, as MLIR writes it.
    pub element: String,
}

/// Describes the global tensor `value` (a memref) for a manifest.
pub fn host_tensor(value: Value) -> HostTensor {
    let memref = MemRefType::try_from(value.r#type()).expect("global tensors are memrefs");
    HostTensor {
        argument: tile_dialect::ops::as_argument(value)
            .map(|argument| argument.argument_number() as i64)
            .unwrap_or(-1),
        shape: tile_dialect::ops::static_sizes(memref),
        element: memref.element().to_string(),
    }
}

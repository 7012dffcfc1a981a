//! Launch values: how the host recomputes, from its own arguments, the grid and the scalars a
//! lowered kernel takes. Every target's manifest writes them the same way.

use melior::ir::{ShapedTypeLike, Value, ValueLike, operation::OperationLike, r#type::MemRefType};
use tile_dialect::ops::{constant_integer, op_name};
use tile_ir::{arith, memref};
use tile_manifest::{Expr, HostOp};

/// Host ops whose value a launcher can recompute from the host arguments, each with the `HostOp` a
/// manifest writes for it.
const HOST_OPS: [(fn() -> &'static str, HostOp); 13] = [
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
];

/// Describes how the host computes `value` from its arguments: a number, a size of a tensor
/// argument, a scalar argument, or integer arithmetic over those.
pub fn host_expression(value: Value) -> Result<Expr, String> {
    if let Some(constant) = constant_integer(value) {
        return Ok(Expr::Const(constant));
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
        arith::IndexCastOperation | arith::IndexCastUIOperation => host_expression(operands[0]),
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

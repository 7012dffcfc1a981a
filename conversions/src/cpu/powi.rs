//! `math.fpowi` exponents on the host: LLVM's `powi` takes a C `int`, and its code generator refuses
//! any other width ("POWI exponent does not match sizeof(int)", found by the fuzzer on an i8
//! exponent). A narrower exponent is sign-extended to `i32` here; a wider one is left to
//! `convert-math-to-funcs`, which the CPU pipeline asks to outline exponents of 33 bits and more as
//! an exact loop of squarings ([`super::LLVM_PIPELINE`]).

use melior::{
    Context,
    ir::{
        Type, ValueLike,
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use tile_dialect::ops::{nested_ops, set_operand};
use tile_dialect::positions::OperationAt;

/// The width of `powi`'s exponent, a C `int`.
const INT_BITS: u32 = 32;

/// Sign-extends the exponent of every `math.fpowi` in `root` narrower than [`INT_BITS`].
pub fn widen_exponents<'c>(context: &'c Context, root: OperationRef<'c, '_>) {
    for op in nested_ops(root)
        .into_iter()
        .filter(|op| tile_ir::is(op, tile_ir::math::FPowIOperation::name))
    {
        let Some(exponent) = op.operand_at(1) else { continue };
        let Ok(width) = IntegerType::try_from(exponent.r#type()).map(|ty| ty.width()) else {
            continue;
        };
        if width >= INT_BITS {
            continue;
        }
        let int: Type = IntegerType::new(context, INT_BITS).into();
        let b = super::builder::Builder {
            context,
            location: op.location(),
            threads: None,
        };
        let widened = b.cast(super::builder::At::before(op), tile_ir::arith::extsi, exponent, int);
        set_operand(op, 1, widened);
    }
}

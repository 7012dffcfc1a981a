//! Integer divisions the CPU reference runs natively get a divisor that cannot trap.
//!
//! A division or remainder by zero (and a signed one of the type's minimum by -1) is undefined
//! upstream, and the program's results with it: any value is a correct one. But x86's `div` and
//! `idiv` trap on it (SIGFPE), which kills `tile-run` itself, and the tools never end in a signal
//! (issue 11; the fuzzer's seed 15151, case 9535: `arith.remui %bz, %b` with `%b = %bz / 3`, zero
//! in the first blocks). A divisor that is a constant 0 is an error at the op in every lowering; a
//! run-time zero is replaced, before the CPU lowering, by the largest divisor of its type (all
//! ones unsigned, the maximum signed), so that a count divided by it (a grid, a trip count) is at
//! most 1: with 1 in its place a grid and a loop the size of their dividends ran the CPU reference's
//! gemms for minutes (the fuzzer's seed 4344, case 7797). A signed division of the minimum by -1
//! gets 1. The interpreter still reports such a program as undefined; Vulkan does not trap.

use melior::{
    Context,
    dialect::arith,
    ir::{
        Module, Type, Value, ValueLike,
        operation::{OperationLike, OperationRef},
        r#type::IntegerType,
    },
};
use tile_dialect::ops::{constant_integer, find_ops, set_operand};

/// The integer divisions and remainders, and whether each is signed.
const DIVISIONS: &[(&str, bool)] = &[
    ("arith.divui", false),
    ("arith.remui", false),
    ("arith.ceildivui", false),
    ("arith.divsi", true),
    ("arith.remsi", true),
    ("arith.ceildivsi", true),
    ("arith.floordivsi", true),
    ("index.divu", false),
    ("index.remu", false),
    ("index.ceildivu", false),
    ("index.divs", true),
    ("index.rems", true),
    ("index.ceildivs", true),
    ("index.floordivs", true),
];

/// Replaces the divisor `d` of every integer division of `module` that may trap by
/// `select(d == 0, MAX, d)` (and, signed, by 1 where `n == MIN` and `d == -1`).
pub fn guard(context: &Context, module: &Module) {
    for (name, signed) in DIVISIONS {
        for division in find_ops(module.as_operation(), name) {
            if division.operand_count() != 2 {
                continue;
            }
            let (Ok(dividend), Ok(divisor)) = (division.operand(0), division.operand(1)) else {
                continue;
            };
            let safe = match constant_integer(divisor) {
                Some(value) => value != 0 && !(*signed && value == -1),
                None => false,
            };
            if !safe {
                let guarded = guarded_divisor(context, division, dividend, divisor, *signed);
                set_operand(division, 1, guarded);
            }
        }
    }
}

/// Builds the guarded divisor before `division`.
fn guarded_divisor<'c, 'a>(
    context: &'c Context,
    division: OperationRef<'c, 'a>,
    dividend: Value<'c, 'a>,
    divisor: Value<'c, 'a>,
    signed: bool,
) -> Value<'c, 'a> {
    let before = crate::before::Before::new(context, division);
    let location = before.location;
    let r#type: Type<'c> = divisor.r#type();
    let insert = |op| before.value(op);
    let constant = |value: i64| before.constant(r#type, value);
    let equal = |a, b| insert(arith::cmpi(context, arith::CmpiPredicate::Eq, a, b, location));
    let width = IntegerType::try_from(r#type).map_or(64, |integer| integer.width());
    let (minimum, maximum) = match (signed, width >= 64) {
        (false, _) => (0, -1),
        (true, true) => (i64::MIN, i64::MAX),
        (true, false) => (-(1i64 << (width - 1)), (1i64 << (width - 1)) - 1),
    };
    let zero = equal(divisor, constant(0));
    let guarded = insert(arith::select(zero, constant(maximum), divisor, location));
    if !signed {
        return guarded;
    }
    let overflows = insert(arith::andi(
        equal(dividend, constant(minimum)),
        equal(divisor, constant(-1)),
        location,
    ));
    insert(arith::select(overflows, constant(1), guarded, location))
}

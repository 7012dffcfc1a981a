//! A layout map flattened for evaluation on every element of a tile.
//!
//! [`Expr::eval`] walks a tree of boxed nodes; a layout's table evaluates its thread map (once per
//! replica) and its slot map on every element, tens of thousands of times per layout, and the tree
//! walk was the largest single cost of compiling an attention kernel. A [`Program`] is the same
//! expression in postfix order, with a constant right operand folded into its operator (`x mod 16`
//! one step) and division by a power of two as a mask or a shift. It gives exactly what
//! [`Expr::eval`] gives, by construction and by the test below.

use super::Expr;

/// One step of a [`Program`]: push a value, or combine the top of the stack.
#[derive(Clone, Copy, Debug)]
enum Step {
    Dim(usize),
    Symbol(usize),
    Constant(i64),
    Add,
    Mul,
    Mod,
    FloorDiv,
    CeilDiv,
    AddConstant(i64),
    MulConstant(i64),
    /// `mod` by a power of two.
    Mask(i64),
    /// `floordiv` by a power of two.
    Shift(u32),
    ModConstant(i64),
    FloorDivConstant(i64),
}

/// An [`Expr`] in postfix order.
#[derive(Clone, Debug)]
pub struct Program {
    steps: Vec<Step>,
}

impl Program {
    /// Flattens `expr`.
    pub fn of(expr: &Expr) -> Program {
        let mut steps = Vec::new();
        flatten(expr, &mut steps);
        Program { steps }
    }

    /// Returns the value at indices `dims` and symbols `symbols` (as [`Expr::eval`]); `stack` is
    /// scratch space, reused across calls.
    pub fn eval(&self, dims: &[i64], symbols: &[i64], stack: &mut Vec<i64>) -> i64 {
        stack.clear();
        for step in &self.steps {
            let value = match *step {
                Step::Dim(n) => dims.get(n).copied().unwrap_or(0),
                Step::Symbol(n) => symbols.get(n).copied().unwrap_or(0),
                Step::Constant(value) => value,
                Step::AddConstant(c) => top(stack) + c,
                Step::MulConstant(c) => top(stack) * c,
                Step::Mask(mask) => top(stack) & mask,
                Step::Shift(shift) => top(stack) >> shift,
                Step::ModConstant(c) => modulo(top(stack), c),
                Step::FloorDivConstant(c) => floor_div(top(stack), c),
                Step::Add | Step::Mul | Step::Mod | Step::FloorDiv | Step::CeilDiv => {
                    let b = top(stack);
                    let a = top(stack);
                    match *step {
                        Step::Add => a + b,
                        Step::Mul => a * b,
                        Step::Mod => modulo(a, b),
                        Step::FloorDiv => floor_div(a, b),
                        _ => ceil_div(a, b),
                    }
                }
            };
            stack.push(value);
        }
        stack.pop().unwrap_or(0)
    }
}

fn top(stack: &mut Vec<i64>) -> i64 {
    stack.pop().unwrap_or(0)
}

/// `a mod b` as [`Expr::eval`] computes it (0 for a zero divisor).
pub(super) fn modulo(a: i64, b: i64) -> i64 {
    if b > 0 && b & (b - 1) == 0 {
        a & (b - 1)
    } else if b == 0 {
        0
    } else {
        a.rem_euclid(b)
    }
}

/// `a floordiv b` as [`Expr::eval`] computes it (0 for a zero divisor).
pub(super) fn floor_div(a: i64, b: i64) -> i64 {
    if b > 0 && b & (b - 1) == 0 {
        a >> b.trailing_zeros()
    } else if b == 0 {
        0
    } else {
        a.div_euclid(b)
    }
}

/// `a ceildiv b` as [`Expr::eval`] computes it (0 for a zero divisor).
pub(super) fn ceil_div(a: i64, b: i64) -> i64 {
    if b == 0 { 0 } else { -((-a).div_euclid(b)) }
}

fn flatten(expr: &Expr, steps: &mut Vec<Step>) {
    let binary = |a: &Expr, b: &Expr, steps: &mut Vec<Step>, general: Step| {
        flatten(a, steps);
        flatten(b, steps);
        steps.push(general);
    };
    match expr {
        Expr::Dim(n) => steps.push(Step::Dim(*n)),
        Expr::Symbol(n) => steps.push(Step::Symbol(*n)),
        Expr::Constant(value) => steps.push(Step::Constant(*value)),
        Expr::Add(a, b) => match **b {
            Expr::Constant(c) => {
                flatten(a, steps);
                steps.push(Step::AddConstant(c));
            }
            _ => binary(a, b, steps, Step::Add),
        },
        Expr::Mul(a, b) => match **b {
            Expr::Constant(c) => {
                flatten(a, steps);
                steps.push(Step::MulConstant(c));
            }
            _ => binary(a, b, steps, Step::Mul),
        },
        Expr::Mod(a, b) => match **b {
            Expr::Constant(c) => {
                flatten(a, steps);
                steps.push(if c > 0 && c & (c - 1) == 0 {
                    Step::Mask(c - 1)
                } else {
                    Step::ModConstant(c)
                });
            }
            _ => binary(a, b, steps, Step::Mod),
        },
        Expr::FloorDiv(a, b) => match **b {
            Expr::Constant(c) => {
                flatten(a, steps);
                steps.push(if c > 0 && c & (c - 1) == 0 {
                    Step::Shift(c.trailing_zeros())
                } else {
                    Step::FloorDivConstant(c)
                });
            }
            _ => binary(a, b, steps, Step::FloorDiv),
        },
        Expr::CeilDiv(a, b) => binary(a, b, steps, Step::CeilDiv),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::layout::{constant, dim, symbol};

    /// Expressions built from every node kind, with constant and non-constant right operands,
    /// divisors that are powers of two, other positive numbers, zero and negative.
    fn expressions() -> Vec<Expr> {
        let node = |kind: usize, a: Expr, b: Expr| match kind {
            0 => Expr::Add(Box::new(a), Box::new(b)),
            1 => Expr::Mul(Box::new(a), Box::new(b)),
            2 => Expr::Mod(Box::new(a), Box::new(b)),
            3 => Expr::FloorDiv(Box::new(a), Box::new(b)),
            _ => Expr::CeilDiv(Box::new(a), Box::new(b)),
        };
        let leaves = [
            dim(0),
            dim(1),
            symbol(0),
            constant(-3),
            constant(0),
            constant(1),
            constant(8),
            constant(6),
            dim(5),
        ];
        let mut expressions = Vec::new();
        for kind in 0..5 {
            for a in &leaves {
                for b in &leaves {
                    let inner = node(kind, a.clone(), b.clone());
                    expressions.push(inner.clone());
                    for outer in 0..5 {
                        expressions.push(node(outer, inner.clone(), constant(16)));
                        expressions.push(node(outer, dim(1), inner.clone()));
                    }
                }
            }
        }
        expressions.push(dim(0).floor_div(16) * 32 + dim(0).modulo(8) * 4 + dim(1).modulo(8).floor_div(2));
        expressions
    }

    #[test]
    fn a_program_evaluates_as_its_expression() {
        let mut stack = Vec::new();
        for expr in expressions() {
            let program = Program::of(&expr);
            for x in -20..20 {
                for y in [-9, -1, 0, 1, 2, 7, 16, 33] {
                    for s in [0, 3] {
                        let (dims, symbols) = ([x, y], [s]);
                        assert_eq!(
                            program.eval(&dims, &symbols, &mut stack),
                            expr.eval(&dims, &symbols),
                            "{expr:?} at {dims:?} {symbols:?}"
                        );
                    }
                }
            }
        }
    }
}

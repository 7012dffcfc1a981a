//! Affine index expressions that Rust can evaluate: the thread and slot maps of a fragment layout.
//!
//! An [`Expr`] is the Rust twin of an MLIR `AffineExpr`: converting one into the other and back
//! gives an equal expression (MLIR may fold constants on the way in). Layout inference and the
//! lowerings evaluate layouts on every element of a (static, small) tile, which is cheap in Rust
//! and needs no affine prover.

use melior::{Context, ir::AffineExpr};
use std::ops::{Add, Mul};

/// An affine expression over indices `d0..` and symbols `s0..`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Expr {
    /// Index `d<n>`.
    Dim(usize),
    /// Symbol `s<n>` (the replica of a replicated layout).
    Symbol(usize),
    /// A constant.
    Constant(i64),
    /// `a + b`.
    Add(Box<Expr>, Box<Expr>),
    /// `a * b`.
    Mul(Box<Expr>, Box<Expr>),
    /// `a mod b` (non-negative for a positive `b`).
    Mod(Box<Expr>, Box<Expr>),
    /// `a floordiv b`.
    FloorDiv(Box<Expr>, Box<Expr>),
    /// `a ceildiv b`.
    CeilDiv(Box<Expr>, Box<Expr>),
}

/// Returns index `d<n>`.
pub fn dim(n: usize) -> Expr {
    Expr::Dim(n)
}

/// Returns symbol `s<n>`.
pub fn symbol(n: usize) -> Expr {
    Expr::Symbol(n)
}

/// Returns a constant.
pub fn constant(value: i64) -> Expr {
    Expr::Constant(value)
}

impl Add for Expr {
    type Output = Expr;
    fn add(self, rhs: Expr) -> Expr {
        match (self, rhs) {
            (Expr::Constant(0), other) | (other, Expr::Constant(0)) => other,
            (Expr::Constant(a), Expr::Constant(b)) => Expr::Constant(a + b),
            (a, b) => Expr::Add(Box::new(a), Box::new(b)),
        }
    }
}

impl Add<i64> for Expr {
    type Output = Expr;
    fn add(self, rhs: i64) -> Expr {
        self + Expr::Constant(rhs)
    }
}

impl Mul<i64> for Expr {
    type Output = Expr;
    fn mul(self, rhs: i64) -> Expr {
        match (self, rhs) {
            (_, 0) => Expr::Constant(0),
            (expr, 1) => expr,
            (Expr::Constant(a), b) => Expr::Constant(a * b),
            (a, b) => Expr::Mul(Box::new(a), Box::new(Expr::Constant(b))),
        }
    }
}

impl Expr {
    /// Returns `self mod divisor`.
    pub fn modulo(self, divisor: i64) -> Expr {
        match self {
            _ if divisor == 1 => Expr::Constant(0),
            Expr::Constant(a) => Expr::Constant(a.rem_euclid(divisor)),
            a => Expr::Mod(Box::new(a), Box::new(Expr::Constant(divisor))),
        }
    }

    /// Returns `self floordiv divisor`.
    pub fn floor_div(self, divisor: i64) -> Expr {
        match self {
            a if divisor == 1 => a,
            Expr::Constant(a) => Expr::Constant(a.div_euclid(divisor)),
            a => Expr::FloorDiv(Box::new(a), Box::new(Expr::Constant(divisor))),
        }
    }

    /// Returns the value at indices `dims` and symbols `symbols`.
    pub fn eval(&self, dims: &[i64], symbols: &[i64]) -> i64 {
        let binary = |a: &Expr, b: &Expr| (a.eval(dims, symbols), b.eval(dims, symbols));
        match self {
            Expr::Dim(n) => dims.get(*n).copied().unwrap_or(0),
            Expr::Symbol(n) => symbols.get(*n).copied().unwrap_or(0),
            Expr::Constant(value) => *value,
            Expr::Add(a, b) => {
                let (a, b) = binary(a, b);
                a + b
            }
            Expr::Mul(a, b) => {
                let (a, b) = binary(a, b);
                a * b
            }
            Expr::Mod(a, b) => {
                let (a, b) = binary(a, b);
                super::program::modulo(a, b)
            }
            Expr::FloorDiv(a, b) => {
                let (a, b) = binary(a, b);
                super::program::floor_div(a, b)
            }
            Expr::CeilDiv(a, b) => {
                let (a, b) = binary(a, b);
                super::program::ceil_div(a, b)
            }
        }
    }

    /// Returns the expression with every index `d<n>` replaced by `replace(n)`.
    pub fn substitute(&self, replace: &dyn Fn(usize) -> Expr) -> Expr {
        let binary = |a: &Expr, b: &Expr| (Box::new(a.substitute(replace)), Box::new(b.substitute(replace)));
        match self {
            Expr::Dim(n) => replace(*n),
            Expr::Symbol(_) | Expr::Constant(_) => self.clone(),
            Expr::Add(a, b) => {
                let (a, b) = binary(a, b);
                *a + *b
            }
            Expr::Mul(a, b) => {
                let (a, b) = binary(a, b);
                match (*a, *b) {
                    (a, Expr::Constant(c)) => a * c,
                    (Expr::Constant(c), b) => b * c,
                    (a, b) => Expr::Mul(Box::new(a), Box::new(b)),
                }
            }
            Expr::Mod(a, b) => {
                let (a, b) = binary(a, b);
                match *b {
                    Expr::Constant(c) => a.modulo(c),
                    b => Expr::Mod(a, Box::new(b)),
                }
            }
            Expr::FloorDiv(a, b) => {
                let (a, b) = binary(a, b);
                match *b {
                    Expr::Constant(c) => a.floor_div(c),
                    b => Expr::FloorDiv(a, Box::new(b)),
                }
            }
            Expr::CeilDiv(a, b) => {
                let (a, b) = binary(a, b);
                Expr::CeilDiv(a, b)
            }
        }
    }

    /// Returns the expression with symbol `s0` replaced by `replacement`.
    pub fn substitute_symbol(&self, replacement: &Expr) -> Expr {
        match self {
            Expr::Symbol(0) => replacement.clone(),
            Expr::Dim(_) | Expr::Symbol(_) | Expr::Constant(_) => self.clone(),
            Expr::Add(a, b) => Expr::Add(
                Box::new(a.substitute_symbol(replacement)),
                Box::new(b.substitute_symbol(replacement)),
            ),
            Expr::Mul(a, b) => Expr::Mul(
                Box::new(a.substitute_symbol(replacement)),
                Box::new(b.substitute_symbol(replacement)),
            ),
            Expr::Mod(a, b) => Expr::Mod(
                Box::new(a.substitute_symbol(replacement)),
                Box::new(b.substitute_symbol(replacement)),
            ),
            Expr::FloorDiv(a, b) => Expr::FloorDiv(
                Box::new(a.substitute_symbol(replacement)),
                Box::new(b.substitute_symbol(replacement)),
            ),
            Expr::CeilDiv(a, b) => Expr::CeilDiv(
                Box::new(a.substitute_symbol(replacement)),
                Box::new(b.substitute_symbol(replacement)),
            ),
        }
    }

    /// Returns the expression simplified for indices `d<n>` in `0..dims[n]` and symbols `s<n>` in
    /// `0..symbols[n]`: a `mod` of a value already below the divisor is the value, a `floordiv` of
    /// one is zero (what MLIR cannot fold without the bounds).
    pub fn simplify(&self, dims: &[i64], symbols: &[i64]) -> Expr {
        self.simplify_with_range(dims, symbols).0
    }

    fn simplify_with_range(&self, dims: &[i64], symbols: &[i64]) -> (Expr, (i64, i64)) {
        let bound = |sizes: &[i64], n: usize| (0, sizes.get(n).map_or(i64::MAX / 4, |size| size - 1));
        match self {
            Expr::Dim(n) => (self.clone(), bound(dims, *n)),
            Expr::Symbol(n) => (self.clone(), bound(symbols, *n)),
            Expr::Constant(value) => (self.clone(), (*value, *value)),
            Expr::Add(a, b) => {
                let ((a, (al, ah)), (b, (bl, bh))) = (
                    a.simplify_with_range(dims, symbols),
                    b.simplify_with_range(dims, symbols),
                );
                (a + b, (al.saturating_add(bl), ah.saturating_add(bh)))
            }
            Expr::Mul(a, b) => {
                let ((a, (al, ah)), (b, (bl, bh))) = (
                    a.simplify_with_range(dims, symbols),
                    b.simplify_with_range(dims, symbols),
                );
                let products = [
                    al.saturating_mul(bl),
                    al.saturating_mul(bh),
                    ah.saturating_mul(bl),
                    ah.saturating_mul(bh),
                ];
                let range = (
                    *products.iter().min().unwrap_or(&0),
                    *products.iter().max().unwrap_or(&0),
                );
                let product = match (a, b) {
                    (a, Expr::Constant(c)) => a * c,
                    (Expr::Constant(c), b) => b * c,
                    (a, b) => Expr::Mul(Box::new(a), Box::new(b)),
                };
                (product, range)
            }
            Expr::Mod(a, b) | Expr::FloorDiv(a, b) | Expr::CeilDiv(a, b) => {
                let ((a, (al, ah)), (b, _)) = (
                    a.simplify_with_range(dims, symbols),
                    b.simplify_with_range(dims, symbols),
                );
                let Expr::Constant(divisor) = b else {
                    let rebuilt = match self {
                        Expr::Mod(..) => Expr::Mod(Box::new(a), Box::new(b)),
                        Expr::FloorDiv(..) => Expr::FloorDiv(Box::new(a), Box::new(b)),
                        _ => Expr::CeilDiv(Box::new(a), Box::new(b)),
                    };
                    return (rebuilt, (i64::MIN / 4, i64::MAX / 4));
                };
                let below = al >= 0 && ah < divisor && divisor > 0;
                // (x * k + y) mod k is y mod k.
                if let (Expr::Mod(..), Expr::Add(x, y)) = (self, &a) {
                    if divisor > 0 && x.is_multiple_of(divisor) {
                        return Expr::Mod(y.clone(), Box::new(constant(divisor))).simplify_with_range(dims, symbols);
                    }
                    if divisor > 0 && y.is_multiple_of(divisor) {
                        return Expr::Mod(x.clone(), Box::new(constant(divisor))).simplify_with_range(dims, symbols);
                    }
                }
                match self {
                    Expr::Mod(..) if below => (a, (al, ah)),
                    Expr::Mod(..) => (a.modulo(divisor), (0, divisor - 1)),
                    Expr::FloorDiv(..) if below => (constant(0), (0, 0)),
                    Expr::FloorDiv(..) => (a.floor_div(divisor), (al.div_euclid(divisor), ah.div_euclid(divisor))),
                    _ => (
                        Expr::CeilDiv(Box::new(a), Box::new(constant(divisor))),
                        (i64::MIN / 4, i64::MAX / 4),
                    ),
                }
            }
        }
    }

    /// Returns whether the expression is a multiple of `factor` for every value of its indices.
    pub fn is_multiple_of(&self, factor: i64) -> bool {
        match self {
            Expr::Constant(value) => value % factor == 0,
            Expr::Mul(a, b) => a.is_multiple_of(factor) || b.is_multiple_of(factor),
            Expr::Add(a, b) => a.is_multiple_of(factor) && b.is_multiple_of(factor),
            _ => factor == 1,
        }
    }

    /// Returns whether the expression mentions a symbol.
    pub fn has_symbol(&self) -> bool {
        match self {
            Expr::Symbol(_) => true,
            Expr::Dim(_) | Expr::Constant(_) => false,
            Expr::Add(a, b) | Expr::Mul(a, b) | Expr::Mod(a, b) | Expr::FloorDiv(a, b) | Expr::CeilDiv(a, b) => {
                a.has_symbol() || b.has_symbol()
            }
        }
    }

    /// Creates the MLIR affine expression.
    pub fn to_mlir<'c>(&self, context: &'c Context) -> AffineExpr<'c> {
        let binary = |a: &Expr, b: &Expr| (a.to_mlir(context), b.to_mlir(context));
        match self {
            Expr::Dim(n) => AffineExpr::dim(context, *n),
            Expr::Symbol(n) => AffineExpr::symbol(context, *n),
            Expr::Constant(value) => AffineExpr::constant(context, *value),
            Expr::Add(a, b) => {
                let (a, b) = binary(a, b);
                a + b
            }
            Expr::Mul(a, b) => {
                let (a, b) = binary(a, b);
                a * b
            }
            Expr::Mod(a, b) => {
                let (a, b) = binary(a, b);
                AffineExpr::modulo(a, b)
            }
            Expr::FloorDiv(a, b) => {
                let (a, b) = binary(a, b);
                AffineExpr::floor_div(a, b)
            }
            Expr::CeilDiv(a, b) => {
                let (a, b) = binary(a, b);
                AffineExpr::ceil_div(a, b)
            }
        }
    }

    /// Returns the Rust twin of an MLIR affine expression.
    pub fn from_mlir(expr: AffineExpr) -> Expr {
        let binary = || {
            (
                Box::new(Expr::from_mlir(expr.lhs())),
                Box::new(Expr::from_mlir(expr.rhs())),
            )
        };
        if expr.is_dim() {
            Expr::Dim(expr.dim_position())
        } else if expr.is_symbol() {
            Expr::Symbol(expr.symbol_position())
        } else if expr.is_constant() {
            Expr::Constant(expr.constant_value())
        } else if expr.is_add() {
            let (a, b) = binary();
            Expr::Add(a, b)
        } else if expr.is_mul() {
            let (a, b) = binary();
            Expr::Mul(a, b)
        } else if expr.is_mod() {
            let (a, b) = binary();
            Expr::Mod(a, b)
        } else if expr.is_floor_div() {
            let (a, b) = binary();
            Expr::FloorDiv(a, b)
        } else {
            let (a, b) = binary();
            Expr::CeilDiv(a, b)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluates_the_wgmma_accumulator_thread_map() {
        // (i floordiv 16) * 32 + (i mod 8) * 4 + (j mod 8) floordiv 2
        let thread = dim(0).floor_div(16) * 32 + dim(0).modulo(8) * 4 + dim(1).modulo(8).floor_div(2);
        assert_eq!(thread.eval(&[0, 0], &[]), 0);
        assert_eq!(thread.eval(&[9, 3], &[]), 4 + 1);
        assert_eq!(thread.eval(&[17, 15], &[]), 32 + 4 + 3);
    }

    #[test]
    fn mod_and_floordiv_are_euclidean_for_every_sign_and_divisor() {
        let (a, b) = (dim(0), dim(1));
        let modulo = Expr::Mod(Box::new(a.clone()), Box::new(b.clone()));
        let floor_div = Expr::FloorDiv(Box::new(a), Box::new(b));
        for x in -70..70 {
            for y in [1, 2, 3, 4, 6, 8, 16, 64, 100, -1, -2, -3, -8] {
                assert_eq!(modulo.eval(&[x, y], &[]), x.rem_euclid(y), "{x} mod {y}");
                assert_eq!(floor_div.eval(&[x, y], &[]), x.div_euclid(y), "{x} floordiv {y}");
            }
            assert_eq!(modulo.eval(&[x, 0], &[]), 0);
            assert_eq!(floor_div.eval(&[x, 0], &[]), 0);
        }
    }

    #[test]
    fn substitution_folds_constants() {
        let slot = dim(1).floor_div(8) * 4 + dim(0).modulo(16).floor_div(8) * 2 + dim(1).modulo(2);
        let row_only = slot.substitute(&|n| if n == 1 { constant(0) } else { dim(n) });
        assert_eq!(row_only, dim(0).modulo(16).floor_div(8) * 2);
    }

    #[test]
    fn simplification_drops_what_the_bounds_make_trivial() {
        // For a 64-row tile: (i floordiv 64) * 128 + (i mod 64) floordiv 16 is i floordiv 16.
        let thread = dim(0).floor_div(64) * 128 + dim(0).modulo(64).floor_div(16);
        assert_eq!(thread.simplify(&[64, 16], &[]), dim(0).floor_div(16));
        assert_eq!(thread.simplify(&[128, 16], &[]), thread);
    }

    #[test]
    fn round_trips_through_mlir() {
        let context = Context::new();
        let expr = dim(0).floor_div(16) * 32 + symbol(0) + dim(1).modulo(8);
        let back = Expr::from_mlir(expr.to_mlir(&context));
        for (i, j, s) in [(0, 0, 0), (17, 5, 3), (63, 63, 1)] {
            assert_eq!(back.eval(&[i, j], &[s]), expr.eval(&[i, j], &[s]));
        }
    }
}

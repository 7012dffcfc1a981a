//! The text builder the GEMM kernel renderers write MLIR with: fresh SSA names, one op a line.
//! (Rendering text and parsing it once is far shorter than building the same ops through the C
//! API, and the parser verifies the result.)

use super::plan::Scalar;

/// MLIR text under construction, indented for a `gpu.func` body.
pub struct Text {
    /// The text so far.
    pub out: String,
    next: usize,
}

impl Text {
    /// An empty body.
    pub fn new() -> Self {
        Text { out: String::new(), next: 0 }
    }

    /// A fresh SSA name `%{stem}N`.
    pub fn fresh(&mut self, stem: &str) -> String {
        self.next += 1;
        format!("%{stem}{}", self.next)
    }

    /// Appends one line of the body.
    pub fn line(&mut self, line: impl AsRef<str>) {
        self.out.push_str("      ");
        self.out.push_str(line.as_ref());
        self.out.push('\n');
    }

    /// Emits `value = op` and returns the value's name.
    pub fn let_(&mut self, stem: &str, op: impl AsRef<str>) -> String {
        let name = self.fresh(stem);
        self.line(format!("{name} = {}", op.as_ref()));
        name
    }

    /// An `index` constant.
    pub fn index(&mut self, value: i64) -> String {
        self.let_("c", format!("arith.constant {value} : index"))
    }

    /// An `i64` constant.
    pub fn i64(&mut self, value: i64) -> String {
        self.let_("l", format!("arith.constant {value} : i64"))
    }

    /// `arith.{op}` on two indices.
    pub fn binary(&mut self, op: &str, a: &str, b: &str) -> String {
        self.let_("v", format!("arith.{op} {a}, {b} : index"))
    }

    /// The trip count of the main loop from `lower` by `step` to `upper`: a constant (also returned
    /// as a number) or, for a host-computed bound `sizes[i]`, `max(ceildiv(upper - lower, step), 0)`.
    /// `zero` is an index zero already emitted.
    pub fn trip_count(&mut self, (lower, step, upper): (i64, i64, Scalar), sizes: &[String], zero: &str) -> (String, Option<i64>) {
        match upper {
            Scalar::Const(upper) => {
                let count = if upper > lower { (upper - lower + step - 1) / step } else { 0 };
                (self.index(count), Some(count))
            }
            Scalar::Param(index) => {
                let lower = self.index(lower);
                let step = self.index(step);
                let span = self.binary("subi", &sizes[index], &lower);
                let count = self.binary("ceildivsi", &span, &step);
                (self.binary("maxsi", &count, zero), None)
            }
        }
    }
}

impl Default for Text {
    fn default() -> Self {
        Self::new()
    }
}

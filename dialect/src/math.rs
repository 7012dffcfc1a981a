//! Upstream's `math` rewrites that MLIR's C API does not reach: the expansions of
//! `math::populateExpansionPatterns` (what `math-expand-ops` runs) and the polynomial
//! approximations of `populateMathPolynomialApproximationPatterns`, applied to chosen ops only.
//!
//! The passes that lower `math` ops for a GPU target use them for the functions the hardware has
//! no instruction for, so that no kernel needs a vendor math library.

use melior::{StringRef, ir::operation::OperationRef};

/// Rewrites every op under `root` named in `seeds` (full op names, `math.erf`), and every op those
/// rewrites create, with upstream's expansions of the `expand` mnemonics (`tan`, `powf`, ...) and
/// polynomial approximations of the `approximate` op names (`math.erf`, ...). Other ops are left
/// alone, so an approximation of `math.expm1` may approximate the `math.exp` it creates while the
/// kernel's own `math.exp` stays for a hardware instruction.
pub fn rewrite(root: OperationRef, seeds: &[&str], expand: &[&str], approximate: &[&str]) -> crate::Result<()> {
    let (seeds, expand, approximate) = (seeds.join(","), expand.join(","), approximate.join(","));
    let converged = unsafe {
        crate::ffi::tileShimRewriteMath(
            root.to_raw(),
            StringRef::new(&seeds).to_raw(),
            StringRef::new(&expand).to_raw(),
            StringRef::new(&approximate).to_raw(),
        )
    };
    if converged {
        Ok(())
    } else {
        Err(crate::Error::Rewrite(format!(
            "upstream's math rewrites of {seeds} did not converge"
        )))
    }
}

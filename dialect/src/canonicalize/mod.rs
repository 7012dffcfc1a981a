//! Canonicalization patterns of the tile ops, written as Rust rewrite patterns.
//!
//! They are the ops' canonicalizers (upstream `-canonicalize` runs them through the C++ op classes)
//! and the content of the `tile-canonicalize` pass. Each rule is a function
//! `fn(op, rewriter) -> bool` that returns true when it rewrote.

mod overwritten_fill;
mod zero_trip_loop;

use crate::diagnostics::catch_panic;
use melior::{
    Context, PatternRewriter, RewritePattern, RewritePatternSet, RewriterBase, create_op_rewrite_pattern,
    ir::operation::OperationRef,
};

/// A rewrite rule: looks at one op and rewrites it, returning true when it did.
pub type Rule = fn(OperationRef, &RewriterBase) -> bool;

/// The rules, by the op they are rooted at.
const RULES: &[(&str, &str, Rule)] = &[
    (
        "tile.fill",
        "erase-overwritten-fill",
        overwritten_fill::erase_overwritten_fill,
    ),
    (
        "tile.pipelined",
        "erase-zero-trip-loop",
        zero_trip_loop::erase_zero_trip_loop,
    ),
];

/// Returns the names of every rule, for documentation and tests.
pub fn rule_names() -> impl Iterator<Item = &'static str> {
    RULES.iter().map(|(_, name, _)| *name)
}

/// Wraps `rule` as an MLIR pattern rooted at `root`. A panic in the rule counts as "no match".
fn pattern(context: &Context, root: &str, rule: Rule) -> RewritePattern {
    create_op_rewrite_pattern(
        root,
        1,
        context,
        move |_, op, rewriter| {
            catch_panic(|| {
                let op = unsafe { OperationRef::from_raw(op) };
                let rewriter = unsafe { PatternRewriter::from_raw(rewriter) };
                rule(op, &rewriter.as_rewriter_base())
            })
            .unwrap_or(false)
        },
        &[],
    )
}

/// Returns the patterns rooted at the op named `op_name`.
pub fn patterns_for(context: &Context, op_name: &str) -> Vec<RewritePattern> {
    RULES
        .iter()
        .filter(|(root, _, _)| *root == op_name)
        .map(|(root, _, rule)| pattern(context, root, *rule))
        .collect()
}

/// Adds every tile canonicalization pattern to `set`.
pub fn populate(context: &Context, set: &RewritePatternSet) {
    for (root, _, rule) in RULES {
        set.add(pattern(context, root, *rule));
    }
}

/// Applies every tile canonicalization pattern, and folding, greedily to `op` and what it holds.
pub fn apply(op: OperationRef) -> crate::Result<()> {
    let frozen = crate::ops::with_context(op, |context| {
        let set = RewritePatternSet::new(context);
        populate(context, &set);
        set.freeze()
    });
    let config = melior::GreedyRewriteDriverConfig::new();
    melior::apply_patterns_and_fold_greedily_with_op(op, frozen, &config).map_err(crate::Error::Melior)
}

//! The layouts each target's matrix instruction imposes on the operands of one `tile.gemm`: the
//! anchors layout inference starts from. Each target's rule lives in its own module (the target
//! value names it); a gemm no instruction of the target can take imposes nothing (its kernel
//! takes the plain strategy, whose layouts are the blocked ones).

use super::Layout;
use crate::target::Target;
use melior::ir::{
    Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::positions::OperationAt;
use tile_dialect::{
    element::Element,
    level::{MemoryLevel, memory_level},
    ops::memref_shape,
};

/// One operand's wanted layout.
pub struct Anchor<'c, 'a> {
    /// The tile.
    pub tile: Value<'c, 'a>,
    /// Its layout.
    pub layout: Layout,
    /// Whether the instruction only reads the tile fastest in this layout and reads any other
    /// correctly (an operand stored with K along its rows, read as vectors): a tile that gemms
    /// prefer in different layouts keeps the first gemm's, and a layout the input records stands;
    /// otherwise the instruction reads no other, and a tile wanted two ways is an error.
    pub preferred: bool,
}

impl<'c, 'a> Anchor<'c, 'a> {
    /// The layout the instruction needs `tile` in.
    pub fn required(tile: Value<'c, 'a>, layout: Layout) -> Self {
        Anchor {
            tile,
            layout,
            preferred: false,
        }
    }

    /// The layout the instruction reads `tile` fastest in (see [`Anchor::preferred`]).
    pub fn preferred(tile: Value<'c, 'a>, layout: Layout) -> Self {
        Anchor {
            tile,
            layout,
            preferred: true,
        }
    }
}

/// The gemm's operands and their shapes.
pub struct Operands<'c, 'a> {
    /// A (MxK, KxM with `transpose_a`).
    pub a: Value<'c, 'a>,
    /// B (KxN, NxK with `transpose_b`).
    pub b: Value<'c, 'a>,
    /// The accumulator (MxN).
    pub c: Value<'c, 'a>,
    /// Rows of the accumulator.
    pub m: i64,
    /// Columns of the accumulator.
    pub n: i64,
    /// The reduced dimension.
    pub k: i64,
    /// A is given as KxM.
    pub transpose_a: bool,
    /// B is given as NxK.
    pub transpose_b: bool,
}

/// Returns `gemm`'s operands, or `None` where they are not two-dimensional.
pub fn operands<'c, 'a>(gemm: OperationRef<'c, 'a>) -> Option<Operands<'c, 'a>> {
    let (a, b, c) = (gemm.operand_at(0)?, gemm.operand_at(1)?, gemm.operand_at(2)?);
    let transpose_a = gemm.attribute("transpose_a").is_ok();
    let transpose_b = gemm.attribute("transpose_b").is_ok();
    let [m, n] = memref_shape(c)[..] else { return None };
    let [a0, a1] = memref_shape(a)[..] else { return None };
    let k = if transpose_a { a0 } else { a1 };
    Some(Operands {
        a,
        b,
        c,
        m,
        n,
        k,
        transpose_a,
        transpose_b,
    })
}

/// Whether `value` is a shared tile.
pub fn is_shared(value: Value) -> bool {
    memory_level(value.r#type()) == Some(MemoryLevel::Shared)
}

/// Whether `value` holds f16 or bf16.
pub fn is_16_bit(value: Value) -> bool {
    crate::support::element_of(value).is_some_and(|element| matches!(element, Element::F16 | Element::BF16))
}

/// One gemm as a target's anchor rule sees it: its operands, its block's `threads`, whether the
/// kernel has several gemms (`chained`: attention, GEMM chains, where every gemm splits its rows
/// alone over the warps, TileLang's "full row" policy, so that one gemm's row statistics and the
/// next gemm's accumulator rows lie on the same threads), and `tma`, which says whether TMA fills
/// a shared tile whose K is the given dimension (TMA targets: swizzled boxes; otherwise the
/// threads' column slabs).
pub struct Site<'c, 'a, 't> {
    /// The `tile.gemm`.
    pub gemm: OperationRef<'c, 'a>,
    /// Its operands and shapes.
    pub ops: Operands<'c, 'a>,
    /// Threads of the block.
    pub threads: i64,
    /// Whether the kernel has several gemms.
    pub chained: bool,
    /// Whether TMA fills a shared tile whose K is the given dimension.
    pub tma: &'t dyn Fn(Value<'c, 'a>, usize) -> bool,
    /// The workgroup memory a block may use ([`Target::shared_bytes`]).
    pub shared_bytes: i64,
}

/// A target's rule for the layouts a gemm's matrix instruction imposes
/// ([`crate::target::Target::gemm_anchors`]).
pub type Rule = for<'c, 'a, 't> fn(&Site<'c, 'a, 't>) -> Vec<Anchor<'c, 'a>>;

/// Returns the layouts `gemm` imposes on `target` in a block of `threads` threads (see [`Site`]):
/// nothing where it is no gemm of two matrices, else the target's rule's.
pub fn gemm_anchors<'c, 'a>(
    gemm: OperationRef<'c, 'a>,
    target: &Target,
    threads: i64,
    chained: bool,
    tma: &dyn Fn(Value<'c, 'a>, usize) -> bool,
) -> Vec<Anchor<'c, 'a>> {
    let Some(ops) = operands(gemm) else { return Vec::new() };
    (target.gemm_anchors)(&Site {
        gemm,
        ops,
        threads,
        chained,
        tma,
        shared_bytes: target.shared_bytes(gemm),
    })
}

/// Whether a gemm multiplies f16 or bf16 matrices into an f32 accumulator (the product every
/// target's matrix instructions take).
pub fn sixteen_bit_product(ops: &Operands) -> bool {
    crate::support::element_of(ops.c) == Some(Element::F32) && is_16_bit(ops.a) && is_16_bit(ops.b)
}

/// A target without matrix instructions: no gemm imposes a layout.
pub fn no_anchors<'c, 'a>(_: &Site<'c, 'a, '_>) -> Vec<Anchor<'c, 'a>> {
    Vec::new()
}

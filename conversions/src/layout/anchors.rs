//! The layouts each target's matrix instruction imposes on the operands of one `tile.gemm`: the
//! anchors layout inference starts from. A gemm no instruction of the target can take imposes
//! nothing (its kernel takes the plain strategy, whose layouts are the blocked ones).

use super::Layout;
use super::atoms;
use melior::ir::{
    Value, ValueLike,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::{
    element::Element,
    layout::SharedLayout,
    level::{MemoryLevel, memory_level},
    ops::memref_shape,
};

/// One operand's wanted layout.
pub struct Anchor<'c, 'a> {
    /// The tile.
    pub tile: Value<'c, 'a>,
    /// Its layout.
    pub layout: Layout,
}

/// The gemm's operands and their shapes.
struct Operands<'c, 'a> {
    a: Value<'c, 'a>,
    b: Value<'c, 'a>,
    c: Value<'c, 'a>,
    m: i64,
    n: i64,
    k: i64,
    transpose_a: bool,
    transpose_b: bool,
}

fn operands<'c, 'a>(gemm: OperationRef<'c, 'a>) -> Option<Operands<'c, 'a>> {
    let (a, b, c) = (gemm.operand(0).ok()?, gemm.operand(1).ok()?, gemm.operand(2).ok()?);
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

fn is_shared(value: Value) -> bool {
    memory_level(value.r#type()) == Some(MemoryLevel::Shared)
}

fn is_16_bit(value: Value) -> bool {
    crate::support::element_of(value).is_some_and(|element| matches!(element, Element::F16 | Element::BF16))
}

/// Returns the layouts `gemm` imposes on `chip` in a block of `threads` threads. In a kernel of
/// several gemms (`chained`: attention, GEMM chains) every gemm splits its rows alone over the
/// warps (TileLang's "full row" policy), so that one gemm's row statistics and the next gemm's
/// accumulator rows lie on the same threads; cooperative matrices anchor nothing there (their
/// accumulators are staged through workgroup memory at each gemm; holding a chain's accumulators in
/// matrices is not written yet).
/// `tma` says whether TMA fills a shared tile whose K is the given dimension (sm_90a: swizzled
/// boxes; otherwise the threads' column slabs).
pub fn gemm_anchors<'c, 'a>(
    gemm: OperationRef<'c, 'a>,
    chip: &str,
    threads: i64,
    chained: bool,
    tma: &dyn Fn(Value<'c, 'a>, usize) -> bool,
) -> Vec<Anchor<'c, 'a>> {
    let Some(ops) = operands(gemm) else { return Vec::new() };
    // 8-bit products on sm_90a: wgmma (m64nNk32) where it reads the operands; elsewhere i8 takes
    // mma.sync's m16n8k32, and f8E4M3FN nothing (no rule converts 8-bit floats: the lowering
    // refuses it off wgmma).
    let i8 = crate::support::i8_product(ops.a, ops.b, ops.c);
    if chip == "sm_90a" && crate::support::eight_bit_product(ops.a, ops.b, ops.c) {
        let wgmma = crate::nvgpu::chip::wgmma_reads_eight_bit(is_shared(ops.a), ops.transpose_a, ops.transpose_b);
        let anchors = if wgmma { sm90a(&ops, threads, tma) } else { Vec::new() };
        return if anchors.is_empty() && i8 {
            mma_sync(&ops, threads, chained, 32)
        } else {
            anchors
        };
    }
    if crate::support::element_of(ops.c) != Some(Element::F32) || !is_16_bit(ops.a) || !is_16_bit(ops.b) {
        return Vec::new();
    }
    match chip {
        "sm_90a" => {
            let anchors = sm90a(&ops, threads, tma);
            if anchors.is_empty() {
                mma_sync(&ops, threads, chained, 16)
            } else {
                anchors
            }
        }
        "gfx942" => gfx942(&ops, threads, chained),
        "spirv-coopmat" if !chained => coopmat(gemm, &ops, threads),
        _ => Vec::new(),
    }
}

/// sm_90a: wgmma on warpgroups splitting M; A and B in shared tiles as core matrices (TMA's
/// swizzled boxes where `tma` says TMA fills them, else the threads' column slabs), or (16-bit
/// inputs) A in registers in the accumulator's arrangement. An instruction takes 32 bytes of K.
fn sm90a<'c, 'a>(
    ops: &Operands<'c, 'a>,
    threads: i64,
    tma: &dyn Fn(Value<'c, 'a>, usize) -> bool,
) -> Vec<Anchor<'c, 'a>> {
    let warpgroups = threads / 128;
    let bytes = crate::support::element_of(ops.a).map_or(2, |element| element.bytes() as i64);
    if threads % 128 != 0
        || ops.m % (64 * warpgroups.max(1)) != 0
        || ops.n % 8 != 0
        || ops.n > 256
        || ops.k % (32 / bytes) != 0
    {
        return Vec::new();
    }
    let mut anchors = vec![Anchor {
        tile: ops.c,
        layout: Layout::Fragment(atoms::wgmma_accumulator(ops.m, ops.n, warpgroups)),
    }];
    if !is_shared(ops.a) && !ops.transpose_a && bytes == 2 {
        anchors.push(Anchor {
            tile: ops.a,
            layout: Layout::Fragment(atoms::wgmma_a_operand(ops.m, ops.k, warpgroups)),
        });
    }
    let [a_k, b_k] = crate::support::k_dimensions(ops.transpose_a, ops.transpose_b);
    for (tile, k_dimension) in [(ops.a, a_k), (ops.b, b_k)] {
        let [rows, columns] = memref_shape(tile)[..] else {
            continue;
        };
        if let Some(layout) = is_shared(tile)
            .then(|| crate::nvgpu::chip::operand_layout(rows, columns, tma(tile, k_dimension), bytes))
            .flatten()
        {
            anchors.push(Anchor {
                tile,
                layout: Layout::Shared(layout),
            });
        }
    }
    anchors
}

/// sm_90a, a gemm wgmma cannot take (fewer than 64 rows a warpgroup, a block of warps that are no
/// whole warpgroups, i8 inputs): `mma.sync` on the warps ([`crate::nvgpu::chip::mma_warp_split`];
/// K of `depth` an instruction: 16 for 16-bit inputs, 32 for i8, whose 16x8 accumulator is laid
/// out alike), A and B read from shared tiles as they are stored, or (16-bit) A from registers in
/// the accumulator's arrangement where the warps split M alone.
fn mma_sync<'c, 'a>(ops: &Operands<'c, 'a>, threads: i64, chained: bool, depth: i64) -> Vec<Anchor<'c, 'a>> {
    if ops.k % depth != 0 || crate::support::element_of(ops.a) != crate::support::element_of(ops.b) || !is_shared(ops.b)
    {
        return Vec::new();
    }
    let Some(warps) = crate::nvgpu::chip::mma_warp_split(threads, ops.m, ops.n, chained) else {
        return Vec::new();
    };
    let mut anchors = vec![Anchor {
        tile: ops.c,
        layout: Layout::Fragment(atoms::mma_accumulator(ops.m, ops.n, warps)),
    }];
    if !is_shared(ops.a) && !ops.transpose_a && warps.1 == 1 && depth == 16 {
        anchors.push(Anchor {
            tile: ops.a,
            layout: Layout::Fragment(atoms::mma_a_operand(ops.m, ops.k, warps.0)),
        });
    }
    anchors
}

/// Why `gemm` gets no mfma layout on gfx942 in a block of `threads` threads (`None` when it does,
/// or when it is no gemm the anchors read): the conditions of [`gfx942`], said with what would work.
pub fn mfma_unavailable(gemm: OperationRef, threads: i64, chained: bool) -> Option<String> {
    let ops = operands(gemm)?;
    let [a, b, c] = [ops.a, ops.b, ops.c]
        .map(|value| crate::support::element_of(value).map_or("?".to_owned(), |element| element.to_string()));
    if c != "f32" || !is_16_bit(ops.a) || !is_16_bit(ops.b) || a != b {
        return Some(format!(
            "multiplies {a} by {b} into {c}; mfma on gfx942 takes f16 or bf16 inputs (both alike) with an f32 accumulator"
        ));
    }
    if threads % 64 != 0 || !(64..=1024).contains(&threads) {
        return Some(format!(
            "runs in a block of {threads} threads; mfma on gfx942 needs whole 64-lane waves: use a multiple of 64 threads up to 1024"
        ));
    }
    if gfx942(&ops, threads, chained).is_empty() {
        let waves = threads / 64;
        return Some(format!(
            "has a {}x{} accumulator that {waves} waves cannot split into 32x32 or 16x16 mfma tiles; use multiples of {} rows and columns",
            ops.m,
            ops.n,
            16 * waves
        ));
    }
    None
}

/// gfx942: mfma over waves; A and B in LDS rows padded against bank conflicts, B stored K-major
/// (transposed unless the program gives it as NxK).
fn gfx942<'c, 'a>(ops: &Operands<'c, 'a>, threads: i64, chained: bool) -> Vec<Anchor<'c, 'a>> {
    if threads % 64 != 0 || !(64..=1024).contains(&threads) {
        return Vec::new();
    }
    let split = if chained {
        let waves = threads / 64;
        [crate::amdgpu::config::MFMA_32, crate::amdgpu::config::MFMA_16]
            .into_iter()
            .find(|mfma| ops.m % (waves * mfma.size) == 0 && ops.n % mfma.size == 0)
            .map(|mfma| ((waves, 1), mfma))
            .ok_or(())
    } else {
        crate::amdgpu::config::wave_split(threads, ops.m, ops.n).map_err(|_| ())
    };
    let Ok((waves, mfma)) = split else { return Vec::new() };
    let lds = |transposed| SharedLayout {
        padding: crate::amdgpu::config::ROW_PADDING,
        transposed,
        ..SharedLayout::row_major()
    };
    // The accumulator is the instruction's whatever A and B are (a register A operand is staged).
    // A shared B is laid out so even where A is a fragment (attention's P V).
    let mut anchors = vec![Anchor {
        tile: ops.c,
        layout: Layout::Fragment(atoms::mfma_accumulator(ops.m, ops.n, waves, mfma.size)),
    }];
    if is_shared(ops.a) && is_shared(ops.b) {
        anchors.push(Anchor {
            tile: ops.a,
            layout: Layout::Shared(lds(ops.transpose_a)),
        });
    }
    if is_shared(ops.b) {
        anchors.push(Anchor {
            tile: ops.b,
            layout: Layout::Shared(lds(!ops.transpose_b)),
        });
    }
    anchors
}

/// spirv-coopmat: an accumulator that only fills and gemms on shared f16 tiles touch before its
/// epilogue is held in 16x16 cooperative matrices split over the 32-wide subgroups
/// (`crate::spirv::coopmat::held`); any other keeps the blocked layout, and its gemms stage it
/// through workgroup memory each time. The held gemm's A and B tiles get rows padded by 16 bytes,
/// so that the rows one matrix load reads fall in different banks, where nothing but copies, the
/// gemm and loads or stores at indices touch them (such code follows the allocation's row length).
fn coopmat<'c, 'a>(gemm: OperationRef<'c, 'a>, ops: &Operands<'c, 'a>, threads: i64) -> Vec<Anchor<'c, 'a>> {
    let f16 = |value: Value| crate::support::element_of(value) == Some(Element::F16);
    if threads % 32 != 0 || !is_shared(ops.a) || !is_shared(ops.b) || !f16(ops.a) || !f16(ops.b) || ops.k % 16 != 0 {
        return Vec::new();
    }
    let Ok(subgroups) = crate::spirv::coopmat::config::subgroup_split(threads, ops.m, ops.n) else {
        return Vec::new();
    };
    let Some(kernel) = crate::spirv::coopmat::held::kernel_of(gemm) else {
        return Vec::new();
    };
    if crate::spirv::coopmat::held::staging_point(kernel, ops.c).is_err() {
        return Vec::new();
    }
    // Held matrices are staged once, one matrix per subgroup at least, beside the exchanges of the
    // reductions that read it across subgroups: without room for that the accumulator stays
    // blocked (as it was before cooperative matrices were held).
    let staging = subgroups.0 * subgroups.1 * 16 * 16 * 4;
    let limit = crate::spirv::coopmat::config::MAX_SHARED_BYTES;
    let matrices = (ops.m / subgroups.0 / 16, ops.n / subgroups.1 / 16);
    let scratch = crate::spirv::coopmat::held::reduction_scratch_bytes(kernel, ops.c, threads, subgroups, matrices);
    let needed = crate::spirv::coopmat::held::shared_bytes(kernel) + staging + scratch;
    if needed > limit {
        return Vec::new();
    }
    let layout = atoms::coopmat_accumulator(ops.m, ops.n, subgroups);
    // Registers must be able to hold it once staged (a split that is no power of two cannot).
    if crate::registers::distribute(&layout).is_err() || layout.slots() > crate::registers::MAX_REGISTERS {
        return Vec::new();
    }
    let mut anchors = vec![Anchor {
        tile: ops.c,
        layout: Layout::Fragment(layout),
    }];
    let padding = crate::spirv::coopmat::config::ROW_PADDING;
    let padded = SharedLayout {
        padding,
        ..SharedLayout::row_major()
    };
    let tiles: Vec<Value> = [ops.a, ops.b]
        .into_iter()
        .filter(|tile| crate::spirv::coopmat::held::indexed_only(kernel, *tile))
        .collect();
    // The padding must leave room to stage one matrix per subgroup.
    let rows = |tile: Value| memref_shape(tile).iter().rev().skip(1).product::<i64>();
    let extra: i64 = tiles.iter().map(|tile| rows(*tile) * padding * 2).sum();
    if needed + extra <= limit {
        anchors.extend(tiles.into_iter().map(|tile| Anchor {
            tile,
            layout: Layout::Shared(padded.clone()),
        }));
    }
    anchors
}

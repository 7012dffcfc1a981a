//! Rules for the asynchronous-copy ops that software pipelining writes: barriers, ring slots,
//! `tile.copy_async`, `tile.arrive` and `tile.wait`.

use super::{Verdict, buffer::Buffer};
use crate::positions::OperationAt;
use crate::{
    level::{MemoryLevel, memory_level},
    ops::{constant_integer, copy_async_parts},
};
use melior::ir::{
    ShapedTypeLike, Value, ValueLike,
    operation::{OperationLike, OperationRef},
};

/// The most barriers one `tile.alloc_barriers` may hold (a ring deeper than this buys nothing).
pub const MAX_BARRIERS: i64 = 32;

/// Checks that `value` is barriers (`memref<N x i64>` in workgroup memory) and returns N.
fn barriers(value: Value, role: &str) -> Result<i64, String> {
    let ty = value.r#type();
    let shaped = crate::ops::as_memref(ty).filter(|memref| {
        memref.rank() == 1
            && melior::ir::r#type::IntegerType::try_from(memref.element())
                .is_ok_and(|integer| integer.is_signless() && integer.width() == 64)
            && memory_level(ty) == Some(MemoryLevel::Shared)
            && crate::ops::has_identity_layout(*memref)
    });
    let count = shaped.and_then(|memref| crate::ops::static_sizes(memref)[0]);
    match count {
        Some(count) if (1..=MAX_BARRIERS).contains(&count) => Ok(count),
        _ => Err(format!(
            "expects {role} to be barriers, a memref<N x i64, #gpu.address_space<workgroup>> with 1 <= N <= {MAX_BARRIERS}, but got {ty}"
        )),
    }
}

/// Checks that a constant `index` lies in `0..count` (a computed one is the program's to keep there).
fn index_in(index: Value, count: i64, what: &str) -> Verdict {
    match constant_integer(index) {
        Some(value) if !(0..count).contains(&value) => Err(format!("expects {what} in [0, {count}), but got {value}")),
        _ => Ok(()),
    }
}

pub fn alloc_barriers(op: OperationRef) -> Verdict {
    let result = op.result_at(0).ok_or_else(|| crate::positions::missing("result", 0))?;
    barriers(result.into(), "the result").map(|_| ())
}

pub fn slot(op: OperationRef) -> Verdict {
    let ring = Buffer::of(
        op.operand_at(0)
            .ok_or_else(|| crate::positions::missing("operand", 0))?,
        "the ring",
    )?;
    let tile = Buffer::of(
        op.result_at(0)
            .ok_or_else(|| crate::positions::missing("result", 0))?
            .into(),
        "the result",
    )?;
    if ring.level != MemoryLevel::Shared || tile.level != MemoryLevel::Shared {
        return Err(format!(
            "expects a ring and a result in shared memory, but got {} and {}",
            ring.text(),
            tile.text()
        ));
    }
    let ring_shape = ring.static_shape("the ring")?;
    let tile_shape = tile.static_shape("the result")?;
    if ring_shape.len() < 2 || ring_shape[1..] != tile_shape[..] || ring.element != tile.element {
        return Err(format!(
            "expects the result to be one tile of the ring (the ring's shape without its leading dimension, its element type), but got {} from {}",
            tile.text(),
            ring.text()
        ));
    }
    index_in(
        op.operand_at(1)
            .ok_or_else(|| crate::positions::missing("operand", 1))?,
        ring_shape[0] as i64,
        "the slot",
    )
}

pub fn copy_async(op: OperationRef) -> Verdict {
    let (parts, barrier_list, index) = copy_async_parts(&op).ok_or("expects a source, a destination and barriers")?;
    let src = Buffer::of(parts.src, "the source")?;
    let dst = Buffer::of(parts.dst, "the destination")?;
    if src.level != MemoryLevel::Global || dst.level != MemoryLevel::Shared {
        return Err(format!(
            "expects a copy from a global tensor into a shared tile, but got {} into {}",
            src.text(),
            dst.text()
        ));
    }
    if src.element != dst.element {
        return Err(format!(
            "expects the source and destination to have one element type (an asynchronous copy does not convert), but got {} and {}",
            src.text(),
            dst.text()
        ));
    }
    let dims = crate::ops::copy_dims(&op);
    super::copy::tile_in_buffer(&dst, "destination", &src, "source", parts.src_offsets.len(), dims)?;
    let count = barriers(barrier_list, "the barriers")?;
    index_in(index, count, "the barrier")
}

pub fn arrive(op: OperationRef) -> Verdict {
    let count = barriers(
        op.operand_at(0)
            .ok_or_else(|| crate::positions::missing("operand", 0))?,
        "the barriers",
    )?;
    index_in(
        op.operand_at(1)
            .ok_or_else(|| crate::positions::missing("operand", 1))?,
        count,
        "the barrier",
    )
}

pub fn wait(op: OperationRef) -> Verdict {
    arrive(op)?;
    match constant_integer(
        op.operand_at(2)
            .ok_or_else(|| crate::positions::missing("operand", 2))?,
    ) {
        Some(phase) if phase < 0 => Err(format!("expects a phase >= 0, but got {phase}")),
        _ => Ok(()),
    }
}

/// The threads a `tile.producer` adds to its kernel's block: one warpgroup (the unit that gives
/// registers to the others on sm_90a).
pub const PRODUCER_THREADS: i64 = 128;

/// Whether `name` may be in a `tile.producer` body: what issues copies into ring slots and orders
/// them (see the op's description).
fn issues_copies(name: &str) -> bool {
    (name.starts_with("arith.") || name.starts_with("index."))
        || matches!(
            name,
            "affine.apply"
                | "scf.for"
                | "scf.if"
                | "scf.yield"
                | "tile.yield"
                | "tile.slot"
                | "tile.copy_async"
                | "tile.wait"
                | "tile.arrive"
        )
}

pub fn producer(op: OperationRef) -> Verdict {
    let kernel = op.parent_operation().filter(|parent| crate::ops::op_name(parent) == "tile.kernel").ok_or(
        "expects to be a direct child of a tile.kernel (the block's extra warpgroup runs it beside the kernel's threads), but it is nested in another op",
    )?;
    let threads = crate::ops::integer_attribute(&kernel, "threads").unwrap_or(0);
    if threads % PRODUCER_THREADS != 0 || threads + PRODUCER_THREADS > 1024 {
        return Err(format!(
            "expects its kernel's threads to be whole warpgroups (a multiple of {PRODUCER_THREADS}) and at most {} (the producer's warpgroup comes on top), but the kernel has {threads} threads",
            1024 - PRODUCER_THREADS
        ));
    }
    let producers = crate::ops::nested_ops(kernel)
        .into_iter()
        .filter(|other| crate::ops::op_name(other) == "tile.producer")
        .count();
    if producers > 1 {
        return Err(format!(
            "expects to be the only tile.producer of its kernel, but the kernel has {producers}"
        ));
    }
    let body = crate::ops::nested_ops(op);
    // The copies' offsets may load from global tensors (a paged cache's block table).
    let global_load = |nested: &OperationRef| {
        crate::ops::op_name(nested) == "memref.load"
            && nested.operand_at(0).is_some_and(|memref| {
                crate::level::memory_level(memref.r#type()) == Some(crate::level::MemoryLevel::Global)
            })
    };
    if let Some(other) = body
        .iter()
        .find(|nested| !issues_copies(&crate::ops::op_name(nested)) && !global_load(nested))
    {
        return Err(format!(
            "expects only index arithmetic, loads of global tensors, scf.for, scf.if, tile.slot, tile.copy_async, tile.wait and tile.arrive in its body, but it holds '{}'",
            crate::ops::op_name(other)
        ));
    }
    // A barrier the producer arrives on completes its phases on the producer's arrival alone.
    let arrived: Vec<Value> = body
        .iter()
        .filter(|nested| crate::ops::op_name(nested) == "tile.arrive")
        .filter_map(|arrive| arrive.operand_at(0))
        .collect();
    let elsewhere = crate::ops::nested_ops(kernel)
        .into_iter()
        .filter(|other| crate::ops::op_name(other) == "tile.arrive" && !body.contains(other))
        .find(|other| other.operand_at(0).is_some_and(|barriers| arrived.contains(&barriers)));
    if elsewhere.is_some() {
        return Err("expects the barriers it arrives on to be arrived on only by the producer, but the kernel's threads arrive on one of them too".into());
    }
    Ok(())
}

/// The most blocks a `tile.split_sum` adds up: the largest thread block cluster every sm_90a
/// launch may ask for (the portable size).
pub const MAX_SPLITS: i64 = 8;

pub fn split_sum(op: OperationRef) -> Verdict {
    let kernel = op.parent_operation().filter(|parent| crate::ops::op_name(parent) == "tile.kernel").ok_or(
        "expects to be a direct child of a tile.kernel (every thread of each block reaches it once), but it is nested in another op",
    )?;
    let splits = crate::ops::integer_attribute(&op, "splits").unwrap_or(0);
    if !(2..=MAX_SPLITS).contains(&splits) {
        return Err(format!(
            "expects splits from 2 to {MAX_SPLITS} (the blocks of a portable thread block cluster), but got {splits}"
        ));
    }
    // The launch makes the clusters: the kernel says how large.
    let clusters = crate::ops::integer_attribute(&kernel, crate::decisions::SPLITS.name);
    if clusters != Some(splits) {
        return Err(format!(
            "expects its kernel's {} (the blocks of each of its clusters) to be {splits}, but got {}",
            crate::decisions::SPLITS.name,
            clusters.map_or("none".to_owned(), |clusters| clusters.to_string())
        ));
    }
    let acc = op
        .operand_at(0)
        .ok_or_else(|| crate::positions::missing("operand", 0))?;
    if crate::level::memory_level(acc.r#type()) != Some(crate::level::MemoryLevel::Fragment) {
        return Err(format!("expects a fragment to sum, but got {}", acc.r#type()));
    }
    let scratch = op
        .operand_at(1)
        .ok_or_else(|| crate::positions::missing("operand", 1))?;
    let element = |ty| crate::ops::as_memref(ty).map(|memref| memref.element());
    if memory_level(scratch.r#type()) != Some(MemoryLevel::Shared) || element(scratch.r#type()) != element(acc.r#type())
    {
        return Err(format!(
            "expects a shared tile of the fragment's element type to exchange it through, but got {}",
            scratch.r#type()
        ));
    }
    let elements = |value: Value| crate::ops::memref_shape(value).iter().product::<i64>();
    let (room, needed) = (elements(scratch), elements(acc));
    if room < needed {
        return Err(format!(
            "expects a scratch of at least the fragment's {needed} elements (each thread's registers go there), but got {}",
            scratch.r#type()
        ));
    }
    Ok(())
}

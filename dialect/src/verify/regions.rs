//! Rules for the region ops (`tile.kernel`, `tile.pipelined`, `tile.parallel`) and the allocations
//! that only live inside a kernel.

use super::{Verdict, buffer::Buffer};
use crate::positions::{BlockAt, OperationAt};
use crate::{
    level::MemoryLevel,
    ops::{constant_integer, integer_attribute},
};
use melior::ir::{
    BlockLike, TypeLike, ValueLike,
    operation::{OperationLike, OperationRef},
};

/// The largest block the GPUs we target can launch.
const MAX_THREADS: i64 = 1024;

/// The most blocks a launch takes along x, and along y and z (CUDA; HIP takes the same or more).
const MAX_GRID_X: i64 = (1 << 31) - 1;
const MAX_GRID_YZ: i64 = 65535;

/// Checks that the body's arguments are `expected` values of type `index`.
fn index_arguments(op: OperationRef, expected: usize, what: &str) -> Verdict {
    let Some(body) = op.body() else {
        return Err("expects a body block, but got an empty region".into());
    };
    if body.argument_count() != expected {
        return Err(format!(
            "expects {expected} {what}, but got {} body arguments",
            body.argument_count()
        ));
    }
    for index in 0..expected {
        let argument = body
            .argument_at(index)
            .ok_or_else(|| crate::positions::missing("block argument", index))?;
        if !argument.r#type().is_index() {
            return Err(format!("expects {what} of type index, but got {}", argument.r#type()));
        }
    }
    Ok(())
}

pub fn kernel(op: OperationRef) -> Verdict {
    let grid = op.operand_count();
    if !(1..=3).contains(&grid) {
        return Err(format!("expects 1 to 3 grid sizes, but got {grid}"));
    }
    let threads = integer_attribute(&op, "threads").unwrap_or(0);
    if threads <= 0 || threads % 32 != 0 || threads > MAX_THREADS {
        return Err(format!(
            "expects threads to be a positive multiple of 32 and at most {MAX_THREADS}, but got {threads}"
        ));
    }
    if let Some(blocks) = integer_attribute(&op, "min_blocks_per_multiprocessor")
        && !(1..=32).contains(&blocks)
    {
        return Err(format!(
            "expects min_blocks_per_multiprocessor from 1 to 32, but got {blocks}"
        ));
    }
    // A constant grid size past what the GPUs launch would never run (a CPU reference or lavapipe
    // would loop over it for hours): CUDA and HIP take 2^31 - 1 blocks along x, 65535 along y and z.
    for (dimension, size) in op.operands().enumerate() {
        let limit = if dimension == 0 { MAX_GRID_X } else { MAX_GRID_YZ };
        let name = ["x", "y", "z"][dimension];
        if let Some(blocks) = constant_integer(size).filter(|blocks| *blocks > limit) {
            return Err(format!(
                "expects at most {limit} blocks along grid dimension {name} (what GPUs launch), but got {blocks}"
            ));
        }
        // A negative size is a huge unsigned one to a GPU launch and none to the CPU reference.
        if let Some(blocks) = constant_integer(size).filter(|blocks| *blocks < 0) {
            return Err(format!(
                "expects 0 or more blocks along grid dimension {name}, but got {blocks}"
            ));
        }
    }
    index_arguments(op, grid, "block indices (one per grid dimension)")?;
    clusters(op)?;
    super::accesses::calls(op)?;
    super::accesses::host_tensors(op)?;
    super::accesses::accesses_of(op)
}

/// A kernel's cluster: blocks that split each tile's sum (`tile.splits`) or load shared tiles
/// together (`tile.multicast`), one or the other, of a portable cluster's size; copies marked
/// `tile.cluster_shared` only in a kernel of the latter.
fn clusters(op: OperationRef) -> Verdict {
    let multicast = integer_attribute(&op, crate::decisions::MULTICAST.name);
    if let Some(blocks) = multicast
        && !(2..=super::MAX_SPLITS).contains(&blocks)
    {
        return Err(format!(
            "expects {} from 2 to {} (the blocks of a portable thread block cluster), but got {blocks}",
            crate::decisions::MULTICAST.name,
            super::MAX_SPLITS
        ));
    }
    if multicast.is_some() && op.attribute(crate::decisions::SPLITS.name).is_ok() {
        return Err(format!(
            "expects one of {} and {} (a cluster either splits each tile's sum or shares its loads), but got both",
            crate::decisions::SPLITS.name,
            crate::decisions::MULTICAST.name
        ));
    }
    if multicast.is_none()
        && let Some(copy) = crate::ops::nested_ops(op)
            .into_iter()
            .find(|nested| nested.attribute(crate::decisions::CLUSTER_SHARED.name).is_ok())
    {
        return Err(format!(
            "expects {} (the blocks of its clusters) where a copy is {} ('{}' at {}), but has none",
            crate::decisions::MULTICAST.name,
            crate::decisions::CLUSTER_SHARED.name,
            crate::ops::op_name(&copy),
            copy.location()
        ));
    }
    Ok(())
}

/// The deepest software pipeline a `tile.pipelined` may ask for. Every stage holds a copy of the
/// loop's shared tiles, so no chip's shared memory holds more than a few dozen; a bound here keeps
/// the lowerings' ring arithmetic far from overflow.
pub const MAX_STAGES: i64 = 64;

pub fn pipelined(op: OperationRef) -> Verdict {
    // TileLang's per-statement lists would be dropped without a word: the schedule is planned from
    // the loop's copies and `stages` (`tile-plan-pipelines`, recorded as `tile.schedule`).
    for list in ["order", "stage", "group"] {
        if let Ok(given) = op.attribute(list) {
            return Err(format!(
                "expects no '{list}' list, but got {given}: the pipeline is planned from the loop's copies and its stages (tile-plan-pipelines records it as tile.schedule), not from per-statement orders and stages; drop it"
            ));
        }
    }
    let stages = integer_attribute(&op, "stages").unwrap_or(0);
    if !(1..=MAX_STAGES).contains(&stages) {
        return Err(format!("expects stages between 1 and {MAX_STAGES}, but got {stages}"));
    }
    if op.operand_count() == 3 {
        let step = op
            .operand_at(2)
            .ok_or_else(|| crate::positions::missing("operand", 2))?;
        if let Some(step) = constant_integer(step).filter(|step| *step <= 0) {
            return Err(format!("expects a positive step, but got {step}"));
        }
    }
    index_arguments(op, 1, "induction variable")
}

pub fn parallel(op: OperationRef) -> Verdict {
    let extents = crate::ops::parallel_extents(&op).ok_or("expects an extents array")?;
    if extents.is_empty() || extents.iter().any(|extent| *extent <= 0) {
        let text: Vec<String> = extents.iter().map(i64::to_string).collect();
        return Err(format!(
            "expects one or more positive extents, but got ({})",
            text.join(", ")
        ));
    }
    let iterations = extents
        .iter()
        .try_fold(1u64, |product, extent| product.checked_mul(*extent as u64));
    let limit = super::buffer::MAX_PARALLEL_ITERATIONS;
    if iterations.is_none_or(|iterations| iterations > limit) {
        let text: Vec<String> = extents.iter().map(i64::to_string).collect();
        return Err(format!(
            "expects at most {limit} iterations (the loop runs over tiles of one block), but got extents ({})",
            text.join(", ")
        ));
    }
    index_arguments(op, extents.len(), "loop indices (one per extent)")?;
    if super::accesses::nested_in(op, "tile.parallel") {
        return Err(
            "expects to be outside every other tile.parallel (the GPU lowerings deal one loop's \
             iterations to the block's threads), but it is nested in one"
                .into(),
        );
    }
    super::accesses::accesses_of(op)?;
    super::layout::parallel(op, &extents)
}

/// Returns true when `op` is nested (at any depth) in a `tile.kernel`.
fn inside_kernel(op: OperationRef) -> bool {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        if current.name().as_string_ref().as_str() == Ok("tile.kernel") {
            return true;
        }
        parent = current.parent_operation();
    }
    false
}

/// A kernel is a launch from host code, and so is a matmul (the compiler writes its kernel); every
/// other tile op runs on the threads of a kernel's block.
pub fn placement(op: OperationRef, name: &str) -> Verdict {
    match (name == "tile.kernel" || name == "tile.matmul", inside_kernel(op)) {
        (true, true) if name == "tile.matmul" => Err(
            "expects to be in host code (it becomes a kernel of its own; inside a kernel, copy tiles \
             and use tile.gemm), but it is nested in a tile.kernel"
                .into(),
        ),
        (true, true) => Err("expects to be in host code, but it is nested in another tile.kernel".into()),
        (false, false) if name.starts_with("tile.alloc_") => Err(
            "expects to be nested in a tile.kernel (tiles live in the on-chip memory of one block), but \
             it is not"
                .into(),
        ),
        (false, false) if name != "tile.yield" => {
            Err("expects to be nested in a tile.kernel (it runs on the threads of a block), but it is not".into())
        }
        _ => Ok(()),
    }
}

/// What each tile op that acts for the whole block does, for the rule below; `None` for the ops a
/// `tile.parallel` body may hold (`tile.yield`, and `tile.slot`, which only names a tile of a ring)
/// and for `tile.parallel` and `tile.kernel`, which have rules of their own.
fn whole_block_work(name: &str) -> Option<&'static str> {
    Some(match name {
        "tile.copy" | "tile.gemm" | "tile.fill" | "tile.reduce" | "tile.scan" | "tile.copy_async" => {
            "it works on whole tiles"
        }
        "tile.print" => "it prints once per block",
        "tile.pipelined" => "it is a loop over whole tiles",
        "tile.alloc_shared" | "tile.alloc_fragment" => "it allocates a tile of the block",
        "tile.alloc_barriers" => "it allocates barriers of the block",
        "tile.arrive" | "tile.wait" => "it synchronizes the whole block",
        "tile.split_sum" => "it combines the fragments of whole blocks",
        _ => return None,
    })
}

/// The body of a `tile.parallel` is per-element work: it runs once per index tuple, each on one
/// thread. An op that works on whole tiles (or for the whole block) in it would run once per
/// element (a gemm in a 128x256 loop: 32,768 gemms), each iteration writing the whole tile (a race
/// between iterations); no target lowers that as the program means.
pub fn outside_parallel(op: OperationRef, name: &str) -> Verdict {
    match whole_block_work(name) {
        Some(why) if super::accesses::nested_in(op, "tile.parallel") => Err(format!(
            "expects to be outside every tile.parallel ({why}, and a tile.parallel body runs once \
             per element: move it out of the loop), but it is nested in one"
        )),
        _ => Ok(()),
    }
}

pub fn alloc(op: OperationRef, level: MemoryLevel) -> Verdict {
    let result = op.result_at(0).ok_or_else(|| crate::positions::missing("result", 0))?;
    let tile = Buffer::of(result.into(), "the result")?;
    if tile.level != level {
        let space = match level {
            MemoryLevel::Shared => "#gpu.address_space<workgroup>",
            _ => "#tile.fragment",
        };
        return Err(format!(
            "expects a result in memory space {space}, but got {}",
            tile.text()
        ));
    }
    let shape: Vec<i64> = tile
        .static_shape("the result")?
        .into_iter()
        .map(|size| size as i64)
        .collect();
    super::layout::allocation(op, level, &shape)
}

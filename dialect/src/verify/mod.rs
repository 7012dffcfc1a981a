//! Verifiers of the tile ops, called from the generated C++ `verify()` methods.
//!
//! Each rule returns `Err(message)`; the shim reports it as `'tile.x' op <message>` at the op's
//! location. Messages read "expects ..., but got ...". Generic structure (operand counts, that
//! buffers are memrefs, that offsets are `index`) is checked by the ODS-generated code first.

mod accesses;
mod buffer;
mod compute;
mod copy;
mod layout;
mod pipeline;

pub use pipeline::{MAX_BARRIERS, MAX_SPLITS, PRODUCER_THREADS};
mod regions;

use melior::ir::operation::{OperationLike, OperationRef};

/// The outcome of one rule.
pub type Verdict = Result<(), String>;

/// Verifies one tile op.
pub fn verify_op(op: OperationRef) -> Verdict {
    let name = op.name();
    let name = name.as_string_ref().as_str().unwrap_or_default();
    if !name.starts_with("tile.") {
        // A function whose arguments carry tile attributes (the dialect's argument-attribute hook).
        return crate::partition::verify(op);
    }
    regions::placement(op, name)?;
    regions::outside_parallel(op, name)?;
    crate::decisions::verify(op, name)?;
    match name {
        "tile.kernel" => regions::kernel(op),
        "tile.pipelined" => regions::pipelined(op),
        "tile.parallel" => regions::parallel(op),
        "tile.alloc_shared" => regions::alloc(op, crate::level::MemoryLevel::Shared),
        "tile.alloc_fragment" => regions::alloc(op, crate::level::MemoryLevel::Fragment),
        "tile.copy" => copy::copy(op),
        "tile.gemm" => compute::gemm(op),
        "tile.matmul" => compute::matmul(op),
        "tile.fill" => compute::fill(op),
        "tile.reduce" => compute::reduce(op),
        "tile.scan" => compute::scan(op),
        "tile.print" => compute::print(op),
        "tile.alloc_barriers" => pipeline::alloc_barriers(op),
        "tile.slot" => pipeline::slot(op),
        "tile.copy_async" => pipeline::copy_async(op),
        "tile.arrive" => pipeline::arrive(op),
        "tile.wait" => pipeline::wait(op),
        "tile.producer" => pipeline::producer(op),
        "tile.split_sum" => pipeline::split_sum(op),
        _ => Ok(()),
    }
}

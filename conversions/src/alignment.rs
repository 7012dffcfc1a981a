//! Kernels specialized on their tensors' alignment, as Triton specializes on pointers divisible by
//! 16: `tile-specialize-alignment` gives a memory-bound kernel (no `tile.gemm`; op by op) whose
//! fragments are copied to or from the host function's tensors a twin launched where every such
//! tensor starts on a [`ALIGNMENT`]-byte boundary, under an `scf.if` on their addresses that the
//! launchers evaluate (the manifest's `when`); the original kernel runs elsewhere.
//!
//! The condition is the record: [`proven_alignment`] reads a tensor's alignment from the `scf.if`s
//! around the op that accesses it, whoever wrote them (this pass or the program), and the lowerings
//! drop their address tests there (a row's run of elements is one 8- or 16-byte vector load or
//! store with no element-wise way beside it, which LLVM would merge the vector loads into).

use crate::cpu::builder::{At, Builder};
use crate::registers::Layouts;
use crate::target::Target;
use melior::{
    Context,
    ir::{
        BlockLike, Value, ValueLike,
        block::BlockArgument,
        operation::{OperationLike, OperationMutLike, OperationRef, OperationRefMut},
    },
};
use std::collections::BTreeMap;
use tile_dialect::positions::OperationAt;
use tile_dialect::{
    level::MemoryLevel,
    ops::{as_argument, as_memref, as_result, clone_detached, constant_integer, copy_parts, find_ops, with_context},
};
use tile_ir::{arith, memref, scf, tile};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-specialize-alignment";

/// The alignment the twin assumes: the widest vector a thread loads or stores (16 bytes).
pub const ALIGNMENT: i64 = 16;

tile_passes::rust_pass! {
    /// Creates the `tile-specialize-alignment` pass (on `builtin.module`).
    pub fn create_specialize_alignment_pass() {
        argument: ARGUMENT,
        name: "TileSpecializeAlignment",
        description: "On targets that access global tensors in vectors, give each memory-bound per-op kernel (no tile.gemm) that copies fragments to or from the host function's tensors a twin launched where all of them start on 16-byte boundaries (an scf.if on their addresses, which the launcher evaluates), whose runs of a row are single vector loads and stores; the original kernel runs elsewhere",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: tile_dialect::registration::gpu_lowering_dialects(),
        run: |module| {
            let target = Target::of(module)?;
            if !target.memory.vector_runs {
                return Ok(());
            }
            with_context(module, |context| {
                for kernel in find_ops(module, tile::KernelOperation::name()) {
                    specialize(context, kernel);
                }
                Ok(())
            })
        },
    }
}

/// Wraps `kernel` in `scf.if (its tensors aligned) { twin } else { kernel }` where it qualifies.
fn specialize<'c>(context: &'c Context, kernel: OperationRef<'c, '_>) {
    let per_op = tile_dialect::ops::string_attribute(&kernel, tile_dialect::decisions::STRATEGY.name)
        .is_some_and(|strategy| strategy == "per-op");
    if !per_op || !find_ops(kernel, tile::GemmOperation::name()).is_empty() {
        return;
    }
    let Some(layouts) = crate::registers::forecast_layouts(kernel) else {
        return;
    };
    let tensors = vector_tensors(kernel, &layouts);
    if tensors.is_empty()
        || tensors
            .values()
            .all(|tensor| proven_alignment(kernel, *tensor) % ALIGNMENT == 0)
    {
        return;
    }
    let b = Builder {
        context,
        location: kernel.location(),
        threads: None,
    };
    let at = At::before(kernel);
    let alignment = b.index(at, ALIGNMENT);
    let rest = tensors
        .values()
        .map(|tensor| b.remui(at, b.aligned_pointer(at, *tensor), alignment))
        .reduce(|x, y| b.ori(at, x, y))
        .expect("a tensor");
    let aligned = b.compare(at, "eq", rest, b.index(at, 0));
    let (then_at, else_at) = b.if_else(at, aligned);
    then_at
        .block
        .insert_operation_before(then_at.before, clone_detached(kernel));
    // SAFETY: `kernel` is a live op of this module; it moves within the same function.
    unsafe { OperationRefMut::from_raw(kernel.to_raw()) }.move_before(else_at.before);
}

/// The host function's tensors (by argument number) that `kernel` copies fragments to or from
/// whose layouts hold runs of a row's elements (`layouts`: the fragments' recorded layouts), which
/// the lowerings move in vectors.
fn vector_tensors<'c, 'a>(kernel: OperationRef<'c, 'a>, layouts: &Layouts) -> BTreeMap<usize, Value<'c, 'a>> {
    let mut tensors = BTreeMap::new();
    for copy in find_ops(kernel, tile::CopyOperation::name()) {
        let Some(parts) = copy_parts(&copy) else { continue };
        let level = |value: Value| tile_dialect::level::memory_level(value.r#type());
        let (tensor, fragment) = match (level(parts.src), level(parts.dst)) {
            (Some(MemoryLevel::Global), Some(MemoryLevel::Fragment)) => (parts.src, parts.dst),
            (Some(MemoryLevel::Fragment), Some(MemoryLevel::Global)) => (parts.dst, parts.src),
            _ => continue,
        };
        let runs = crate::registers::patterns::allocation(fragment)
            .and_then(|allocation| layouts.fragment(&allocation))
            .and_then(|placed| crate::registers::patterns::vector_run(placed, crate::cpu::data::element_type(tensor)))
            .is_some();
        let contiguous = as_memref(tensor.r#type()).is_some_and(tile_dialect::ops::has_identity_layout);
        if let (true, true, Some(argument)) = (runs, contiguous, host_argument(tensor)) {
            tensors.insert(argument.argument_number(), tensor);
        }
    }
    tensors
}

/// `tensor` as an argument of the function its kernel is in (a host tensor).
fn host_argument<'c, 'a>(tensor: Value<'c, 'a>) -> Option<BlockArgument<'c, 'a>> {
    let argument = as_argument(tensor)?;
    let owner = argument.owner().parent_operation()?;
    tile_ir::is(&owner, tile_ir::func::FuncOperation::name).then_some(argument)
}

/// The alignment in bytes (a power of two; 1 where nothing is known) that the `scf.if`s around
/// `inside` prove of host tensor `tensor`'s address: conditions (and conjunctions of them) of the
/// form `(address % n) == 0`, `(address & (n - 1)) == 0`, or such remainders of several tensors
/// or'ed together and compared with zero.
pub fn proven_alignment(inside: OperationRef, tensor: Value) -> i64 {
    if host_argument(tensor).is_none() {
        return 1;
    }
    let mut proven = 1;
    let mut inner = inside;
    while let Some(parent) = inner.parent_operation() {
        if tile_ir::is(&parent, scf::IfOperation::name) {
            let in_then = parent.region_at(0).is_some_and(|then| {
                inner
                    .block()
                    .and_then(|block| block.parent_region())
                    .is_some_and(|own| own == then)
            });
            if let (true, Some(condition)) = (in_then, parent.operand_at(0)) {
                proven = proven.max(holds(condition, tensor));
            }
        }
        inner = parent;
    }
    proven
}

/// The alignment of `tensor` that `condition` being true proves.
fn holds(condition: Value, tensor: Value) -> i64 {
    let Some(owner) = as_result(condition).map(|result| result.owner()) else {
        return 1;
    };
    let operands: Vec<Value> = owner.operands().collect();
    if tile_ir::is(&owner, arith::AndIOperation::name) {
        return holds(operands[0], tensor).max(holds(operands[1], tensor));
    }
    let equal = tile_ir::is(&owner, arith::CmpIOperation::name)
        && tile_dialect::ops::integer_attribute(&owner, "predicate") == Some(0);
    match (
        equal,
        constant_integer(operands[0]),
        operands.get(1).copied().and_then(constant_integer),
    ) {
        (true, _, Some(0)) => zero_proves(operands[0], tensor),
        (true, Some(0), _) => zero_proves(operands[1], tensor),
        _ => 1,
    }
}

/// The alignment of `tensor` that `value` being zero proves.
fn zero_proves(value: Value, tensor: Value) -> i64 {
    let Some(owner) = as_result(value).map(|result| result.owner()) else {
        return 1;
    };
    let operands: Vec<Value> = owner.operands().collect();
    let divisor = operands
        .get(1)
        .copied()
        .and_then(constant_integer)
        .filter(|divisor| *divisor > 0);
    if tile_ir::is(&owner, arith::OrIOperation::name) {
        zero_proves(operands[0], tensor).max(zero_proves(operands[1], tensor))
    } else if tile_ir::is(&owner, arith::RemUIOperation::name) && address_of(operands[0], tensor) {
        // The largest power of two dividing the divisor.
        divisor.map_or(1, |divisor| divisor & divisor.wrapping_neg())
    } else if tile_ir::is(&owner, arith::AndIOperation::name) && address_of(operands[0], tensor) {
        // A mask of the low bits: n - 1 for a power of two n.
        divisor
            .map(|mask| mask + 1)
            .filter(|bound| bound & (bound - 1) == 0)
            .unwrap_or(1)
    } else {
        1
    }
}

/// Whether `value` is `tensor`'s address (`memref.extract_aligned_pointer_as_index`, perhaps cast).
fn address_of(value: Value, tensor: Value) -> bool {
    let Some(owner) = as_result(value).map(|result| result.owner()) else {
        return false;
    };
    let operand = owner.operand_at(0);
    if tile_ir::is(&owner, arith::IndexCastOperation::name) || tile_ir::is(&owner, arith::IndexCastUIOperation::name) {
        return operand.is_some_and(|operand| address_of(operand, tensor));
    }
    tile_ir::is(&owner, memref::ExtractAlignedPointerAsIndexOperation::name) && operand == Some(tensor)
}

//! `convert-tile-to-cpu`: tile semantics as plain loops on the CPU, the executable definition of what
//! a tile program means. Fragments and shared tiles become heap buffers of one block, every tile op a
//! loop nest, `tile.kernel` a loop that runs the grid's blocks one after another.
//!
//! Order matters: the leaf ops (copy, gemm, fill, reduce) go first, then allocations, then the
//! region ops from the innermost out, so that every rule sees its operands still in place. Host-level
//! ops (`tile.matmul`) become loop nests where they stand in their host function.

pub(crate) mod builder;
pub(crate) mod compute;
pub(crate) mod data;
mod powi;
pub mod print;
pub(crate) mod structure;

use builder::Builder;
use melior::ir::operation::{OperationLike, OperationRef};
use tile_dialect::ops::{nested_ops, with_context};
use tile_ir::{gpu, tile};

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-cpu";

tile_passes::rust_pass! {
    /// Creates the `convert-tile-to-cpu` pass (on any op; usually the module).
    pub fn create_convert_tile_to_cpu_pass() {
        argument: ARGUMENT,
        name: "ConvertTileToCpu",
        description: "Lower tile ops to plain loops over memrefs (the CPU reference semantics)",
        anchor: "",
        dialects: { let mut dialects = tile_dialect::registration::gpu_lowering_dialects(); dialects.push(tile_dialect::registration::math_dialect()); dialects },
        run: |module| {
            crate::support::check_supported(module, None)?;
            lower(module);
            with_context(module, |context| powi::widen_exponents(context, module));
            Ok(())
        },
    }
}

fn lower<'c>(module: OperationRef<'c, '_>) {
    with_context(module, |context| {
        for kernel in tile_dialect::ops::find_ops(module, tile_ir::tile::KernelOperation::name()) {
            crate::pipeline::rings::lower(context, kernel, false);
            lower_body(context, kernel, None, Tiles::Allocated(None), &[]);
            let rewriter = melior::IrRewriter::new(context);
            let builder = Builder {
                context,
                location: kernel.location(),
                threads: None,
            };
            structure::lower_kernel(&builder, &rewriter.as_rewriter_base(), kernel);
        }
        // Host-level ops, in place in their host function.
        for matmul in tile_dialect::ops::find_ops(module, tile_ir::tile::MatmulOperation::name()) {
            let builder = Builder {
                context,
                location: matmul.location(),
                threads: None,
            };
            compute::lower_matmul(&builder, matmul);
            melior::IrRewriter::new(context).as_rewriter_base().erase_op(matmul);
        }
    });
}

/// Where the tiles of a lowered kernel live.
#[derive(Clone, Copy)]
pub(crate) enum Tiles<'c> {
    /// `memref.alloc` in this memory space (`None`: heap buffers freed at the end of their block).
    Allocated(Option<melior::ir::Attribute<'c>>),
    /// Left to the caller (GPU kernels bind them to workgroup attributions).
    Kept,
}

/// Lowers every tile op inside `kernel` (not the kernel itself) to loops. With `threads`, each tile
/// op's iterations are dealt out to the block's threads (GPU targets). The allocations in `placed`
/// are left for the caller to place, whatever `tiles` says.
pub(crate) fn lower_body<'c>(
    context: &'c melior::Context,
    kernel: OperationRef<'c, '_>,
    threads: Option<i64>,
    tiles: Tiles<'c>,
    placed: &[OperationRef<'c, '_>],
) {
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    let builder = |op: OperationRef<'c, '_>| Builder {
        context,
        location: op.location(),
        threads,
    };
    for op in &nested_ops(kernel) {
        tile_ir::match_op!(op, {
            tile::CopyOperation => crate::small_floats::lower_in_place(*op, || data::lower_copy(&builder(*op), *op)),
            tile::FillOperation => data::lower_fill(&builder(*op), *op),
            tile::GemmOperation => compute::lower_gemm(&builder(*op), *op),
            tile::ReduceOperation => compute::lower_reduce(&builder(*op), *op),
            tile::ScanOperation => compute::lower_scan(&builder(*op), *op),
            tile::PrintOperation => print::lower_print(&builder(*op), *op),
            // One thread runs the whole block on the CPU: nothing to wait for.
            gpu::BarrierOperation if threads.is_none() => {},
            _ => continue,
        });
        rewriter.erase_op(*op);
    }
    // The list above holds erased ops now: walk again.
    if let Tiles::Allocated(memory_space) = tiles {
        for op in &nested_ops(kernel) {
            if structure::is_allocation(op) && !placed.contains(op) {
                structure::lower_alloc(&builder(*op), &rewriter, *op, memory_space);
            }
        }
    }
    // Innermost region ops first: reverse pre-order visits children before their parents.
    for op in nested_ops(kernel).iter().rev() {
        tile_ir::match_op!(op, {
            tile::ParallelOperation => structure::lower_parallel(&builder(*op), &rewriter, *op),
            tile::PipelinedOperation => {
                structure::lower_pipelined(&builder(*op), &rewriter, *op);
            },
            _ => {},
        });
    }
}

/// The pipeline from tile IR to the LLVM dialect on the host, ready for MLIR's execution engine:
/// our lowering, then upstream conversions (math ops on 16-bit floats computed in f32 and rounded
/// once, as the interpreter and the GPU targets do: `math.log1p` lowered in f16 rounded `1 + x`
/// first, up to 7% off near zero; bf16 conversions expanded to integer ops, since the host has no
/// bf16 instructions; f8E4M3FN and f8E5M2 held as bytes and converted in integer arithmetic
/// (`tile-emulate-small-floats`); `math.ipowi`, and `math.fpowi` with exponents wider than a C int, as
/// outlined loops, math functions as LLVM intrinsics
/// and, where LLVM has none (`erf`, `tanh`, ...), calls into the host's libm; the vector ops
/// `tile-pack-narrow-types` widens a byte's two 4-bit halves with, as LLVM vectors).
pub const LLVM_PIPELINE: &str = "builtin.module(tile-pack-narrow-types, convert-tile-to-cpu, canonicalize, cse, math-extend-to-supported-types, \
     tile-small-float-conversions-through-f32, arith-emulate-unsupported-floats{source-types=f8E4M3FN,f8E5M2 target-type=f32}, tile-emulate-small-floats, arith-expand{include-bf16=true}, \
     convert-scf-to-cf, convert-math-to-funcs{min-width-of-fpowi-exponent=33}, convert-math-to-llvm, convert-math-to-libm, expand-strided-metadata, finalize-memref-to-llvm, \
     convert-vector-to-llvm, convert-arith-to-llvm, convert-index-to-llvm, convert-cf-to-llvm, convert-func-to-llvm, \
     reconcile-unrealized-casts)";

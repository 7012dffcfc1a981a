//! Thread block clusters on sm_90a: a fragment summed over the blocks of a cluster
//! (`tile.split_sum`, written by `tile-split-k`).
//!
//! Every block holds the fragment in one layout, so thread `t` of the first block needs exactly
//! the registers thread `t` holds in each other block. Each other block's threads store theirs
//! into its own shared memory, 16 bytes at a time ([`Chunks`]); a cluster barrier (release, acquire) makes them visible; the first
//! block's threads add them to their own, rank after rank, loading through distributed shared
//! memory (`mapa` maps the address into another block's window); a second cluster barrier keeps
//! the other blocks, and their shared memory, alive until those loads are done.

use crate::cpu::builder::{At, Builder};
use crate::pipeline::mbarriers::cluster_barrier;
use crate::registers::patterns::{Lowering, erase, placed};
use melior::{
    dialect::llvm::{self as llvm_ops, LoadStoreOptions},
    ir::{
        ShapedTypeLike, Type, Value, ValueLike, attribute::IntegerAttribute, operation::OperationRef,
        r#type::IntegerType,
    },
};
use tile_dialect::ops::integer_attribute;
use tile_dialect::positions::OperationAt;
use tile_ir::nvvm;

/// Lowers `op`, a `tile.split_sum` whose fragment is in registers (see the module's doc).
pub(crate) fn split_sum<'c, 'a>(lowering: &Lowering<'c, 'a, '_>, op: OperationRef<'c, 'a>) {
    let b = lowering.builder(&op);
    let at = At::before(op);
    let context = lowering.context;
    let acc = op.operand_at(0).expect("verified split_sum");
    let scratch = op.operand_at(1).expect("verified split_sum");
    let rank = op.operand_at(2).expect("verified split_sum");
    let splits = integer_attribute(&op, "splits").expect("verified split_sum");
    let laid = placed(lowering.layouts, acc).expect("checked");
    let array = lowering.private(acc);
    let element = tile_dialect::ops::as_memref(acc.r#type())
        .expect("a fragment")
        .element();
    let element_bytes = tile_dialect::element::Element::of(element).map_or(4, |element| element.bytes() as i64);
    let registers = laid.register_count();
    let chunk = Chunks::of(registers, element_bytes);
    let tid = lowering.tid;
    let first = b.compare(at, "eq", rank, b.index(at, 0));
    let not_first = b.compare(at, "ne", rank, b.index(at, 0));
    let vector_type: Type = crate::attributes::vector(chunk.width, element);
    let registers_of = |index: i64| index * chunk.width..(index + 1) * chunk.width;
    let i32_type: Type = IntegerType::new(context, 32).into();
    let i64_type: Type = IntegerType::new(context, 64).into();
    let shared_pointer = crate::attributes::llvm_pointer(context, 3);
    let cluster_pointer = crate::attributes::llvm_pointer(context, 7);
    let chunk_type = if chunk.width == 1 { element } else { vector_type };
    let alignment =
        || LoadStoreOptions::new().align(Some(IntegerAttribute::new(i64_type, chunk.width * element_bytes)));
    // The scratch as a pointer (its chunks are stored and loaded as LLVM values: a vector store
    // into a workgroup memref has no conversion before the kernel's address spaces are numbered).
    let base = b.aligned_pointer(at, scratch);
    let base = b.cast(at, tile_ir::arith::index_cast, base, i64_type);
    let base = b.cast(at, tile_ir::llvm::inttoptr, base, shared_pointer);
    let address = |at: At<'c, 'a>, pointer: Value<'c, 'a>, space: Type<'c>, index: i64| -> Value<'c, 'a> {
        let place = b.cast(
            at,
            tile_ir::arith::index_cast,
            chunk.place(&b, at, tid, index),
            i64_type,
        );
        b.value(
            at,
            llvm_ops::get_element_ptr_dynamic(context, pointer, &[place], element, space, b.location),
        )
    };
    // The other blocks' registers into their own shared memory.
    let others = b.if_then(at, not_first);
    for index in 0..chunk.count {
        let values: Vec<Value> = registers_of(index)
            .map(|register| b.load(others, array, &[lowering.register(&b, others, register)]))
            .collect();
        let packed = if chunk.width == 1 {
            values[0]
        } else {
            b.value(
                others,
                tile_ir::vector::from_elements(context, vector_type, &values, b.location).into(),
            )
        };
        let to = address(others, base, shared_pointer, index);
        b.insert(others, llvm_ops::store(context, packed, to, b.location, alignment()));
    }
    cluster_barrier(&b, at);
    // The first block adds them, rank after rank.
    let leader = b.if_then(at, first);
    for other in 1..splits {
        let target_rank = b.integer(leader, i32_type, other);
        let remote = b.value(
            leader,
            nvvm::mapa(context, cluster_pointer, base, target_rank, b.location).into(),
        );
        for index in 0..chunk.count {
            let from = address(leader, remote, cluster_pointer, index);
            let loaded: Value = b.value(
                leader,
                llvm_ops::load(context, from, chunk_type, b.location, alignment()),
            );
            for (position, register) in registers_of(index).enumerate() {
                let part = if chunk.width == 1 {
                    loaded
                } else {
                    let position = crate::attributes::i64_array(context, &[position as i64]);
                    b.value(
                        leader,
                        tile_ir::vector::extract(context, loaded, &[], position, b.location).into(),
                    )
                };
                let slot = lowering.register(&b, leader, register);
                let sum = b.add(leader, b.load(leader, array, &[slot]), part);
                b.store(leader, sum, array, &[slot]);
            }
        }
    }
    cluster_barrier(&b, at);
    erase(context, op);
}

/// How a thread's registers lie in the scratch: in chunks of `width` registers (16 bytes where
/// they divide so: one vector store, and one load through the cluster, a chunk), thread after
/// thread; where a thread has a multiple of 8 chunks, chunk `c` of thread `t` goes to place
/// `c ^ (t mod 8)` of the thread's, so that 8 consecutive threads' stores and loads of one chunk
/// fall in 8 different 16-byte columns of the banks.
struct Chunks {
    width: i64,
    count: i64,
}

impl Chunks {
    fn of(registers: i64, element_bytes: i64) -> Chunks {
        let width = 16 / element_bytes;
        let width = if registers % width == 0 { width } else { 1 };
        Chunks {
            width,
            count: registers / width,
        }
    }

    /// The element index of chunk `index` of thread `tid`.
    fn place<'c, 'a>(&self, b: &Builder<'c>, at: At<'c, 'a>, tid: Value<'c, 'a>, index: i64) -> Value<'c, 'a> {
        let first = b.muli(at, tid, b.index(at, self.count));
        let chunk = if self.count % 8 == 0 {
            b.xori(at, b.index(at, index), b.andi(at, tid, b.index(at, 7)))
        } else {
            b.index(at, index)
        };
        b.muli(at, b.addi(at, first, chunk), b.index(at, self.width))
    }
}

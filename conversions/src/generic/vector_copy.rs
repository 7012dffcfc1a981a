//! Copies from a global tensor into a shared tile, a vector at a time, and the main loops they feed
//! prefetched a step ahead, on the targets with wide copies ([`crate::target::Target::wide_copies`]).
//!
//! The plain copy deals single elements to the threads, each behind its own bounds check: 32
//! two-byte loads and LDS writes a thread for a 128x32 f16 tile. Here each thread copies runs of 16
//! bytes (8 f16) along the tile's last dimension: one `vector.load` and one `vector.store` where
//! the whole run lies inside the tensor, element by element (zeros outside, as the plain copy) only
//! where a run reaches past an end of the tensor. Consecutive threads take consecutive runs, so a
//! wave's loads stay coalesced; a thread's runs are straight-line code (trip `k` takes run
//! `k * threads + tid`), so the runs it holds are indexed by constants and stay in registers.
//! Which element lands where is the plain copy's: only the grouping changes. A tile stored
//! transposed (`crate::layout::stored`: a B operand given as KxN, stored NxK) takes runs of 4
//! consecutive rows a trip, so that each column's 4 elements, consecutive in the stored row, go out
//! as one 8-byte store.
//!
//! A copy is two halves: the loads into the thread's registers (a private array of runs), and the
//! stores from there into LDS. In a `tile.pipelined` loop whose copies of this kind come first
//! (with only index arithmetic among them), the loads of step i + 1 are issued right after the
//! stores of step i, before the ops that read the tiles (the gemm): the global loads are in flight
//! while the matrix cores work, and the next step only waits for them where it stores them
//! (a register prefetch, one shared buffer). The loop is:
//!
//! ```text
//! registers <- tensor(lb)                       (before the loop)
//! for i: tiles <- registers; barrier
//!        if i + step < ub: registers <- tensor(i + step)
//!        the rest of the body (reads the tiles); barrier
//! ```
//!
//! The barrier at the end of the body (the gemm's own, or one added) keeps a step's stores from
//! overwriting a tile another wave still reads; the one after the stores makes them visible. Only
//! loops whose source tensors nothing in the kernel writes are prefetched (a load moved ahead of
//! the body must read what it would have read after it).
//!
//! SPIR-V shaders address memory logically: a vector cannot be loaded through a pointer to the
//! tensor's scalars (no pointer casts). On SPIR-V ([`WideCopies::views`]) a run is therefore 8
//! bytes (`vector<4xf16>`, at most four lanes) loaded from a *vector view* of the tensor, a second
//! binding of the same buffer typed `memref<... x (n / 4) x vector<4xf16>>` (Vulkan lets several
//! variables alias one binding; the deleted GEMM template read its tensors so): here an
//! `unrealized_conversion_cast` marked [`VECTOR_VIEW`], which the kernel's skeleton turns into an
//! argument with the tensor's binding. A run goes the fast way only where its first column is a
//! whole vector of the view. Workgroup tiles are stored lane by lane.

use crate::cpu::builder::{At, Builder};
use melior::{
    Context,
    dialect::DialectHandle,
    ir::{
        Attribute, BlockLike, ShapedTypeLike, Type, Value, ValueLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationRef},
        r#type::MemRefType,
    },
};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    element::Element,
    ops::{copy_parts, memref_shape, nested_ops},
};
use tile_ir::{amdgpu, builtin, gpu, memref, nvgpu, tile, vector};

/// How a target moves runs.
#[derive(Clone, Copy)]
pub struct WideCopies {
    /// Bytes of one run: the widest load.
    pub run_bytes: i64,
    /// Most elements a vector may have.
    pub lanes: i64,
    /// Loads go through vector views of the tensors and stores lane by lane (SPIR-V), rather than
    /// vector loads and stores of the memrefs themselves.
    pub views: bool,
    /// A scheduling barrier keeps the prefetched loads ahead of the body (AMDGPU).
    pub sched_barrier: bool,
    /// One test for a whole tile first: where it lies inside the tensor (every block but those at
    /// its ends), its runs load with no branch each, back to back (NVIDIA's driver serialized
    /// loads that each sat behind their own branch: `bench/RESULTS.md`, runs 10 and 11).
    pub whole_tile_test: bool,
    /// The whole-tile test also asks that every run start at an address aligned to its size, and
    /// the loads then say so (NVIDIA: LLVM splits a vector load it cannot prove aligned into
    /// element loads).
    pub aligned_loads: bool,
    /// Main loops whose steps begin with such copies load the next step's runs into registers
    /// while the step computes (the module doc), where the kernel's fragments are in registers.
    pub prefetch: bool,
}

/// The unit attribute of the cast that stands for a tensor's vector view until the kernel's
/// skeleton gives it an argument of its own (SPIR-V).
pub const VECTOR_VIEW: &str = tile_dialect::decisions::VECTOR_VIEW;

/// Elements of one run of `copy`, if it is a copy this rule takes: from a global tensor (with
/// offsets) into a shared tile of the same element type whose last dimension is whole runs (and,
/// through a vector view, from a tensor of static shape whose rows are whole runs).
fn run_length(copy: OperationRef, target: &WideCopies) -> Option<i64> {
    if !tile_ir::is(&copy, tile::CopyOperation::name) {
        return None;
    }
    let parts = copy_parts(&copy)?;
    if parts.src_offsets.is_empty() || !parts.dst_offsets.is_empty() {
        return None;
    }
    let (src, dst) = (
        tile_dialect::ops::as_memref(parts.src.r#type())?,
        tile_dialect::ops::as_memref(parts.dst.r#type())?,
    );
    // Fragments have a memory space of their own (`#tile.fragment`): only workgroup tiles here.
    let in_workgroup = tile_dialect::level::memory_level(dst.into()) == Some(tile_dialect::level::MemoryLevel::Shared);
    if src.memory_space().is_some() || !in_workgroup || src.element() != dst.element() {
        return None;
    }
    let bytes = Element::of(dst.element())?.bytes() as i64;
    let run = (target.run_bytes / bytes).min(target.lanes);
    let shape = memref_shape(parts.dst);
    let viewable =
        !target.views || (src.has_static_shape() && memref_shape(parts.src).last().is_some_and(|row| row % run == 0));
    (run > 1 && viewable && shape.last().is_some_and(|last| last % run == 0)).then_some(run)
}

/// How one copy's runs are dealt to the threads.
struct Runs<'c, 'a> {
    /// Elements of a run.
    run: i64,
    /// The tile's shape with its last dimension counted in runs (and its first in groups of
    /// `rows`).
    extents: Vec<i64>,
    /// Runs (groups of `rows` runs) in the tile.
    total: i64,
    /// Groups a thread takes (the last trip guarded where the threads do not divide them).
    trips: i64,
    threads: i64,
    /// Runs of consecutive rows a trip takes: 1, or up to 4 where the tile is stored transposed
    /// (`crate::layout::stored`), so that the thread holds that many consecutive elements of each
    /// stored row and writes them as one vector (8 bytes of f16) instead of one element a write.
    rows: i64,
    /// The tile as stored, where transposed.
    transposed: Option<crate::layout::stored::Stored<'c, 'a>>,
    /// The tensor's dimensions the tile spans (the last of them the tensor's last).
    spans: Vec<usize>,
}

impl<'c, 'a> Runs<'c, 'a> {
    fn of(copy: OperationRef<'c, 'a>, threads: i64, target: &WideCopies) -> Option<Runs<'c, 'a>> {
        let run = run_length(copy, target)?;
        let parts = copy_parts(&copy)?;
        let dst = parts.dst;
        let mut extents = memref_shape(dst);
        *extents.last_mut()? /= run;
        // Transposed tiles are rearranged ones (`crate::layout::stored`); the whole-tile loads take one row
        // a run.
        let transposed =
            crate::layout::stored::stored(dst).filter(|stored| stored.layout.transposed && !target.whole_tile_test);
        let rows = match transposed {
            Some(_) => [4, 2, 1].into_iter().find(|rows| extents[0] % rows == 0).unwrap_or(1),
            None => 1,
        };
        extents[0] /= rows;
        let total: i64 = extents.iter().product();
        Some(Runs {
            run,
            extents,
            total,
            trips: (total + threads - 1) / threads,
            threads,
            rows,
            transposed,
            spans: parts.spans,
        })
    }

    /// The tile indices of trip `trip`'s run on this thread (`tid`), and where to emit code for
    /// it: inside a guard when the trip may lie past the tile's runs.
    fn trip(&self, b: &Builder<'c>, at: At<'c, 'a>, tid: Value<'c, 'a>, trip: i64) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let start = b.index(at, trip * self.threads);
        let flat = b.addi(at, start, tid);
        let inside = if (trip + 1) * self.threads <= self.total {
            at
        } else {
            let total = b.index(at, self.total);
            let fits = b.compare(at, "ult", flat, total);
            b.if_then(at, fits)
        };
        let mut tile = b.unflatten(inside, flat, &self.extents);
        let last = tile.len() - 1;
        let run = b.index(inside, self.run);
        tile[last] = b.muli(inside, tile[last], run);
        if self.rows > 1 {
            let rows = b.index(inside, self.rows);
            tile[0] = b.muli(inside, tile[0], rows);
        }
        (inside, tile)
    }
}

/// The tensor's indices of the element at `tile` (indices into the tile) of the tile `offsets`
/// places: the dimensions the tile does not span at their offsets alone, the tile's at offset +
/// index.
fn tensor_indices<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    runs: &Runs,
    offsets: &[Value<'c, 'a>],
    tile: &[Value<'c, 'a>],
) -> Vec<Value<'c, 'a>> {
    tile_dialect::ops::place_in(offsets, &runs.spans, tile, |offset, index| b.addi(at, offset, index))
}

/// `vector.load memref[indices]` as `ty`.
fn vector_load<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    memref: Value<'c, 'a>,
    indices: &[Value<'c, 'a>],
    ty: Type<'c>,
    alignment: Option<i64>,
) -> Value<'c, 'a> {
    let load = vector::LoadOperation::builder(b.context, b.location)
        .result(ty)
        .base(memref)
        .indices(indices);
    let load = match alignment {
        Some(bytes) => load.alignment(crate::attributes::alignment(b.context, bytes)),
        None => load,
    };
    b.value(at, load.build().into())
}

/// Bytes of one element of `ty`.
fn element_bytes(ty: Type) -> i64 {
    Element::of(ty).map_or(1, |element| element.bytes() as i64)
}

/// `vector.store value, memref[indices]`.
fn vector_store<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    value: Value<'c, 'a>,
    memref: Value<'c, 'a>,
    indices: &[Value<'c, 'a>],
) {
    b.insert(at, vector::store(b.context, value, memref, indices, b.location).into());
}

/// `tile` as a memref in LDS's integer memory space 3 (`memref.memory_space_cast`): the vector
/// conversion runs before the GPU conversion that maps `#gpu.address_space<workgroup>` to 3, and
/// knows integer memory spaces only.
/// A padded tile's view keeps its strides.
pub(crate) fn lds_view<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, tile: Value<'c, 'a>) -> Value<'c, 'a> {
    let memref = MemRefType::try_from(tile.r#type()).expect("a tile");
    let ty =
        crate::layout::stored::stored_type(b.context, memref.element(), &memref_shape(tile), Some(memref.layout()));
    b.value(at, memref::memory_space_cast(b.context, ty, tile, b.location).into())
}

/// The thread's registers for `runs` of `element`: a private array of their elements, run after
/// run, indexed by constants only (so that LLVM keeps it in registers).
fn registers<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    runs: &Runs<'c, 'a>,
    element: Type<'c>,
    private_space: &str,
) -> Value<'c, 'a> {
    let space = Attribute::parse(b.context, private_space);
    let array = MemRefType::new(element, &[runs.trips * runs.rows * runs.run], None, space);
    b.value(
        at,
        melior::dialect::memref::alloca(b.context, array, &[], &[], None, b.location),
    )
}

/// Loads this thread's runs of the tile `src[offsets]` (shaped like `runs`) into `held`: a vector
/// load where the run is inside the tensor (and, through the vector view `view`, starts at a
/// whole vector of it), else element by element with zeros outside.
#[allow(clippy::too_many_arguments)]
fn load_runs<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    runs: &Runs<'c, 'a>,
    src: Value<'c, 'a>,
    view: Option<Value<'c, 'a>>,
    offsets: &[Value<'c, 'a>],
    element: Type<'c>,
    held: Value<'c, 'a>,
    tid: Value<'c, 'a>,
    target: &WideCopies,
) {
    if !target.whole_tile_test {
        load_runs_checked(b, at, runs, src, view, offsets, element, held, tid);
        return;
    }
    let mut inside = tile_inside(b, at, runs, src, view.is_some(), offsets);
    let alignment = target.aligned_loads.then(|| runs.run * element_bytes(element));
    if alignment.is_some() {
        let aligned = crate::registers::patterns::runs_aligned(b, at, src, offsets, runs.run);
        inside = b.andi(at, inside, aligned);
    }
    let whole = b.if_then(at, inside);
    for trip in 0..runs.trips {
        let (at, tile) = runs.trip(b, whole, tid, trip);
        let indices = tensor_indices(b, at, runs, offsets, &tile);
        load_run(
            b,
            at,
            runs,
            src,
            view,
            &indices,
            element,
            held,
            trip * runs.run,
            alignment,
        );
    }
    let one = b.constant(at, melior::ir::r#type::IntegerType::new(b.context, 1).into(), 1.0);
    let outside = b.xori(at, inside, one);
    let edge = b.if_then(at, outside);
    load_runs_checked(b, edge, runs, src, view, offsets, element, held, tid);
}

/// Whether the tile `src[offsets]` (shaped like `runs`) lies wholly inside the tensor, and through
/// a vector view (`view`) starts at a whole vector of it: one test for every thread.
fn tile_inside<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    runs: &Runs<'c, 'a>,
    src: Value<'c, 'a>,
    view: bool,
    offsets: &[Value<'c, 'a>],
) -> Value<'c, 'a> {
    let rank = runs.extents.len();
    let mut inside: Option<Value> = None;
    for (dim, offset) in offsets.iter().enumerate() {
        let size = b.dim(at, src, dim as i64);
        // Unsigned: a negative offset is outside; the offset is below 2^63, so its end does not wrap.
        let mut fits = b.compare(at, "ult", *offset, size);
        if let Some(tile_dim) = tile_dialect::ops::tile_dim(&runs.spans, dim) {
            let extent = runs.extents[tile_dim] * if tile_dim + 1 == rank { runs.run } else { 1 };
            let end = b.addi(at, *offset, b.index(at, extent));
            let end_in = b.compare(at, "ule", end, size);
            fits = b.andi(at, fits, end_in);
        }
        inside = Some(match inside {
            Some(previous) => b.andi(at, previous, fits),
            None => fits,
        });
    }
    let mut inside = inside.expect("rank >= 1");
    if view {
        let last = offsets.len() - 1;
        let misaligned = b.remui(at, offsets[last], b.index(at, runs.run));
        let aligned = b.compare(at, "eq", misaligned, b.index(at, 0));
        inside = b.andi(at, inside, aligned);
    }
    inside
}

/// Loads the run at `indices` of `src` (through its vector view `view`, if any) into `held` from
/// its element `first` on.
#[allow(clippy::too_many_arguments)]
fn load_run<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    runs: &Runs<'c, 'a>,
    src: Value<'c, 'a>,
    view: Option<Value<'c, 'a>>,
    indices: &[Value<'c, 'a>],
    element: Type<'c>,
    held: Value<'c, 'a>,
    first: i64,
    alignment: Option<i64>,
) {
    let vector = crate::attributes::vector(runs.run, element);
    let last = indices.len() - 1;
    let value = match view {
        Some(view) => {
            let mut at_view = indices.to_vec();
            at_view[last] = b.divui(at, indices[last], b.index(at, runs.run));
            b.load(at, view, &at_view)
        }
        None => vector_load(b, at, src, indices, vector, alignment),
    };
    for lane in 0..runs.run {
        // The lane's type (`element`) is inferred from the vector's.
        let position = crate::attributes::i64_array(b.context, &[lane]);
        let element = b.value(at, vector::extract(b.context, value, &[], position, b.location).into());
        b.store(at, element, held, &[b.index(at, first + lane)]);
    }
}

/// [`load_runs`] with each run tested on its own: a vector load where the run is inside the
/// tensor (and starts at a whole vector of the view), else element by element with zeros outside.
#[allow(clippy::too_many_arguments)]
fn load_runs_checked<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    runs: &Runs<'c, 'a>,
    src: Value<'c, 'a>,
    view: Option<Value<'c, 'a>>,
    offsets: &[Value<'c, 'a>],
    element: Type<'c>,
    held: Value<'c, 'a>,
    tid: Value<'c, 'a>,
) {
    for (trip, row) in (0..runs.trips).flat_map(|trip| (0..runs.rows).map(move |row| (trip, row))) {
        let (at, mut tile) = runs.trip(b, at, tid, trip);
        if row > 0 {
            tile[0] = b.addi(at, tile[0], b.index(at, row));
        }
        // Where this run's elements go in the thread's array.
        let first = (trip * runs.rows + row) * runs.run;
        // The tensor's indices: the dimensions the tile does not span at their offsets alone, the
        // tile's at offset + index; every dimension but the last checked whole, the last per
        // element of the run.
        let mut indices = Vec::new();
        let mut rows_inside: Option<Value> = None;
        for (dim, offset) in offsets.iter().enumerate() {
            let index = match tile_dialect::ops::tile_dim(&runs.spans, dim) {
                Some(tile_dim) => b.addi(at, *offset, tile[tile_dim]),
                None => *offset,
            };
            if dim + 1 < offsets.len() {
                let size = b.dim(at, src, dim as i64);
                let fits = b.compare(at, "ult", index, size);
                rows_inside = Some(match rows_inside {
                    Some(previous) => b.andi(at, previous, fits),
                    None => fits,
                });
            }
            indices.push(index);
        }
        let last = indices.len() - 1;
        let size = b.dim(at, src, last as i64);
        // Whole inside when the run's first column is (unsigned: a negative offset is outside)
        // and its end is; the first is below 2^63, so the end does not wrap.
        let first_in = b.compare(at, "ult", indices[last], size);
        let end = b.addi(at, indices[last], b.index(at, runs.run));
        let end_in = b.compare(at, "ule", end, size);
        let mut whole = b.andi(at, first_in, end_in);
        if let Some(rows) = rows_inside {
            whole = b.andi(at, whole, rows);
        }
        let width = b.index(at, runs.run);
        if view.is_some() {
            let misaligned = b.remui(at, indices[last], width);
            let aligned = b.compare(at, "eq", misaligned, b.index(at, 0));
            whole = b.andi(at, whole, aligned);
        }
        let fast = b.if_then(at, whole);
        load_run(b, fast, runs, src, view, &indices, element, held, first, None);
        // At an end of the tensor: element by element, zeros outside it. Each lane loads at its
        // own indices where inside and at the tensor's first element otherwise (no branch a lane:
        // fewer blocks for LLVM), then keeps the zero there; a tensor without elements loads
        // nothing.
        let one = b.constant(at, melior::ir::r#type::IntegerType::new(b.context, 1).into(), 1.0);
        let partial = b.xori(at, whole, one);
        let slow = b.if_then(at, partial);
        let zero_index = b.index(slow, 0);
        let mut nonempty: Option<Value> = None;
        for dim in 0..offsets.len() {
            let size = b.dim(slow, src, dim as i64);
            let some = b.compare(slow, "ugt", size, zero_index);
            nonempty = Some(match nonempty {
                Some(previous) => b.andi(slow, previous, some),
                None => some,
            });
        }
        let nonempty = nonempty.expect("rank >= 1");
        let loads = b.if_then(slow, nonempty);
        let zero = b.constant(loads, element, 0.0);
        for lane in 0..runs.run {
            let column = b.addi(loads, indices[last], b.index(loads, lane));
            let mut inside = b.compare(loads, "ult", column, size);
            if let Some(rows) = rows_inside {
                inside = b.andi(loads, inside, rows);
            }
            let mut at_tensor = indices.clone();
            at_tensor[last] = column;
            let safe: Vec<Value> = at_tensor
                .iter()
                .map(|index| b.select(loads, inside, *index, zero_index))
                .collect();
            let loaded = b.load(loads, src, &safe);
            let value = b.select(loads, inside, loaded, zero);
            b.store(loads, value, held, &[b.index(loads, first + lane)]);
        }
        let empty = b.xori(slow, nonempty, one);
        let zeros = b.if_then(slow, empty);
        let zero = b.constant(zeros, element, 0.0);
        for lane in 0..runs.run {
            b.store(zeros, zero, held, &[b.index(zeros, first + lane)]);
        }
    }
}

/// Stores this thread's runs from `held` into the tile `dst` (one `vector.store` each; lane by lane
/// through SPIR-V's logical pointers; into a transposed tile, one a column of the run, holding the
/// trip's rows).
fn store_runs<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    runs: &Runs<'c, 'a>,
    dst: Value<'c, 'a>,
    held: Value<'c, 'a>,
    tid: Value<'c, 'a>,
    target: &WideCopies,
) {
    if let Some(stored) = &runs.transposed {
        return store_transposed(b, at, runs, stored, held, tid);
    }
    if target.views {
        for trip in 0..runs.trips {
            let (at, tile) = runs.trip(b, at, tid, trip);
            let last = tile.len() - 1;
            for lane in 0..runs.run {
                let value = b.load(at, held, &[b.index(at, trip * runs.run + lane)]);
                let mut indices = tile.clone();
                indices[last] = b.addi(at, tile[last], b.index(at, lane));
                b.store(at, value, dst, &indices);
            }
        }
        return;
    }
    let lds = lds_view(b, at, dst);
    let element = MemRefType::try_from(dst.r#type()).expect("a tile").element();
    let vector = crate::attributes::vector(runs.run, element);
    for trip in 0..runs.trips {
        let (at, tile) = runs.trip(b, at, tid, trip);
        let lanes: Vec<Value> = (0..runs.run)
            .map(|lane| b.load(at, held, &[b.index(at, trip * runs.run + lane)]))
            .collect();
        let value = b.value(at, vector::from_elements(b.context, vector, &lanes, b.location).into());
        vector_store(b, at, value, lds, &tile);
    }
}

/// Stores this thread's runs into a tile stored transposed: column `c` of a trip's runs is `rows`
/// consecutive elements of stored row `column + c`, one vector store (8 bytes of f16: `rows` is 4;
/// aligned to its size where the stored rows are a multiple of `rows` long).
fn store_transposed<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    runs: &Runs<'c, 'a>,
    stored: &crate::layout::stored::Stored<'c, 'a>,
    held: Value<'c, 'a>,
    tid: Value<'c, 'a>,
) {
    let lds = lds_view(b, at, stored.allocation);
    let element = MemRefType::try_from(stored.allocation.r#type())
        .expect("a tile")
        .element();
    let vector = crate::attributes::vector(runs.rows, element);
    let bytes = Element::of(element).map_or(1, |element| element.bytes() as i64) * runs.rows;
    let aligned = stored.shape[1] % runs.rows == 0;
    for trip in 0..runs.trips {
        let (at, tile) = runs.trip(b, at, tid, trip);
        for column in 0..runs.run {
            let lanes: Vec<Value> = (0..runs.rows)
                .map(|row| b.load(at, held, &[b.index(at, (trip * runs.rows + row) * runs.run + column)]))
                .collect();
            let value = b.value(at, vector::from_elements(b.context, vector, &lanes, b.location).into());
            let stored_row = b.addi(at, tile[1], b.index(at, column));
            let mut store = vector::StoreOperation::builder(b.context, b.location)
                .value_to_store(value)
                .base(lds)
                .indices(&[stored_row, tile[0]]);
            if aligned {
                store = store.alignment(crate::attributes::alignment(b.context, bytes));
            }
            b.insert(at, store.build().into());
        }
    }
}

/// Whether `op` is a copy from a global tensor into a shared tile other than `tile`.
fn writes_other_tile_from_global(op: OperationRef, tile: Value) -> bool {
    tile_ir::is(&op, tile::CopyOperation::name)
        && copy_parts(&op).is_some_and(|parts| {
            parts.dst != tile
                && parts.dst_offsets.is_empty()
                && tile_dialect::ops::as_memref(parts.src.r#type()).is_some_and(|src| src.memory_space().is_none())
        })
}

/// Lowers one copy that [`Runs`] takes, in place: loads, stores, a barrier (left out when the next
/// op is another copy from a global tensor into another tile: one barrier after the last makes
/// both visible; and the next copy's writes need no barrier before them, because every op that
/// reads a shared tile, in the register rules and in the plain strategy alike, ends with one).
#[allow(clippy::too_many_arguments)]
fn lower_copy<'c, 'a>(
    context: &'c Context,
    copy: OperationRef<'c, 'a>,
    runs: &Runs<'c, 'a>,
    tid: Value<'c, 'a>,
    start: At<'c, 'a>,
    target: &WideCopies,
    private_space: &str,
    views: &Views<'c, 'a>,
) {
    let b = Builder {
        context,
        location: copy.location(),
        threads: Some(runs.threads),
    };
    let at = At::before(copy);
    let parts = copy_parts(&copy).expect("a verified copy");
    let element = MemRefType::try_from(parts.dst.r#type()).expect("a tile").element();
    let held = registers(&b, start, runs, element, private_space);
    load_runs(
        &b,
        at,
        runs,
        parts.src,
        view_of(views, parts.src),
        &parts.src_offsets,
        element,
        held,
        tid,
        target,
    );
    store_runs(&b, at, runs, parts.dst, held, tid, target);
    if !copy
        .next_in_block()
        .is_some_and(|next| writes_other_tile_from_global(next, parts.dst))
    {
        b.barrier(at);
    }
    melior::IrRewriter::new(context).as_rewriter_base().erase_op(copy);
}

/// Lowers one copy of a ring awaited by cp.async groups (`crate::pipeline::groups`), in place:
/// where the whole tile lies inside the tensor and its runs start 16 bytes aligned (every block but
/// those at the tensor's ends), one 16-byte `cp.async` a run, straight from global memory into the
/// tile; elsewhere the runs as [`lower_copy`] moves them, without its barrier. Either
/// way the ring's wait (the group's, then a barrier) is what makes them visible.
fn lower_copy_async<'c, 'a>(
    context: &'c Context,
    copy: OperationRef<'c, 'a>,
    runs: &Runs<'c, 'a>,
    tid: Value<'c, 'a>,
    start: At<'c, 'a>,
    target: &WideCopies,
    private_space: &str,
) {
    let b = Builder {
        context,
        location: copy.location(),
        threads: Some(runs.threads),
    };
    let at = At::before(copy);
    let parts = copy_parts(&copy).expect("a verified copy");
    let element = MemRefType::try_from(parts.dst.r#type()).expect("a tile").element();
    let inside = tile_inside(&b, at, runs, parts.src, false, &parts.src_offsets);
    let aligned = crate::registers::patterns::runs_aligned(&b, at, parts.src, &parts.src_offsets, runs.run);
    let (whole, edge) = b.if_else(at, b.andi(at, inside, aligned));
    let token_type = Type::parse(context, "!nvgpu.device.async.token").expect("token type");
    for trip in 0..runs.trips {
        let (at, tile) = runs.trip(&b, whole, tid, trip);
        let indices = tensor_indices(&b, at, runs, &parts.src_offsets, &tile);
        // The operands in the op's order: the tile and its indices, the tensor and its indices
        // (no element count: the whole run).
        let run = nvgpu::DeviceAsyncCopyOperation::builder(context, b.location)
            .async_token(token_type)
            .dst(parts.dst)
            .dst_indices(&tile)
            .src(parts.src)
            .src_indices(&indices)
            .dst_elements(IntegerAttribute::new(Type::index(context), runs.run));
        // Only 16-byte copies may bypass L1 (`cp.async.cg`).
        let run = match runs.run * element_bytes(element) {
            16 => run.bypass_l_1(Attribute::unit(context)).build(),
            _ => run.build(),
        };
        let segments = [1, tile.len() as i32, 1, indices.len() as i32, 0];
        b.insert(at, tile_ir::with_segments(context, run, &segments));
    }
    let held = registers(&b, start, runs, element, private_space);
    load_runs_checked(&b, edge, runs, parts.src, None, &parts.src_offsets, element, held, tid);
    store_runs(&b, edge, runs, parts.dst, held, tid, target);
    melior::IrRewriter::new(context).as_rewriter_base().erase_op(copy);
}

/// The copies a `tile.pipelined` loop's steps begin with that can be prefetched: every op before the
/// last of them is such a copy or index arithmetic; their offsets are computed from the induction
/// variable; no op of `kernel` writes their source tensors. Empty when the loop does not qualify.
fn prefetched<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    pipelined: OperationRef<'c, 'a>,
    target: &WideCopies,
) -> Vec<OperationRef<'c, 'a>> {
    let Some(body) = pipelined.body() else {
        return Vec::new();
    };
    let mut copies = Vec::new();
    let mut op = body.first_operation();
    while let Some(current) = op {
        if Runs::of(current, 1, target).is_some() {
            copies.push(current);
        } else if !(tile_ir::in_dialect(&current, DialectHandle::arith()) && current.region_count() == 0) {
            break;
        }
        op = current.next_in_block();
    }
    let sources: Vec<Value> = copies
        .iter()
        .filter_map(|copy| copy_parts(copy).map(|parts| parts.src))
        .collect();
    let written = nested_ops(kernel).into_iter().any(|op| {
        tile_ir::match_op!(op, {
            tile::CopyOperation => copy_parts(&op).is_some_and(|parts| sources.contains(&parts.dst)),
            memref::StoreOperation => op.operand_at(1).is_some_and(|memref| sources.contains(&memref)),
            _ => false,
        })
    });
    let computable = copies.iter().all(|copy| {
        copy_parts(copy).is_some_and(|parts| {
            std::iter::once(parts.src)
                .chain(parts.src_offsets.iter().copied())
                .all(|value| crate::pipeline::ahead::computable(value, pipelined, 0))
        })
    });
    // Each tile written once (kept simple: a tile's runs are held in registers once per copy).
    let tiles: Vec<Value> = copies
        .iter()
        .filter_map(|copy| copy_parts(copy).map(|parts| parts.dst))
        .collect();
    let distinct = tiles
        .iter()
        .enumerate()
        .all(|(index, tile)| !tiles[..index].contains(tile));
    if written || !computable || !distinct || copies.is_empty() {
        return Vec::new();
    }
    copies
}

/// `lhs < rhs`, signed (as loop bounds compare).
fn less<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, lhs: Value<'c, 'a>, rhs: Value<'c, 'a>) -> Value<'c, 'a> {
    b.value(
        at,
        melior::dialect::arith::cmpi(
            b.context,
            melior::dialect::arith::CmpiPredicate::Slt,
            lhs,
            rhs,
            b.location,
        ),
    )
}

/// Rewrites `pipelined` so that its `copies` (see [`prefetched`]) load a step ahead (the module doc).
#[allow(clippy::too_many_arguments)]
fn prefetch<'c, 'a>(
    context: &'c Context,
    pipelined: OperationRef<'c, 'a>,
    copies: &[OperationRef<'c, 'a>],
    threads: i64,
    tid: Value<'c, 'a>,
    start: At<'c, 'a>,
    target: &WideCopies,
    private_space: &str,
    views: &Views<'c, 'a>,
) {
    let b = Builder {
        context,
        location: pipelined.location(),
        threads: Some(threads),
    };
    let body = pipelined.body().expect("loop body");
    let iv: Value = body.argument_at(0).expect("induction variable").into();
    let lower = pipelined.operand_at(0).expect("verified loop");
    let upper = pipelined.operand_at(1).expect("verified loop");
    let before = At::before(pipelined);
    let step = if pipelined.operand_count() == 3 {
        pipelined.operand_at(2).expect("step")
    } else {
        b.index(before, 1)
    };
    let held: Vec<(Runs, Value, Type)> = copies
        .iter()
        .map(|copy| {
            let runs = Runs::of(*copy, threads, target).expect("checked");
            let element = MemRefType::try_from(copy_parts(copy).expect("a copy").dst.r#type())
                .expect("a tile")
                .element();
            let array = registers(&b, start, &runs, element, private_space);
            (runs, array, element)
        })
        .collect();
    // Step lb's loads before the loop (guarded: the loop may run no step).
    let first = b.if_then(before, less(&b, before, lower, upper));
    let load_step = |at: At<'c, '_>, at_iv: Value<'c, '_>| {
        let mut done = Vec::new();
        for (copy, (runs, array, element)) in copies.iter().zip(&held) {
            let parts = copy_parts(copy).expect("a copy");
            let src = crate::pipeline::expand::materialize(parts.src, pipelined, iv, at_iv, at, &mut done);
            let offsets: Vec<Value> = parts
                .src_offsets
                .iter()
                .map(|offset| crate::pipeline::expand::materialize(*offset, pipelined, iv, at_iv, at, &mut done))
                .collect();
            load_runs(
                &b,
                at,
                runs,
                src,
                view_of(views, parts.src),
                &offsets,
                *element,
                *array,
                tid,
                target,
            );
        }
    };
    load_step(first, lower);
    // In the body, where the last copy stood: this step's stores, a barrier, the next step's loads.
    let last = *copies.last().expect("copies");
    let at = At::before(last);
    for (copy, (runs, array, _)) in copies.iter().zip(&held) {
        let dst = copy_parts(copy).expect("a copy").dst;
        store_runs(&b, at, runs, dst, *array, tid, target);
    }
    b.barrier(at);
    let next = b.addi(at, iv, step);
    let more = b.if_then(at, less(&b, at, next, upper));
    load_step(more, next);
    // Keep LLVM's scheduler from sinking the loads below the body's work: issued first, they have
    // the whole step to arrive.
    if target.sched_barrier {
        let opts = Attribute::parse(context, "#amdgpu.sched_barrier_opt<none>").expect("sched_barrier options");
        b.insert(at, amdgpu::sched_barrier(context, opts, b.location).into());
    }
    // The body ends with a barrier, so that the next step's stores wait for every reader.
    let terminator = body.terminator().expect("a loop body ends with its terminator");
    let mut op = body.first_operation();
    let mut previous = None;
    while let Some(current) = op.filter(|current| *current != terminator) {
        previous = Some(current);
        op = current.next_in_block();
    }
    let ends_with_barrier = previous.is_some_and(|previous| tile_ir::is(&previous, gpu::BarrierOperation::name));
    if !ends_with_barrier {
        b.barrier(At::before(terminator));
    }
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    for copy in copies {
        rewriter.erase_op(*copy);
    }
}

/// Lowers every copy of `kernel` from a global tensor into a shared tile that goes in runs, after
/// prefetching the main loops that begin with them (`prefetch_loops`: the register rules lowered
/// the kernel, so the ops after the copies are what they read); the plain strategy lowers the rest.
pub fn lower<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    threads: i64,
    prefetch_loops: bool,
    target: &WideCopies,
    private_space: &str,
    asynchronous: &[OperationRef<'c, 'a>],
) {
    let Some(block) = kernel.body() else {
        return;
    };
    let Some(first) = block.first_operation() else { return };
    let start = At::before(first);
    let b = Builder {
        context,
        location: kernel.location(),
        threads: Some(threads),
    };
    let tid = b.thread_id(start);
    let views = if target.views {
        vector_views(&b, start, kernel, threads, target)
    } else {
        Vec::new()
    };
    if prefetch_loops && target.prefetch {
        for pipelined in nested_ops(kernel)
            .into_iter()
            .filter(|op| tile_ir::is(op, tile::PipelinedOperation::name))
        {
            let copies = prefetched(kernel, pipelined, target);
            if !copies.is_empty() {
                prefetch(
                    context,
                    pipelined,
                    &copies,
                    threads,
                    tid,
                    start,
                    target,
                    private_space,
                    &views,
                );
            }
        }
    }
    for copy in nested_ops(kernel) {
        match Runs::of(copy, threads, target) {
            Some(runs) if asynchronous.contains(&copy) && !target.views && runs.transposed.is_none() => {
                lower_copy_async(context, copy, &runs, tid, start, target, private_space)
            }
            Some(runs) => lower_copy(context, copy, &runs, tid, start, target, private_space, &views),
            None => {}
        }
    }
}

/// Each source tensor of a run copy and its vector view.
type Views<'c, 'a> = Vec<(Value<'c, 'a>, Value<'c, 'a>)>;

fn view_of<'c, 'a>(views: &Views<'c, 'a>, tensor: Value<'c, 'a>) -> Option<Value<'c, 'a>> {
    views
        .iter()
        .find(|(source, _)| *source == tensor)
        .map(|(_, view)| *view)
}

/// The vector views (see the module) of the tensors the run copies of `kernel` read, made at
/// `start`: `memref<d0 x ... x (dn / run) x vector<run x element>>` casts marked [`VECTOR_VIEW`].
fn vector_views<'c, 'a>(
    b: &Builder<'c>,
    start: At<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    threads: i64,
    target: &WideCopies,
) -> Views<'c, 'a> {
    let mut views: Views = Vec::new();
    for copy in nested_ops(kernel) {
        let Some(runs) = Runs::of(copy, threads, target) else {
            continue;
        };
        let tensor = copy_parts(&copy).expect("a copy").src;
        if view_of(&views, tensor).is_some() {
            continue;
        }
        let memref = MemRefType::try_from(tensor.r#type()).expect("a tensor");
        let mut shape = memref_shape(tensor);
        let last = shape.len() - 1;
        shape[last] /= runs.run;
        let ty: Type = MemRefType::new(
            crate::attributes::vector(runs.run, memref.element()),
            &shape,
            None,
            None,
        )
        .into();
        let cast = b.insert(
            start,
            builtin::unrealized_conversion_cast(b.context, &[ty], &[tensor], b.location).into(),
        );
        tile_dialect::ops::set_attribute(cast, VECTOR_VIEW, Attribute::unit(b.context));
        views.push((tensor, cast.result_at(0).expect("a view").into()));
    }
    views
}

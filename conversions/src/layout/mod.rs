//! `tile-infer-layouts`: decides, for the target named by the module's `tile.target` attribute, the
//! layout of every tile of every kernel and records it as typed IR: a `#tile.frag` (which thread
//! holds each element, in which register slot) on each `tile.alloc_fragment`, a `#tile.smem`
//! (swizzle, padding, orientation, TMA boxes) on each `tile.alloc_shared`, both as `tile.layout`,
//! and a `#tile.frag` over the iteration space on each `tile.parallel` (`tile.loop_layout`: which
//! thread runs each iteration). A layout written in the input is kept.
//!
//! [`propagate`] holds the algorithm (TileLang's strict / common / free steps): the target's matrix
//! instructions fix the layouts of each `tile.gemm`'s operands ([`anchors`], built from the
//! instruction layouts of [`atoms`]); reductions, fragment copies and elementwise loops carry them
//! to every other fragment; what is left takes the blocked layout. A tile wanted in two layouts that
//! disagree is an error naming both ops.
//!
//! The kernel also gets `tile.strategy`: the target's [`crate::target::Strategy`] (`per-op` where
//! the lowering reads the recorded layouts op by op, `plain` elsewhere).
//!
//! A loop that only reads a fragment laid out where the loop does not run gets a copy of it in its
//! own layout ([`convert`]). Inference runs once: the passes after this one read what it recorded
//! ([`recorded`]); one run on a kernel this pass has not seen records the layouts first
//! ([`ensure_recorded`]).

pub mod anchors;
pub mod atoms;
mod convert;
mod propagate;
pub mod stored;
pub mod tma;

pub use propagate::Inferred;

use crate::kernels::Failure;
use crate::target::Target;
use melior::{
    Context, ContextRef,
    ir::{
        Attribute,
        attribute::StringAttribute,
        operation::{OperationLike, OperationRef},
        r#type::TypeId,
    },
    pass::{ExternalPass, Pass, RunExternalPass, create_external},
};
use tile_dialect::{
    layout::{FragmentLayout, SharedLayout},
    ops::set_attribute,
};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-infer-layouts";
pub use tile_dialect::layout::{LAYOUT_ATTRIBUTE, LOOP_LAYOUT_ATTRIBUTE};

/// How many times inference starts again after giving loops copies of fragments they read in
/// another layout.
const MAX_CONVERSION_ROUNDS: usize = 8;

/// A tile's layout: a fragment's or a shared tile's.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Layout {
    /// `#tile.frag`.
    Fragment(FragmentLayout),
    /// `#tile.smem`.
    Shared(SharedLayout),
}

impl Layout {
    /// Returns the model of a `#tile.frag` or `#tile.smem` attribute.
    pub fn from_attribute(attribute: Attribute) -> Option<Layout> {
        FragmentLayout::from_attribute(attribute)
            .map(Layout::Fragment)
            .or_else(|| SharedLayout::from_attribute(attribute).map(Layout::Shared))
    }

    /// Creates the attribute.
    pub fn to_attribute<'c>(&self, context: &'c Context) -> Attribute<'c> {
        match self {
            Layout::Fragment(layout) => layout.to_attribute(context),
            Layout::Shared(layout) => layout.to_attribute(context),
        }
    }

    /// Returns whether the two place every element alike: the same threads and slots for
    /// fragments, the same shared layout up to its ring depth (which pipeline scheduling decides).
    pub fn agrees(&self, other: &Layout) -> bool {
        match (self, other) {
            (Layout::Fragment(a), Layout::Fragment(b)) if a == b => true,
            (Layout::Fragment(a), Layout::Fragment(b)) => {
                a.same_owners(b) && {
                    let (a, b) = (a.table(), b.table());
                    (0..a.len()).all(|element| a.slot(element) == b.slot(element))
                }
            }
            (Layout::Shared(a), Layout::Shared(b)) => {
                SharedLayout {
                    buffers: 1,
                    ..a.clone()
                } == SharedLayout {
                    buffers: 1,
                    ..b.clone()
                }
            }
            _ => false,
        }
    }

    /// Describes the layout in a few words, for diagnostics.
    pub fn summary(&self) -> String {
        match self {
            Layout::Fragment(layout) => format!("the {} layout", layout.origin),
            Layout::Shared(layout) => {
                let mut fields = Vec::new();
                for (name, value, default) in [("swizzle", layout.swizzle, 0), ("padding", layout.padding, 0)] {
                    if value != default {
                        fields.push(format!("{name} = {value}"));
                    }
                }
                if layout.transposed {
                    fields.push("transposed = true".to_owned());
                }
                if !layout.r#box.is_empty() {
                    let sizes: Vec<String> = layout.r#box.iter().map(i64::to_string).collect();
                    fields.push(format!("box = [{}]", sizes.join(", ")));
                }
                for (name, value) in [("boxes", layout.boxes), ("buffers", layout.buffers)] {
                    if value != 1 {
                        fields.push(format!("{name} = {value}"));
                    }
                }
                format!("#tile.smem<{}>", fields.join(", "))
            }
        }
    }
}

/// Which copies layout inference takes to fill wgmma's shared tiles by TMA, where rings have it (swizzled
/// boxes; the threads' copies write column slabs).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Rings {
    /// The copies the loops' rings issue ahead, as `tile-plan-pipelines` marks them or will: what
    /// this pass and `tile-plan-pipelines` record, for the rings `tile-expand-pipelines` then
    /// writes.
    Forecast,
    /// The `tile.copy_async`s already written: what a lowering run on a kernel no earlier pass
    /// laid out finds.
    Written,
}

/// Records the layouts of `kernel` on `chip` where `tile-infer-layouts` has not (a later pass run
/// without it, as in a lit test of one pass): the same inference, once, with `rings` saying which
/// copies fill wgmma's tiles by TMA. Layouts recorded for another target are an error: each
/// target's instructions fix their own.
pub fn ensure_recorded<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    chip: &'static Target,
    rings: Rings,
) -> Result<(), Failure<'c, 'a>> {
    let Ok(strategy) = kernel.attribute(tile_dialect::decisions::STRATEGY.name) else {
        return infer_kernel(context, kernel, chip, rings);
    };
    let module = std::iter::successors(Some(kernel), |op| op.parent_operation()).last();
    if let Some(recorded_for) = module.and_then(|module| Target::of(module).ok())
        && recorded_for.name != chip.name
    {
        return Err((
            kernel,
            format!(
                "has layouts tile-infer-layouts recorded for {}, but is lowered for {}: set tile.target = \"{}\" on the module before tile-infer-layouts",
                recorded_for.name, chip.name, chip.name
            ),
        ));
    }
    let strategy_name = tile_dialect::ops::attribute_text(strategy);
    if strategy_name.as_deref() != Some(chip.strategy.name()) {
        return Err((
            kernel,
            format!(
                "has tile.strategy = {strategy}, but {} lowers kernels {}",
                chip.name,
                chip.strategy.name()
            ),
        ));
    }
    Ok(())
}

/// The layouts recorded on `kernel`'s tiles and loops ([`ensure_recorded`]): what every pass after
/// `tile-infer-layouts` reads. A tile or loop without one is an error at it; barriers hold no tile
/// and have none.
pub fn recorded<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Result<Inferred<'c, 'a>, Failure<'c, 'a>> {
    let missing = |op: OperationRef<'c, 'a>, attribute: &str| {
        (
            op,
            format!(
                "has no {attribute}, which tile-infer-layouts records on every tile and loop of a kernel before the passes that read it (it was created after the pass, or the pass did not run)"
            ),
        )
    };
    let mut inferred = Inferred {
        tiles: Vec::new(),
        loops: Vec::new(),
        conversions: Vec::new(),
    };
    for op in tile_dialect::ops::nested_ops(kernel) {
        tile_ir::match_op!(&op, {
            tile_ir::tile::AllocFragmentOperation | tile_ir::tile::AllocSharedOperation => {
                let given = op.attribute(LAYOUT_ATTRIBUTE).map_err(|_| missing(op, LAYOUT_ATTRIBUTE))?;
                let layout = Layout::from_attribute(given).ok_or_else(|| {
                    (op, format!("expects its {LAYOUT_ATTRIBUTE} to be a #tile.frag (fragments) or #tile.smem (shared tiles), but got {given}"))
                })?;
                inferred.tiles.push((op, layout));
            },
            tile_ir::tile::AllocBarriersOperation => inferred.tiles.push((op, Layout::Shared(SharedLayout::row_major()))),
            tile_ir::tile::ParallelOperation => {
                let given = op.attribute(LOOP_LAYOUT_ATTRIBUTE).map_err(|_| missing(op, LOOP_LAYOUT_ATTRIBUTE))?;
                let layout = FragmentLayout::from_attribute(given)
                    .ok_or_else(|| (op, format!("expects its {LOOP_LAYOUT_ATTRIBUTE} to be a #tile.frag, but got {given}")))?;
                inferred.loops.push((op, layout));
            },
            _ => {},
        });
    }
    Ok(inferred)
}

/// Records the layout of every tile and loop of `kernel` on `chip`, and its strategy.
fn infer_kernel<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    chip: &'static Target,
    rings: Rings,
) -> Result<(), Failure<'c, 'a>> {
    let strategy = chip.strategy;
    let mut inferred = propagate::infer(kernel, chip, rings)?;
    // Each conversion gives a loop a fragment of its own: inference then starts again, with one
    // conflict fewer (a bound, should a conversion ever bring another).
    for _ in 0..MAX_CONVERSION_ROUNDS {
        if inferred.conversions.is_empty() {
            break;
        }
        for (parallel, fragment) in std::mem::take(&mut inferred.conversions) {
            convert::insert(context, kernel, parallel, fragment).map_err(|message| (parallel, message))?;
        }
        inferred = propagate::infer(kernel, chip, rings)?;
    }
    if let Some((parallel, fragment)) = inferred.conversions.first() {
        return Err((
            *parallel,
            format!(
                "reads the fragment at {} in a layout it cannot be given after {MAX_CONVERSION_ROUNDS} conversions",
                fragment.location()
            ),
        ));
    }
    for (allocation, layout) in inferred.tiles {
        if tile_ir::is(&allocation, tile_ir::tile::AllocBarriersOperation::name) {
            continue;
        }
        set_attribute(allocation, LAYOUT_ATTRIBUTE, layout.to_attribute(context));
    }
    for (parallel, layout) in inferred.loops {
        set_attribute(parallel, LOOP_LAYOUT_ATTRIBUTE, layout.to_attribute(context));
    }
    set_attribute(
        kernel,
        tile_dialect::decisions::STRATEGY.name,
        StringAttribute::new(context, strategy.name()).into(),
    );
    Ok(())
}

tile_passes::rust_pass! {
    /// Creates the `tile-infer-layouts` pass (on `builtin.module`).
    pub fn create_infer_layouts_pass() {
        argument: ARGUMENT,
        name: "TileInferLayouts",
        description: "Record the layout of every tile (tile.layout) for the module's tile.target, and report tiles two ops want laid out differently",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [tile_dialect::dialect_handle()],
        run: |module| {
            let target = Target::of(module)?;
            crate::kernels::lower_each_kernel(module, &|context, _, kernel, _| infer_kernel(context, kernel, target, Rings::Forecast))
        },
    }
}

#[repr(align(8))]
struct AttachId;
static ATTACH_ID: AttachId = AttachId;

/// Sets `tile.target` on the module: the first pass of each target pipeline.
#[derive(Clone)]
struct AttachTarget {
    target: &'static Target,
}

impl<'c> RunExternalPass<'c> for AttachTarget {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, module: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let target = self.target;
        tile_passes::guard::run_guarded("tile-attach-target", module, pass, |module| {
            target.record(module);
            Ok(())
        });
    }
}

/// A pass that sets `tile.target` to `target` on the module (not registered: the pipelines add
/// it).
pub fn attach_target_pass(target: &'static Target) -> Pass {
    create_external(
        AttachTarget { target },
        TypeId::create(&ATTACH_ID),
        "TileAttachTarget",
        "tile-attach-target",
        "Set tile.target on the module",
        tile_ir::builtin::ModuleOperation::name(),
        &[],
    )
}

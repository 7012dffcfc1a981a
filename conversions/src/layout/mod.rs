//! `tile-infer-layouts`: decides, for the target named by the module's `tile.target` attribute, how
//! every tile of every kernel is laid out, and records it as a `tile.layout` dictionary on the op
//! that allocates the tile:
//!
//! - tensor-core kernels (sm_90a, gfx942, spirv-coopmat): the shared tiles' swizzle or padding as the
//!   copies write them and the MMAs read them, the accumulator's instruction layout and how its
//!   threads are grouped, the row fragments' lanes;
//! - every other kernel: which fragments each thread owns privately and which live in workgroup
//!   memory (the plain strategy), and on the kernel, in `tile.strategy`, why it is not on tensor
//!   cores.
//!
//! A tile two ops want laid out in two ways (a shared tile one `tile.gemm` reads as A and another as
//! B, a fragment that is one gemm's accumulator and another's operand) has no layout: an error names
//! both ops. The lowerings decide with the same functions ([`Strategy`]) and refuse a `tile.layout`
//! that disagrees with theirs, so an annotated program is lowered as annotated or not at all.

use crate::kernels::Failure;
use melior::{
    Context, ContextRef,
    ir::{
        Attribute, Value,
        attribute::StringAttribute,
        operation::{OperationLike, OperationRef, OperationResult},
        r#type::TypeId,
    },
    pass::{ExternalPass, Pass, RunExternalPass, create_external},
};
use tile_dialect::ops::{integer_attribute, nested_ops, op_name, set_attribute, string_attribute};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-infer-layouts";
/// The module attribute naming the target.
pub const TARGET_ATTRIBUTE: &str = "tile.target";
/// The attribute that records a tile's layout on its allocation.
pub const LAYOUT_ATTRIBUTE: &str = "tile.layout";

/// How a kernel lowers on one target. (One is made per kernel and consumed at once: the size of
/// the tensor-core variant costs nothing worth a box.)
#[allow(clippy::large_enum_variant)]
pub enum Strategy<'c, 'a, C> {
    /// On tensor cores: the GEMM plan, the target's configuration, each tile's layout (the tile and
    /// its `tile.layout` dictionary, as MLIR writes it), and the main loop's `tile.schedule`.
    TensorCores(crate::gemm::plan::GemmPlan<'c, 'a>, C, Vec<(Value<'c, 'a>, String)>, String),
    /// With the plain strategy, for `reason` (at `op`).
    Plain {
        /// The op the reason concerns.
        op: OperationRef<'c, 'a>,
        /// Why the kernel is not on tensor cores.
        reason: String,
    },
}

/// The start of every tensor-core lowering: a kernel `strategy` puts on the plain strategy is lowered
/// so (with `flavor`) and `None` comes back; otherwise its layouts are checked against any already
/// annotated and the plan and configuration come back.
pub fn tensor_cores_or_plain<'c, 'a, C>(
    strategy: Strategy<'c, 'a, C>,
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
    flavor: &crate::generic::Flavor,
) -> Result<Option<(crate::gemm::plan::GemmPlan<'c, 'a>, C)>, Failure<'c, 'a>> {
    match strategy {
        Strategy::Plain { op, reason } => {
            crate::generic::fall_back(context, module, kernel, index, flavor, op, reason).map(|()| None)
        }
        Strategy::TensorCores(plan, config, layouts, schedule) => {
            check_annotations(&layouts, flavor.target)?;
            crate::schedule::check_schedule(plan.main_loop.op, &schedule, flavor.target)?;
            Ok(Some((plan, config)))
        }
    }
}

/// Checks that no tile is wanted in two layouts by the tensor-core ops of `kernel`: a shared tile
/// read by gemms in different operand roles, a fragment that is one gemm's accumulator and another
/// gemm's operand.
pub fn check_conflicts<'c, 'a>(kernel: OperationRef<'c, 'a>, chip: &str) -> Result<(), Failure<'c, 'a>> {
    // (tile, role, the gemm that wants it so)
    let mut uses: Vec<(Value, &str, OperationRef)> = Vec::new();
    for gemm in nested_ops(kernel).into_iter().filter(|op| op_name(op) == "tile.gemm") {
        let transposed = |name: &str| gemm.attribute(name).is_ok();
        let roles = [
            (0, if transposed("transpose_a") { "A (transposed)" } else { "A" }),
            (1, if transposed("transpose_b") { "B (transposed)" } else { "B" }),
            (2, "the accumulator"),
        ];
        for (operand, role) in roles {
            let Ok(tile) = gemm.operand(operand) else { continue };
            if let Some((_, other_role, other)) = uses.iter().find(|(used, r, _)| *used == tile && *r != role) {
                let allocation = OperationResult::try_from(tile).map(|result| result.owner()).unwrap_or(gemm);
                return Err((
                    allocation,
                    format!(
                        "has no consistent layout on {chip}: '{}' at {} uses it as {other_role}, '{}' at {} as {role}; give each use a tile of its own (copy it)",
                        op_name(other),
                        other.location(),
                        op_name(&gemm),
                        gemm.location()
                    ),
                ));
            }
            uses.push((tile, role, gemm));
        }
    }
    Ok(())
}

/// The layouts of a kernel on the plain strategy: each fragment private to its threads or in
/// workgroup memory, each shared tile row-major in workgroup memory.
pub fn plain_layouts<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Vec<(Value<'c, 'a>, String)> {
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    let owned = crate::generic::thread_owned_fragments(kernel, threads);
    nested_ops(kernel)
        .into_iter()
        .filter(|op| op_name(op).starts_with("tile.alloc_"))
        .filter_map(|op| {
            let tile: Value = op.result(0).ok()?.into();
            let layout = if owned.contains(&op) {
                format!("{{kind = \"thread_owned\", threads = {threads} : i64}}")
            } else {
                "{kind = \"workgroup\", order = \"row_major\"}".to_owned()
            };
            Some((tile, layout))
        })
        .collect()
}

/// Refuses a `tile.layout` already on a tile that differs from `layouts` (what the lowering does).
pub fn check_annotations<'c, 'a>(layouts: &[(Value<'c, 'a>, String)], chip: &str) -> Result<(), Failure<'c, 'a>> {
    for (tile, layout) in layouts {
        let Ok(allocation) = OperationResult::try_from(*tile).map(|result| result.owner()) else { continue };
        let Ok(given) = allocation.attribute(LAYOUT_ATTRIBUTE) else { continue };
        let wanted = with_context_parse(allocation, layout);
        if wanted.is_some_and(|wanted| wanted != given) || wanted.is_none() {
            return Err((
                allocation,
                format!("has tile.layout {given}, but the {chip} lowering lays it out as {layout}; drop the attribute or run tile-infer-layouts for {chip}"),
            ));
        }
    }
    Ok(())
}

fn with_context_parse<'c>(op: OperationRef<'c, '_>, text: &str) -> Option<Attribute<'c>> {
    tile_dialect::ops::with_context(op, |context| Attribute::parse(context, text))
}

/// The module's `tile.target`, or what to do without one.
pub fn target_of(module: OperationRef) -> Result<String, String> {
    string_attribute(&module, TARGET_ATTRIBUTE).ok_or(format!(
        "needs the target: set {TARGET_ATTRIBUTE} = \"sm_90a\" (or \"gfx942\", \"spirv\", \"spirv-coopmat\") on the module, or run the tile-to-nvvm, tile-to-rocdl or tile-to-spirv pipeline"
    ))
}

/// What a target decides for one kernel, whatever its configuration type: each tile's layout, the
/// main loop's schedule (tensor cores only), and the strategy in words.
pub struct Decisions<'c, 'a> {
    /// Each tile and its `tile.layout`.
    pub layouts: Vec<(Value<'c, 'a>, String)>,
    /// The main loop and its `tile.schedule`.
    pub schedule: Option<(OperationRef<'c, 'a>, String)>,
    /// `tensor cores`, or `plain: ` and why.
    pub strategy: String,
}

/// Decides `kernel` for `chip` (through the chip's lowering's own `resolve`).
pub fn decide<'c, 'a>(kernel: OperationRef<'c, 'a>, chip: &str) -> Result<Decisions<'c, 'a>, Failure<'c, 'a>> {
    fn from<'c, 'a, C>(strategy: Strategy<'c, 'a, C>, kernel: OperationRef<'c, 'a>) -> Decisions<'c, 'a> {
        match strategy {
            Strategy::TensorCores(plan, _, layouts, schedule) => Decisions {
                layouts,
                schedule: Some((plan.main_loop.op, schedule)),
                strategy: "tensor cores".to_owned(),
            },
            Strategy::Plain { reason, .. } => Decisions {
                layouts: plain_layouts(kernel),
                schedule: None,
                strategy: format!("plain: {reason}"),
            },
        }
    }
    match chip {
        "sm_90a" => Ok(from(crate::nvgpu::resolve(kernel)?, kernel)),
        "gfx942" => Ok(from(crate::amdgpu::resolve(kernel)?, kernel)),
        "spirv-coopmat" => Ok(from(crate::spirv::coopmat::resolve(kernel)?, kernel)),
        "spirv" => Ok(Decisions { layouts: plain_layouts(kernel), schedule: None, strategy: "plain".to_owned() }),
        _ => Err((kernel, format!("has no decisions for target {chip}; expected sm_90a, gfx942, spirv or spirv-coopmat"))),
    }
}

/// Annotates every tile of `kernel` with its layout on `chip`.
fn infer_kernel<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>, chip: &str) -> Result<(), Failure<'c, 'a>> {
    let Decisions { layouts, strategy, .. } = decide(kernel, chip)?;
    for (tile, layout) in layouts {
        let Ok(allocation) = OperationResult::try_from(tile).map(|result| result.owner()) else { continue };
        let attribute = Attribute::parse(context, &layout)
            .ok_or_else(|| (allocation, format!("internal error: the layout {layout} does not parse")))?;
        set_attribute(allocation, LAYOUT_ATTRIBUTE, attribute);
    }
    set_attribute(kernel, "tile.strategy", StringAttribute::new(context, &strategy).into());
    Ok(())
}

tile_passes::rust_pass! {
    /// Creates the `tile-infer-layouts` pass (on `builtin.module`).
    pub fn create_infer_layouts_pass() {
        argument: ARGUMENT,
        name: "TileInferLayouts",
        description: "Record the layout of every tile (tile.layout) for the module's tile.target, and report tiles two ops want laid out differently",
        anchor: "builtin.module",
        dialects: [tile_dialect::dialect_handle()],
        run: |module| {
            let chip = target_of(module)?;
            crate::kernels::lower_each_kernel(module, &|context, _, kernel, _| infer_kernel(context, kernel, &chip))
        },
    }
}

#[repr(align(8))]
struct AttachId;
static ATTACH_ID: AttachId = AttachId;

/// Sets `tile.target` on the module: the first pass of each target pipeline.
#[derive(Clone)]
struct AttachTarget {
    chip: String,
}

impl<'c> RunExternalPass<'c> for AttachTarget {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, module: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        let chip = self.chip.clone();
        tile_passes::guard::run_guarded("tile-attach-target", module, pass, |module| {
            let value = tile_dialect::ops::with_context(module, |context| StringAttribute::new(context, &chip).into());
            set_attribute(module, TARGET_ATTRIBUTE, value);
            Ok(())
        });
    }
}

/// A pass that sets `tile.target = chip` on the module (not registered: the pipelines add it).
pub fn attach_target_pass(chip: &str) -> Pass {
    create_external(
        AttachTarget { chip: chip.to_owned() },
        TypeId::create(&ATTACH_ID),
        "TileAttachTarget",
        "tile-attach-target",
        "Set tile.target on the module",
        "builtin.module",
        &[],
    )
}

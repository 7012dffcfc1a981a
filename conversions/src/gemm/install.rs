//! The two ends every GEMM kernel rendering shares: outlining the program's index and epilogue
//! arithmetic into helper functions the rendered kernel calls, and installing the rendered kernel
//! (parse, inline the helpers, attach the launch manifest, replace the `tile.kernel`).

use super::{outline, plan::{Axis, GemmPlan}, text::Text};
use melior::{
    Context,
    ir::{
        Attribute, BlockLike, Module, RegionLike,
        attribute::StringAttribute,
        operation::{OperationLike, OperationMutLike, OperationRef},
    },
};
use tile_dialect::ops::{clone_detached, set_attribute};

/// The outlined helpers of one kernel: their names and their `func.func` text.
pub struct Helpers {
    /// Computes the A and B tile origins of one main-loop iteration.
    pub load_origin: String,
    /// Computes the result tile's origin.
    pub store_origin: String,
    /// Results of the load-origin helper: one per dimension of A's global tensor, then of B's.
    pub load_results: usize,
    /// Results of the store-origin helper: one per dimension of the result's global tensor.
    pub store_results: usize,
    /// Present when the kernel has epilogue loops over the accumulator or a nonzero fill, and no
    /// row reductions.
    pub epilogue: Option<String>,
    /// With row reductions: the epilogue in segments, one before each reduction and one after the
    /// last. Segment `s` is `(v, i, j, rows[0..s]..., params...) -> v'`.
    pub segments: Vec<String>,
    /// The kind and axis of each reduction, between the segments.
    pub reductions: Vec<(tile_dialect::ops::ReductionKind, Axis)>,
    /// The types of the other global tensors the epilogue reads (see
    /// [`GemmPlan::epilogue_tensors`]): when there are any, the epilogue functions also take the
    /// block indices and these tensors, after the size parameters.
    pub epilogue_tensors: Vec<String>,
    /// The helpers' `func.func` definitions.
    pub text: String,
}

/// The symbols the lowering of a `tile.kernel` defines: `{function}_{index}` is the stem of its
/// `gpu.module`, its kernel, its helpers and its host launch function.
pub struct Symbols {
    /// The host function the `tile.kernel` stands in.
    pub function: String,
    /// `{function}_{index}`.
    pub stem: String,
    /// The `gpu.module`.
    pub module: String,
    /// The kernel (`gpu.func`), the entry the manifest names.
    pub kernel: String,
}

impl Symbols {
    /// The symbols of `kernel`, the `index`-th `tile.kernel` of its module.
    pub fn of(kernel: OperationRef, index: usize) -> Self {
        let function = tile_dialect::ops::enclosing_symbol(kernel, "kernel");
        let stem = format!("{function}_{index}");
        Symbols { module: format!("{stem}_module"), kernel: format!("{stem}_kernel"), function, stem }
    }
}

/// The symbols a rendered kernel refers to.
pub struct KernelNames<'n> {
    /// The `gpu.module` symbol.
    pub module: &'n str,
    /// The kernel symbol.
    pub kernel: &'n str,
    /// `(block indices..., k, params...) -> (a origin, b origin)`.
    pub load_origin: &'n str,
    /// `(block indices..., params...) -> c origin`.
    pub store_origin: &'n str,
    /// Results of the load-origin helper (see [`Helpers::load_results`]).
    pub load_results: usize,
    /// Results of the store-origin helper.
    pub store_results: usize,
    /// `(v, i, j, params...) -> v'`, when there is an epilogue.
    pub epilogue: Option<&'n str>,
    /// The segments of an epilogue with row reductions (see [`Helpers::segments`]).
    pub segments: &'n [String],
    /// The reductions between the segments.
    pub reductions: &'n [(tile_dialect::ops::ReductionKind, Axis)],
    /// The types of the other tensors the epilogue functions take (see
    /// [`Helpers::epilogue_tensors`]).
    pub epilogue_tensors: &'n [String],
}

impl KernelNames<'_> {
    /// Emits the call of the load-origin helper for main-loop iteration `iteration` (counted from
    /// 0; the program's induction value is `lower + iteration * step`) and returns its results'
    /// name: the A tile's origin at `#0, #1`, the B tile's at `#2, #3` (for rank-n global tensors,
    /// A's n offsets first, then B's). `sizes` are the kernel's size parameters, as indices.
    pub fn call_load_origin(
        &self,
        t: &mut Text,
        iteration: &str,
        (lower, step): (i64, i64),
        blocks: &[String],
        sizes: &[String],
    ) -> String {
        let step = t.index(step);
        let lower = t.index(lower);
        let scaled = t.binary("muli", iteration, &step);
        let k = t.binary("addi", &scaled, &lower);
        let args: Vec<&str> = blocks
            .iter()
            .map(String::as_str)
            .chain([k.as_str()])
            .chain(sizes.iter().map(String::as_str))
            .collect();
        call(t, self.load_origin, &args, self.load_results)
    }

    /// Emits the call of the store-origin helper and returns its results' name: the result tile's
    /// origin at `#0, #1` (one result per dimension of the result's global tensor).
    pub fn call_store_origin(&self, t: &mut Text, blocks: &[String], sizes: &[String]) -> String {
        let args: Vec<&str> = blocks.iter().chain(sizes).map(String::as_str).collect();
        call(t, self.store_origin, &args, self.store_results)
    }
}

/// Emits `%origin:results = func.call @helper(args) : (index...) -> (index...)`.
fn call(t: &mut Text, helper: &str, args: &[&str], results: usize) -> String {
    let origin = t.fresh("origin");
    t.line(format!(
        "{origin}:{results} = func.call @{helper}({}) : ({}) -> ({})",
        args.join(", "),
        vec!["index"; args.len()].join(", "),
        vec!["index"; results].join(", ")
    ));
    origin
}

impl<'n> KernelNames<'n> {
    /// The names of the kernel `symbols` name, calling `helpers`.
    pub fn new(symbols: &'n Symbols, helpers: &'n Helpers) -> Self {
        KernelNames {
            module: &symbols.module,
            kernel: &symbols.kernel,
            load_origin: &helpers.load_origin,
            store_origin: &helpers.store_origin,
            load_results: helpers.load_results,
            store_results: helpers.store_results,
            epilogue: helpers.epilogue.as_deref(),
            segments: &helpers.segments,
            reductions: &helpers.reductions,
            epilogue_tensors: &helpers.epilogue_tensors,
        }
    }
}

/// Outlines the origins of the A/B loads (from the block indices, the main loop's induction
/// variable and the kernel parameters), the origin of the result store, and the epilogue.
pub fn outline_helpers<'c>(context: &'c Context, plan: &GemmPlan<'c, '_>, stem: &str) -> Result<Helpers, String> {
    let load_origin = format!("{stem}_load_origin");
    let store_origin = format!("{stem}_store_origin");
    // Helpers see the block indices (and the induction variable), then every kernel parameter.
    let mut tile_inputs = plan.block_indices.clone();
    tile_inputs.extend(&plan.params);
    let mut loop_inputs = plan.block_indices.clone();
    loop_inputs.push(plan.main_loop.induction);
    loop_inputs.extend(&plan.params);
    let roots: Vec<_> = plan.a.offsets.iter().chain(&plan.b.offsets).copied().collect();
    let mut text = outline::slice_function(context, &load_origin, &loop_inputs, &roots)?;
    text += &outline::slice_function(context, &store_origin, &tile_inputs, &plan.output.offsets)?;
    let mut segments = Vec::new();
    let fragments: Vec<_> = plan.reduced.iter().map(|reduced| reduced.fragment).collect();
    let tensors = plan.epilogue_tensors();
    let reads = outline::EpilogueReads { blocks: &plan.block_indices, tensors: &tensors };
    let epilogue = if plan.reduced.is_empty() {
        if plan.epilogue.is_empty() && plan.fill == 0.0 {
            None
        } else {
            let name = format!("{stem}_epilogue");
            text += &outline::epilogue_function(context, &name, plan.fill, &plan.epilogue, &[], &plan.params, reads)?;
            Some(name)
        }
    } else {
        // One segment before each reduction, one after the last; each sees the rows reduced so far.
        let mut loops = Vec::new();
        let mut steps = plan.epilogue.iter().peekable();
        for segment in 0..=plan.reduced.len() {
            loops.clear();
            while let Some(step) = steps.next_if(|step| tile_dialect::ops::op_name(step) != "tile.reduce") {
                loops.push(*step);
            }
            steps.next();
            let name = format!("{stem}_epilogue{segment}");
            let fill = if segment == 0 { plan.fill } else { 0.0 };
            text += &outline::epilogue_function(context, &name, fill, &loops, &fragments[..segment], &plan.params, reads)?;
            segments.push(name);
        }
        None
    };
    let reductions = plan.reduced.iter().map(|reduced| (reduced.kind, reduced.axis)).collect();
    let (load_results, store_results) = (roots.len(), plan.output.offsets.len());
    let epilogue_tensors = tensors.iter().map(|tensor| melior::ir::ValueLike::r#type(tensor).to_string()).collect();
    Ok(Helpers { load_origin, store_origin, load_results, store_results, epilogue_tensors, epilogue, segments, reductions, text })
}

/// The host side of a rendered kernel: `func.func private @{name}(operands...)` (its `text`) that
/// launches it, called where the `tile.kernel` stood.
pub struct HostLaunch<'c, 'a> {
    /// The launch function's symbol.
    pub name: String,
    /// Its `func.func` text.
    pub text: String,
    /// The host values it takes, in order.
    pub operands: Vec<melior::ir::Value<'c, 'a>>,
}

/// Calls `launch`'s function just before `kernel`, with the host values it takes.
pub fn call_launch<'c, 'a>(context: &'c Context, kernel: OperationRef<'c, 'a>, launch: &HostLaunch<'c, 'a>) -> Result<(), String> {
    let call = melior::dialect::func::call(
        context,
        melior::ir::attribute::FlatSymbolRefAttribute::new(context, &launch.name),
        &launch.operands,
        &[],
        kernel.location(),
    );
    let block = kernel.block().ok_or("internal error: the kernel is in no block")?;
    block.insert_operation_before(kernel, call);
    Ok(())
}

/// Parses the rendered `gpu.module` text, inlines the helpers into it, appends it to `module` with
/// the launch manifest as its `tile.manifest` attribute (tile-compile reads it before the upstream
/// lowering), and replaces `kernel` with a call of the host launch function (when there is one) or
/// erases it.
pub fn install_kernel<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    text: &str,
    helpers: &Helpers,
    manifest: &str,
    launch: Option<HostLaunch<'c, 'a>>,
) -> Result<(), String> {
    // The launch function goes into the same parsed module, after the gpu.module.
    let text = match &launch {
        Some(launch) => {
            let end = text.rfind('}').ok_or("internal error: the emitted module has no end")?;
            format!("{}{}\n}}\n", &text[..end], launch.text)
        }
        None => text.to_owned(),
    };
    let text = text.as_str();
    if std::env::var_os("TILE_DUMP_KERNEL").is_some() {
        eprintln!("{text}");
    }
    let parsed = Module::parse(context, text).ok_or(
        "internal error: the emitted kernel does not parse (set TILE_DUMP_KERNEL=1 to see it)",
    )?;
    let gpu_module = parsed.body().first_operation().ok_or("internal error: empty kernel module")?;
    let mut names = vec![
        helpers.load_origin.as_str(),
        helpers.store_origin.as_str(),
        helpers.epilogue.as_deref().unwrap_or(""),
    ];
    names.extend(helpers.segments.iter().map(String::as_str));
    outline::inline_helpers(context, gpu_module, &names)?;
    let body = module
        .region(0)
        .ok()
        .and_then(|region| region.first_block())
        .ok_or("internal error: the module has no body")?;
    let mut copy = clone_detached(gpu_module);
    copy.set_attribute("tile.manifest", StringAttribute::new(context, manifest).into());
    let installed = body.append_operation(copy);
    // Errors upstream reports in the kernel point at the tile.kernel, not at the generated text.
    tile_dialect::ops::relocate(installed, kernel.location());
    set_attribute(module, "gpu.container_module", Attribute::unit(context));
    if let Some(launch) = launch {
        let function = gpu_module.next_in_block().ok_or("internal error: the launch function is missing")?;
        let launcher = body.append_operation(clone_detached(function));
        tile_dialect::ops::relocate(launcher, kernel.location());
        call_launch(context, kernel, &launch)?;
    }
    melior::IrRewriter::new(context).as_rewriter_base().erase_op(kernel);
    Ok(())
}

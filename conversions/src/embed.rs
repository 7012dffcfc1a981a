//! What lets the target pipelines take a module that another frontend also put GPU code in, and
//! keeps the launch manifests through them.
//!
//! ```text
//! tile lowering ─▶ tile-stash-manifests ─▶ gpu-kernel-outlining ─▶ [spirv: tile-prepare-foreign-kernels]
//!   ─▶ upstream backend ─▶ tile-restore-manifests ─▶ tile-check-lowered
//! ```
//!
//! Invariants after a target pipeline succeeds:
//! - every upstream `gpu.launch` was outlined and lowered with the tile kernels (or the pipeline
//!   failed with an error at it);
//! - no `tile.*` op, `gpu.launch` or (on NVIDIA and AMD) `gpu.module` is left: a half-lowered
//!   module is an error at the op left, never a success;
//! - each tile kernel's manifest is the `tile.manifest` attribute of what its `gpu.module` became:
//!   the `gpu.binary` on NVIDIA and AMD, the `spirv.module` (and the kept `gpu.module`) on SPIR-V.

use melior::ir::{
    Attribute, BlockLike, Identifier, RegionLike,
    attribute::{DictionaryAttribute, StringAttribute},
    operation::{OperationLike, OperationRef},
};
use tile_dialect::{
    diagnostics::emit_error,
    ops::{find_ops, remove_attribute, set_attribute, string_attribute, with_context},
};
use tile_ir::gpu;

/// The module attribute that holds the manifests while the backend runs: `{module symbol =
/// manifest}`.
const STASH: &str = tile_dialect::decisions::MANIFESTS.name;

/// The attribute a manifest is kept in.
const MANIFEST: &str = tile_dialect::decisions::MANIFEST.name;

/// Returns the ops of `root`'s regions (not those nested deeper), in order.
fn nested_ops<'c, 'a>(root: OperationRef<'c, 'a>) -> Vec<OperationRef<'c, 'a>> {
    let mut found = Vec::new();
    for region in root.regions() {
        let mut block = region.first_block();
        while let Some(current) = block {
            let mut op = current.first_operation();
            while let Some(current_op) = op {
                found.push(current_op);
                op = current_op.next_in_block();
            }
            block = current.next_in_region();
        }
    }
    found
}

fn op_name(op: &OperationRef) -> String {
    op.name().as_string_ref().as_str().unwrap_or("?").to_owned()
}

/// Copies each `gpu.module`'s manifest into the module's `tile.manifests` dictionary.
fn stash(module: OperationRef) -> Result<(), String> {
    with_context(module, |context| {
        let entries: Vec<(Identifier, Attribute)> = find_ops(module, gpu::GPUModuleOperation::name())
            .into_iter()
            .filter_map(|op| {
                let manifest = string_attribute(&op, MANIFEST)?;
                let name = string_attribute(&op, "sym_name")?;
                Some((
                    Identifier::new(context, &name),
                    StringAttribute::new(context, &manifest).into(),
                ))
            })
            .collect();
        if !entries.is_empty() {
            set_attribute(module, STASH, DictionaryAttribute::new(context, &entries).into());
        }
    });
    Ok(())
}

/// Puts each stashed manifest on what its `gpu.module` became (`gpu.binary`, `spirv.module
/// @__spv__<name>`, or the `gpu.module` itself where it is kept), and drops the stash.
fn restore(module: OperationRef) -> Result<(), String> {
    let Some(stash) = module
        .attribute(STASH)
        .ok()
        .and_then(|attribute| DictionaryAttribute::try_from(attribute).ok())
    else {
        return Ok(());
    };
    let holders: Vec<(String, OperationRef)> = [
        gpu::BinaryOperation::name(),
        gpu::GPUModuleOperation::name(),
        crate::spirv::MODULE,
    ]
    .into_iter()
    .flat_map(|name| find_ops(module, name))
    .filter_map(|op| {
        Some((
            string_attribute(&op, "sym_name")?
                .trim_start_matches("__spv__")
                .to_owned(),
            op,
        ))
    })
    .collect();
    for index in 0..stash.len() {
        let (name, manifest) = stash.element(index).map_err(|error| error.to_string())?;
        let name = name.as_string_ref().as_str().unwrap_or_default().to_owned();
        for (_, holder) in holders.iter().filter(|(holder, _)| *holder == name) {
            set_attribute(*holder, MANIFEST, manifest);
        }
    }
    remove_attribute(module, STASH);
    Ok(())
}

/// The dialects of the host code `tile-to-spirv` may leave: it lowers the kernels only, so the host
/// code stays as written, and these are the dialects upstream's lowering of host code to LLVM
/// (`convert-to-llvm` and the GPU runtime calls) takes. An op of any other dialect (`linalg`,
/// `tensor`, `affine`) would leave a host compiler a module it cannot lower.
const SPIRV_HOST_DIALECTS: [&str; 11] = [
    "builtin", "func", "arith", "math", "cf", "scf", "memref", "index", "vector", "gpu", "llvm",
];

/// The dialects of a kernel module the code generator reads: LLVM IR and NVIDIA's and AMD's
/// intrinsics.
const KERNEL_DIALECTS: [&str; 3] = ["llvm", "nvvm", "rocdl"];

/// What a target pipeline leaves of the kernels.
#[derive(Clone, Copy, PartialEq)]
enum Kernels {
    /// `gpu.binary`s (NVIDIA, AMD).
    Binaries,
    /// `gpu.module`s in the LLVM dialect (NVIDIA, AMD with `serialize=false`).
    Llvm,
    /// `spirv.module`s.
    Spirv,
}

/// Reports at each op a pipeline should have lowered and did not, where it leaves `kernels`. What
/// a pipeline to binaries leaves is LLVM IR with its kernels' binaries (or their LLVM-dialect
/// modules) and launches; `tile-to-spirv` leaves host code in [`SPIRV_HOST_DIALECTS`] beside its
/// `spirv.module`s (and the `gpu.module`s they came from).
fn check_lowered(module: OperationRef, pipeline: &str, kernels: Kernels) -> Result<(), String> {
    let spirv_modules: Vec<String> = find_ops(module, crate::spirv::MODULE)
        .iter()
        .filter_map(|op| string_attribute(op, "sym_name"))
        .map(|name| name.trim_start_matches("__spv__").to_owned())
        .collect();
    let tile = tile_dialect::dialect_handle();
    let llvm = melior::dialect::DialectHandle::llvm();
    let unlowered = "expects every tile kernel and every upstream gpu.launch/gpu.module to be lowered";
    let (mut errors, mut casts) = (Vec::new(), Vec::new());
    // Each op with whether it lies in a kernel module left in the LLVM dialect.
    let mut pending: Vec<(OperationRef, bool)> = nested_ops(module).into_iter().rev().map(|op| (op, false)).collect();
    while let Some((op, in_kernel)) = pending.pop() {
        // Kernels that became SPIR-V are the backend's business, not the host's.
        if kernels == Kernels::Spirv && is_spirv_kernel_code(&op, &spirv_modules) {
            continue;
        }
        let name = op_name(&op);
        let dialect = name.split('.').next().unwrap_or_default();
        let kernel_module = kernels == Kernels::Llvm && tile_ir::is(&op, gpu::GPUModuleOperation::name);
        let left = if in_kernel {
            // What the code generator reads: LLVM IR and the target's intrinsics.
            (!KERNEL_DIALECTS.contains(&dialect))
                .then(|| format!("expects kernel modules in the {} dialects", KERNEL_DIALECTS.join(", ")))
        } else {
            tile_ir::match_op!(op, {
                gpu::GPUModuleOperation if kernel_module => None,
                gpu::LaunchOperation | gpu::GPUModuleOperation => Some(unlowered.to_owned()),
                gpu::BinaryOperation | gpu::LaunchFuncOperation | tile_ir::builtin::ModuleOperation => None,
                _ => {
                    if tile_ir::in_dialect(&op, tile) {
                        Some(unlowered.to_owned())
                    } else if kernels != Kernels::Spirv {
                        (!tile_ir::in_dialect(&op, llvm)).then(|| {
                            format!("expects the host code to be LLVM IR afterwards: lower the {dialect} dialect before the pipeline")
                        })
                    } else {
                        (!SPIRV_HOST_DIALECTS.contains(&dialect)).then(|| {
                            format!(
                                "expects host code in the {} dialects, which a host lowers to LLVM: lower the {dialect} dialect before the pipeline",
                                SPIRV_HOST_DIALECTS.join(", ")
                            )
                        })
                    }
                },
            })
        };
        if let Some(expectation) = left {
            let error = (
                op.location(),
                format!("'{name}' op was left unlowered by {pipeline}; {expectation}"),
            );
            if tile_ir::is(&op, tile_ir::builtin::UnrealizedConversionCastOperation::name) {
                casts.push(error);
            } else {
                errors.push(error);
            }
        } else {
            let inside = in_kernel || kernel_module;
            pending.extend(nested_ops(op).into_iter().rev().map(|inner| (inner, inside)));
        }
    }
    // Casts are left where an op beside them was not lowered: reported alone, they would repeat
    // its error at every value it takes or gives.
    let reported = if errors.is_empty() { casts } else { errors };
    for (location, message) in &reported {
        emit_error(*location, message);
    }
    if reported.is_empty() {
        Ok(())
    } else {
        Err(String::new())
    }
}

/// Whether `op` is a `spirv.module` or the `gpu.module` one was made from (named in `spirv_modules`).
fn is_spirv_kernel_code(op: &OperationRef, spirv_modules: &[String]) -> bool {
    op_name(op) == crate::spirv::MODULE
        || (tile_ir::is(op, gpu::GPUModuleOperation::name)
            && string_attribute(op, "sym_name").is_some_and(|symbol| spirv_modules.contains(&symbol)))
}

/// Readies outlined kernels of other frontends for `convert-gpu-to-spirv`: a `gpu.module` without
/// targets gets the target environment tile's kernels use for the module's `tile.target`, and a
/// kernel without `spirv.entry_point_abi` one from its known block size (an error at it without).
fn prepare_spirv(module: OperationRef) -> Result<(), String> {
    use crate::target::{Pipeline, Target};
    // The SPIR-V pipeline's own target where the module names none (or one without an environment).
    let target = Target::of(module)
        .ok()
        .filter(|target| target.environment.is_some())
        .or_else(|| Pipeline::Spirv.targets().find(|target| target.environment.is_some()))
        .expect("SPIR-V targets name their target environment");
    let environment = (target.environment.expect("a target environment"))(target.shared_bytes(module));
    let mut failed = false;
    with_context(module, |context| {
        for gpu_module in find_ops(module, gpu::GPUModuleOperation::name()) {
            if gpu_module.attribute("targets").is_err() {
                set_attribute(
                    gpu_module,
                    "targets",
                    Attribute::parse(context, &environment).expect("target environment"),
                );
            }
            for function in find_ops(gpu_module, gpu::GPUFuncOperation::name()) {
                if function.attribute("gpu.kernel").is_err() || function.attribute("spirv.entry_point_abi").is_ok() {
                    continue;
                }
                let size = function
                    .attribute("known_block_size")
                    .ok()
                    .and_then(|size| melior::ir::attribute::DenseI32ArrayAttribute::try_from(size).ok())
                    .map(|size| {
                        let sizes: Vec<String> = (0..size.len())
                            .filter_map(|i| size.element(i).ok())
                            .map(|s| s.to_string())
                            .collect();
                        sizes.join(", ")
                    });
                let Some(size) = size else {
                    emit_error(
                        function.location(),
                        "'gpu.func' op expects a known block size (a gpu.launch with constant threads) to be lowered to SPIR-V, but got none",
                    );
                    failed = true;
                    continue;
                };
                let abi = format!("#spirv.entry_point_abi<workgroup_size = [{size}]>");
                set_attribute(
                    function,
                    "spirv.entry_point_abi",
                    Attribute::parse(context, &abi).expect("entry point ABI"),
                );
            }
        }
    });
    if failed { Err(String::new()) } else { Ok(()) }
}

/// Whether NVPTX can name a symbol `name`: PTX identifiers hold ASCII letters, digits, '_' and '$',
/// and LLVM's NVPTX backend rewrites '.' and '@' into those; any other character aborts its PTX
/// printer ("Symbol name with unsupported characters").
fn ptx_can_name(name: &str) -> bool {
    !name.is_empty()
        && name
            .chars()
            .all(|character| character.is_ascii_alphanumeric() || matches!(character, '_' | '$' | '.' | '@'))
}

/// Emits an error at each symbol of a kernel module that PTX cannot name (an outlined kernel is
/// named after the function its `gpu.launch` was in, `@"a b"` giving `@"a b_kernel"`), located at
/// the op that defines it, and fails when there was one. Tile kernels' names are checked when they
/// are lowered.
fn check_ptx_symbols(module: OperationRef) -> Result<(), String> {
    let mut failed = false;
    for gpu_module in find_ops(module, gpu::GPUModuleOperation::name()) {
        for op in nested_ops(gpu_module) {
            let Some(symbol) = string_attribute(&op, "sym_name") else {
                continue;
            };
            if !ptx_can_name(&symbol) {
                emit_error(
                    op.location(),
                    &format!(
                        "'{}' op expects a symbol PTX can name (ASCII letters, digits, '_', '$', '.', '@'), but got @\"{}\"; rename the function or kernel it comes from",
                        op_name(&op),
                        symbol.escape_default()
                    ),
                );
                failed = true;
            }
        }
    }
    if failed { Err(String::new()) } else { Ok(()) }
}

tile_passes::rust_pass! {
    /// Creates `tile-stash-manifests` (on `builtin.module`; the target pipelines add it).
    pub fn create_stash_manifests_pass() {
        argument: "tile-stash-manifests",
        name: "TileStashManifests",
        description: "Keep each gpu.module's tile.manifest in the module's tile.manifests while the backend runs",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [],
        run: |module| stash(module),
    }
}

tile_passes::rust_pass! {
    /// Creates `tile-restore-manifests` (on `builtin.module`; the target pipelines add it).
    pub fn create_restore_manifests_pass() {
        argument: "tile-restore-manifests",
        name: "TileRestoreManifests",
        description: "Put each stashed manifest on the gpu.binary or spirv.module its gpu.module became",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [],
        run: |module| restore(module),
    }
}

tile_passes::rust_pass! {
    /// Creates `tile-prepare-foreign-kernels` (on `builtin.module`; `tile-to-spirv` adds it).
    pub fn create_prepare_foreign_kernels_pass() {
        argument: "tile-prepare-foreign-kernels",
        name: "TilePrepareForeignKernels",
        description: "Give outlined upstream kernels the SPIR-V target environment and entry-point ABI",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [],
        run: |module| prepare_spirv(module),
    }
}

tile_passes::rust_pass! {
    /// Creates the check that ends `tile-to-nvvm` and `tile-to-rocdl`.
    pub fn create_check_binaries_pass() {
        argument: "tile-check-lowered",
        name: "TileCheckLowered",
        description: "Fail at any tile op, gpu.launch or gpu.module a pipeline to gpu.binary left",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [],
        run: |module| check_lowered(module, "the target pipeline", Kernels::Binaries),
    }
}

tile_passes::rust_pass! {
    /// Creates the check that ends `tile-to-nvvm` and `tile-to-rocdl` with `serialize=false`.
    pub fn create_check_llvm_kernels_pass() {
        argument: "tile-check-lowered-llvm",
        name: "TileCheckLoweredLlvm",
        description: "Fail at any tile op, gpu.launch, host op outside the llvm dialect or kernel-module op outside the llvm, nvvm and rocdl dialects that a pipeline to LLVM-dialect kernel modules left",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [],
        run: |module| check_lowered(module, "the target pipeline", Kernels::Llvm),
    }
}

tile_passes::rust_pass! {
    /// Creates the check that ends `tile-to-spirv`.
    pub fn create_check_spirv_pass() {
        argument: "tile-check-lowered-spirv",
        name: "TileCheckLoweredSpirv",
        description: "Fail at any tile op, gpu.launch or gpu.module without a spirv.module that tile-to-spirv left",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [],
        run: |module| check_lowered(module, "tile-to-spirv", Kernels::Spirv),
    }
}

tile_passes::rust_pass! {
    /// Creates the check of kernel modules' symbols that `tile-to-nvvm` runs before its backend.
    pub fn create_check_ptx_symbols_pass() {
        argument: "tile-check-ptx-symbols",
        name: "TileCheckPtxSymbols",
        description: "Fail at any symbol of a gpu.module that PTX cannot name, before LLVM's PTX printer aborts on it",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [],
        run: |module| check_ptx_symbols(module),
    }
}

#[cfg(test)]
mod tests {
    use melior::{ir::Module, pass::PassManager};

    /// Runs `tile-check-lowered-llvm` on `source`: whether it passes.
    fn llvm_kernels_pass(source: &str) -> bool {
        let context = crate::context();
        let mut module = Module::parse(&context, source).expect("parses");
        let manager = PassManager::new(&context);
        manager.add_pass(super::create_check_llvm_kernels_pass());
        manager.run(&mut module).is_ok()
    }

    #[test]
    fn kernel_modules_left_in_the_llvm_dialect_hold_llvm_ir_and_intrinsics_only() {
        let module = |kernel_op: &str| {
            format!(
                "module attributes {{gpu.container_module}} {{
                   gpu.module @k {{
                     llvm.func @f() {{
                       {kernel_op}
                       llvm.return
                     }}
                   }}
                   llvm.func @h() {{
                     llvm.return
                   }}
                 }}"
            )
        };
        assert!(llvm_kernels_pass(&module("%t = nvvm.read.ptx.sreg.tid.x : i32")));
        assert!(llvm_kernels_pass(&module("%c = llvm.mlir.constant(1 : i32) : i32")));
        assert!(!llvm_kernels_pass(&module("%c = arith.constant 1 : i32")));
        // Host code outside the LLVM dialect is refused as with binaries.
        assert!(!llvm_kernels_pass("module { func.func @h() { return } }"));
    }
}

//! `convert-tile-to-spirv`: tile kernels to Vulkan compute shaders, the plain strategy.
//!
//! The loop lowering of the CPU reference (`crate::cpu`) with its iterations dealt out to the
//! block's threads: every tile op becomes `for e = tid; e < total; e += threads` over its flattened
//! iteration space, followed by a barrier; shared tiles and fragments live in workgroup memory.
//! The kernel body moves into a `gpu.func` of a `gpu.module` carrying the SPIR-V target
//! environment, ready for upstream `convert-gpu-to-spirv`. Correct for any tile program; fast it is
//! not (no subgroup or cooperative-matrix code yet).

use crate::gemm::launch::host_expression;
use melior::{
    Context, ContextRef,
    ir::{
        Attribute, BlockLike, Module, RegionLike, ShapedTypeLike, Value, ValueLike,
        attribute::StringAttribute,
        block::BlockArgument,
        operation::{OperationLike, OperationRef, OperationResult},
        r#type::{DimSize, MemRefType, TypeId},
    },
    pass::{ExternalPass, Pass, RunExternalPass, create_external},
};
use tile_dialect::{
    diagnostics::emit_error,
    element::Element,
    ops::{
        clone_detached, find_ops, integer_attribute, is_defined_inside, nested_ops, set_attribute,
        set_operand, with_context,
    },
};

/// The pass's flag.
pub const ARGUMENT: &str = "convert-tile-to-spirv";
/// Shared memory the lowering lets one workgroup use: Vulkan guarantees 16 KiB, lavapipe gives 32 KiB,
/// NVIDIA's driver 48 KiB.
pub const MAX_SHARED_BYTES: i64 = 32_768;
/// The target environment of the emitted modules: Vulkan 1.3-class compute with 8/16-bit storage.
pub const TARGET_ENV: &str = "#spirv.target_env<#spirv.vce<v1.3, [Shader, Float16, Int8, Int16, StorageBuffer16BitAccess, StorageBuffer8BitAccess], [SPV_KHR_storage_buffer_storage_class, SPV_KHR_16bit_storage, SPV_KHR_8bit_storage]>, #spirv.resource_limits<max_compute_shared_memory_size = 32768, max_compute_workgroup_invocations = 1024, max_compute_workgroup_size = [1024, 1024, 64]>>";
/// The upstream passes after this lowering, up to `spirv.module`s ready to serialize.
pub const BACKEND: &str = "canonicalize, cse, gpu.module(convert-math-to-spirv), convert-gpu-to-spirv, spirv.module(spirv-lower-abi-attrs, spirv-update-vce)";

#[repr(align(8))]
struct PassId;
static PASS_ID: PassId = PassId;

#[derive(Clone)]
struct ConvertTileToSpirv;

impl<'c> RunExternalPass<'c> for ConvertTileToSpirv {
    fn initialize(&mut self, _context: ContextRef<'c>) {}

    fn run(&mut self, module: OperationRef<'c, '_>, pass: ExternalPass<'_>) {
        tile_passes::guard::run_guarded(ARGUMENT, module, pass, lower_module);
    }
}

/// Creates the `convert-tile-to-spirv` pass (on `builtin.module`).
pub fn create_convert_tile_to_spirv_pass() -> Pass {
    let mut dialects = tile_dialect::registration::gpu_lowering_dialects();
    dialects.push(tile_dialect::registration::math_dialect());
    dialects.push(tile_dialect::registration::spirv_dialect());
    create_external(
        ConvertTileToSpirv,
        TypeId::create(&PASS_ID),
        "ConvertTileToSpirv",
        ARGUMENT,
        "Lower tile kernels to gpu.funcs for SPIR-V: tile ops as loops shared by the workgroup's threads, tiles in workgroup memory",
        "builtin.module",
        &dialects,
    )
}

type Failure<'c, 'a> = (OperationRef<'c, 'a>, String);

fn lower_module(module: OperationRef) -> Result<(), String> {
    let mut failed = false;
    for (index, kernel) in find_ops(module, "tile.kernel").into_iter().enumerate() {
        if let Err((op, message)) = with_context(kernel, |context| {
            lower_kernel(context, module, kernel, index)
        }) {
            let name = op.name();
            emit_error(
                op.location(),
                &format!(
                    "'{}' op {message}",
                    name.as_string_ref().as_str().unwrap_or("?")
                ),
            );
            failed = true;
        }
    }
    if failed { Err(String::new()) } else { Ok(()) }
}

fn element_bytes(element: Element) -> i64 {
    match element {
        Element::F16 | Element::BF16 => 2,
        Element::F32 | Element::I32 => 4,
        Element::I8 | Element::F8E4M3FN => 1,
    }
}

/// Checks what the plain SPIR-V strategy supports and returns the kernel's workgroup-memory bytes.
fn check_kernel<'c, 'a>(kernel: OperationRef<'c, 'a>) -> Result<i64, Failure<'c, 'a>> {
    let mut shared = 0;
    for op in nested_ops(kernel) {
        let types = op
            .operands()
            .map(|value| value.r#type())
            .chain(op.results().map(|result| result.r#type()));
        for ty in types {
            let element = MemRefType::try_from(ty)
                .map(|memref| memref.element())
                .unwrap_or(ty);
            if matches!(
                Element::of(element),
                Some(Element::BF16 | Element::F8E4M3FN)
            ) {
                return Err((
                    op,
                    format!(
                        "uses {element}, which the SPIR-V lowering does not support (Vulkan devices generally lack it); use f16 or f32 (target spirv)"
                    ),
                ));
            }
        }
        let name = op.name();
        if name
            .as_string_ref()
            .as_str()
            .is_ok_and(|name| name.starts_with("tile.alloc_"))
        {
            let memref =
                MemRefType::try_from(op.result(0).expect("allocation").r#type()).expect("memref");
            let count: i64 = (0..memref.rank())
                .map(|dim| match memref.dim_size(dim) {
                    Ok(DimSize::Static(size)) => size as i64,
                    _ => 1,
                })
                .product();
            shared += count * Element::of(memref.element()).map_or(4, element_bytes);
        }
    }
    if shared > MAX_SHARED_BYTES {
        return Err((
            kernel,
            format!(
                "needs {shared} bytes of workgroup memory for its tiles (shared tiles and fragments both live there in the plain SPIR-V strategy), but the SPIR-V lowering allows {MAX_SHARED_BYTES} (lavapipe's limit); use smaller tiles (target spirv)"
            ),
        ));
    }
    Ok(shared)
}

/// The values the kernel reads from the host function: global tensors become bindings; constants are
/// cloned into the shader; anything else cannot cross yet.
fn captured_tensors<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
) -> Result<Vec<Value<'c, 'a>>, Failure<'c, 'a>> {
    let mut tensors: Vec<Value> = Vec::new();
    for op in nested_ops(kernel) {
        for operand in op.operands() {
            if is_defined_inside(operand, kernel) || tensors.contains(&operand) {
                continue;
            }
            if let Ok(memref) = MemRefType::try_from(operand.r#type()) {
                if !memref.has_static_shape() {
                    return Err((
                        op,
                        format!(
                            "reads the tensor {}, whose shape is dynamic; the SPIR-V lowering binds static shapes only (target spirv)",
                            operand.r#type()
                        ),
                    ));
                }
                tensors.push(operand);
            } else if OperationResult::try_from(operand)
                .map(|result| {
                    result.owner().name().as_string_ref().as_str() != Ok("arith.constant")
                })
                .unwrap_or(true)
            {
                return Err((op, "reads a host value that is not a constant; the SPIR-V lowering passes tensors and constants only (target spirv)".into()));
            }
        }
    }
    Ok(tensors)
}

fn lower_kernel<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
) -> Result<(), Failure<'c, 'a>> {
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    let shared = check_kernel(kernel)?;
    let tensors = captured_tensors(kernel)?;
    let grid: Vec<String> = kernel
        .operands()
        .map(host_expression)
        .collect::<Result<Vec<_>, _>>()
        .map_err(|message| {
            (
                kernel,
                format!("cannot be lowered for spirv: the launch needs {message}"),
            )
        })?;
    let stem = format!("{}_{index}", host_function_name(kernel));
    let block_dims = kernel.operand_count();

    // Tile ops to loops shared by the threads, tiles in workgroup memory.
    let workgroup =
        Attribute::parse(context, "#spirv.storage_class<Workgroup>").expect("storage class");
    crate::cpu::lower_body(context, kernel, Some(threads), Some(workgroup));

    // The shader: one binding per tensor, in order of first use.
    let arguments: Vec<String> = tensors
        .iter()
        .enumerate()
        .map(|(i, tensor)| format!("%arg{i}: {}", tensor.r#type()))
        .collect();
    let text = format!(
        "module attributes {{gpu.container_module}} {{\n  gpu.module @{stem}_module [{TARGET_ENV}] {{\n    gpu.func @{stem}_kernel({}) kernel attributes {{spirv.entry_point_abi = #spirv.entry_point_abi<workgroup_size = [{threads}, 1, 1]>}} {{\n      gpu.return\n    }}\n  }}\n}}\n",
        arguments.join(", ")
    );
    let parsed = Module::parse(context, &text).ok_or_else(|| {
        (
            kernel,
            "cannot be lowered for spirv: internal error: the shader skeleton does not parse"
                .to_string(),
        )
    })?;
    let skeleton = parsed.body().first_operation().expect("gpu.module");
    let body = module
        .region(0)
        .ok()
        .and_then(|region| region.first_block())
        .expect("builtin.module has a body");
    let mut copy = clone_detached(skeleton);
    let bindings: Vec<String> = tensors
        .iter()
        .enumerate()
        .map(|(binding, tensor)| {
            let argument = BlockArgument::try_from(*tensor).map(|a| a.argument_number() as i64).unwrap_or(-1);
            let memref = MemRefType::try_from(tensor.r#type()).expect("memref");
            let shape: Vec<String> = (0..memref.rank())
                .map(|dim| match memref.dim_size(dim) {
                    Ok(DimSize::Static(size)) => size.to_string(),
                    _ => "null".into(),
                })
                .collect();
            format!(
                "{{\"set\": 0, \"binding\": {binding}, \"host_argument\": {argument}, \"shape\": [{}], \"element\": \"{}\"}}",
                shape.join(", "),
                memref.element()
            )
        })
        .collect();
    let mut grid = grid;
    grid.resize(3, "1".into());
    let manifest = format!(
        "{{\"entry\": \"{stem}_kernel\", \"host_function\": \"{}\", \"target\": \"spirv\", \"workgroup_size\": [{threads}, 1, 1], \"grid\": [{}], \"shared_bytes\": {shared}, \"bindings\": [{}]}}",
        host_function_name(kernel),
        grid.join(", "),
        bindings.join(", ")
    );
    melior::ir::operation::OperationMutLike::set_attribute(
        &mut copy,
        "tile.manifest",
        StringAttribute::new(context, &manifest).into(),
    );
    let gpu_module = body.append_operation(copy);
    set_attribute(module, "gpu.container_module", Attribute::unit(context));

    // Move the kernel body into the shader, block indices from gpu.block_id.
    let function = gpu_module
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .and_then(|b| b.first_operation())
        .expect("gpu.func");
    let entry = function
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .expect("entry block");
    let ret = entry.terminator().expect("gpu.return");
    let at = crate::cpu::builder::At {
        block: entry,
        before: ret,
    };
    let builder = crate::cpu::builder::Builder {
        context,
        location: kernel.location(),
        threads: None,
    };
    let block_ids: Vec<Value> = ["x", "y", "z"][..block_dims]
        .iter()
        .map(|dim| {
            builder.value(
                at,
                melior::ir::operation::OperationBuilder::new("gpu.block_id", kernel.location())
                    .add_attributes(&[(
                        melior::ir::Identifier::new(context, "dimension"),
                        Attribute::parse(context, &format!("#gpu<dim {dim}>")).expect("dim"),
                    )])
                    .add_results(&[melior::ir::Type::index(context)])
                    .build()
                    .expect("gpu.block_id"),
            )
        })
        .collect();
    let kernel_body = kernel
        .region(0)
        .ok()
        .and_then(|r| r.first_block())
        .expect("kernel body");
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    if let Some(terminator) = kernel_body.terminator() {
        rewriter.erase_op(terminator);
    }
    rewriter.inline_block_before(kernel_body, ret, &block_ids);
    rewriter.erase_op(kernel);

    // Host values inside the shader: tensors become the function's arguments, constants are cloned.
    let first = entry.first_operation().expect("shader body");
    let mut cloned: Vec<(Value, Value)> = Vec::new();
    for op in nested_ops(function) {
        for (position, operand) in op.operands().enumerate() {
            if let Some(binding) = tensors.iter().position(|tensor| *tensor == operand) {
                set_operand(
                    op,
                    position,
                    entry.argument(binding).expect("binding argument").into(),
                );
            } else if !is_defined_inside(operand, function)
                && OperationResult::try_from(operand).is_ok()
            {
                // captured_tensors let only constants through.
                let replacement = match cloned.iter().find(|(original, _)| *original == operand) {
                    Some((_, replacement)) => *replacement,
                    None => {
                        let owner = OperationResult::try_from(operand)
                            .expect("a constant")
                            .owner();
                        let copy = entry.insert_operation_before(first, clone_detached(owner));
                        let value: Value = copy.result(0).expect("constant result").into();
                        cloned.push((operand, value));
                        value
                    }
                };
                set_operand(op, position, replacement);
            }
        }
    }
    Ok(())
}

fn host_function_name(kernel: OperationRef) -> String {
    let mut parent = kernel.parent_operation();
    while let Some(op) = parent {
        if let Ok(name) = op.attribute("sym_name").and_then(StringAttribute::try_from) {
            return name.value().to_owned();
        }
        parent = op.parent_operation();
    }
    "kernel".into()
}

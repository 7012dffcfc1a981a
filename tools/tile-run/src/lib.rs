//! `tile-run`: runs every host function of a tile program on seeded random inputs.
//!
//! Targets: `cpu`, the CPU reference lowering (`convert-tile-to-cpu`, loops with the contract's
//! semantics) compiled by MLIR's execution engine in this process; `vulkan` and `vulkan-coopmat`, the
//! SPIR-V lowerings (plain, or on cooperative matrices) run through [`tile_vulkan`]; `interp`, the
//! reference interpreter [`tile_interp`], which executes the tile IR itself. Inputs are filled with
//! uniform values in [-1, 1); the buffers the program writes (destinations of `tile.copy` and
//! `memref.store`) start as NaN, so unwritten elements show; those it only updates atomically
//! (`memref.atomic_rmw`, which reads the element) start random too.

#![deny(missing_docs)]

mod accesses;
mod before;
pub mod buffer;
mod divisions;
mod recursion;

pub use tile_vulkan::{SpirvKernel, Vulkan, Workgroups};

use buffer::{Buffer, Random};
use melior::{
    Context, ExecutionEngine,
    ir::{
        BlockLike, Module, RegionLike, ShapedTypeLike, Type,
        attribute::TypeAttribute,
        operation::{OperationLike, OperationRef},
        r#type::{FunctionType, MemRefType},
    },
};
use tile_dialect::{driver::pass_manager, element::Element};

/// One memref argument of a host function.
#[derive(Clone, Debug)]
pub struct Argument {
    /// Element type.
    pub element: Element,
    /// Shape, `None` for dynamic sizes.
    pub shape: Vec<Option<usize>>,
    /// The program writes it.
    pub output: bool,
    /// The program reads what it holds before writing it: it starts random.
    pub input: bool,
    /// Declared a partition argument (`tile.offsets`, `tile.sizes`): it gets a valid random
    /// partition of the dimension it names, not uniform values.
    pub partition: Option<tile_dialect::partition::PartitionArgument>,
}

/// A host function and its memref arguments.
#[derive(Clone, Debug)]
pub struct Function {
    /// Symbol name.
    pub name: String,
    /// Arguments, in order.
    pub arguments: Vec<Argument>,
}

/// Creates the context every run uses: all upstream dialects, tile, LLVM translations, all passes.
pub fn context() -> Context {
    tile_conversions::context()
}

/// How the host function `function` (with `count` arguments) uses each argument: (written by a
/// copy or a store, updated by an atomic).
fn argument_uses(function: OperationRef, count: usize) -> Vec<(bool, bool)> {
    let body = function.region(0).ok().and_then(|region| region.first_block());
    let mut uses = vec![(false, false); count];
    let Some(body) = body else { return uses };
    let arguments: Vec<_> = (0..count).filter_map(|index| body.argument(index).ok()).collect();
    for op in tile_dialect::ops::nested_ops(function) {
        if let Some((destination, atomic)) = tile_conversions::support::destination(&op) {
            for (index, argument) in arguments.iter().enumerate() {
                if destination == (*argument).into() {
                    if atomic {
                        uses[index].1 = true;
                    } else {
                        uses[index].0 = true;
                    }
                }
            }
        }
    }
    uses
}

/// The most bytes `tile-run` fills for one argument (and the most it will allocate).
pub const MAX_BUFFER_BYTES: u128 = 1 << 30;

/// Returns the host functions of `module` (public `func.func`s with a body) and their arguments.
/// A function `tile-run` cannot run (results, arguments that are not memrefs of an element type
/// it fills, layouts, buffers over [`MAX_BUFFER_BYTES`]) gets an error at its location, and the
/// `Err` names it.
pub fn host_functions(module: &Module) -> Result<Vec<Function>, String> {
    let mut functions = Vec::new();
    let mut next = module.body().first_operation();
    let mut refused = Vec::new();
    while let Some(op) = next {
        next = op.next_in_block();
        if op.name().as_string_ref().as_str() != Ok("func.func")
            || op.region(0).ok().and_then(|r| r.first_block()).is_none()
        {
            continue;
        }
        let name = tile_dialect::ops::string_attribute(&op, "sym_name").unwrap_or_default();
        match host_function(op, &name) {
            Ok(function) => functions.push(function),
            Err(message) => {
                tile_dialect::diagnostics::emit_error(op.location(), &message);
                refused.push(format!("@{name}"));
            }
        }
    }
    for (call, cycle) in recursion::recursive_calls(module) {
        tile_dialect::diagnostics::emit_error(
            call.location(),
            &format!(
                "'func.call' op starts a call cycle ({cycle}); tile-run runs host functions without recursion (it could not bound the run): call a function that does not call back"
            ),
        );
        if let Some(function) = std::iter::successors(call.parent_operation(), |parent| parent.parent_operation())
            .find(|parent| tile_dialect::ops::op_name(parent) == "func.func")
        {
            let name = format!(
                "@{}",
                tile_dialect::ops::string_attribute(&function, "sym_name").unwrap_or_default()
            );
            if !refused.contains(&name) {
                refused.push(name);
            }
        }
    }
    if !refused.is_empty() {
        return Err(format!(
            "tile-run cannot run {} (see the errors above)",
            refused.join(", ")
        ));
    }
    Ok(functions)
}

/// Describes one host function, or says why `tile-run` cannot run it.
fn host_function(op: OperationRef, name: &str) -> Result<Function, String> {
    let signature = TypeAttribute::try_from(op.attribute("function_type").map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?
        .value();
    let signature = FunctionType::try_from(signature).map_err(|e| e.to_string())?;
    if signature.result_count() > 0 {
        return Err(format!(
            "tile-run runs host functions that return nothing (outputs are written to memref \
             arguments), but @{name} returns {} value(s)",
            signature.result_count()
        ));
    }
    let uses = argument_uses(op, signature.input_count());
    let partitions = tile_dialect::partition::declared(op)?;
    let mut arguments = Vec::new();
    for (index, (written, updated)) in uses.into_iter().enumerate() {
        let ty: Type = signature.input(index).map_err(|e| e.to_string())?;
        let memref = MemRefType::try_from(ty)
            .map_err(|_| format!("tile-run passes memrefs only, but argument {index} of @{name} is {ty}"))?;
        let element = Element::of(memref.element()).ok_or_else(|| {
            format!(
                "tile-run fills memrefs of {}, but argument {index} of @{name} holds {}",
                tile_dialect::element::ALLOWED,
                memref.element()
            )
        })?;
        let text = ty.to_string();
        if text.contains("strided<")
            || text.contains("affine_map<")
            || text.contains("#gpu.address_space")
            || text.contains("#tile.")
        {
            return Err(format!(
                "tile-run passes row-major global memrefs, but argument {index} of @{name} is {ty}"
            ));
        }
        let shape: Vec<Option<usize>> = tile_dialect::ops::static_sizes(memref)
            .into_iter()
            .map(|size| size.map(|size| size as usize))
            .collect();
        let bytes = shape.iter().map(|size| size.unwrap_or(1) as u128).product::<u128>() * element.bits() as u128 / 8;
        if bytes > MAX_BUFFER_BYTES {
            return Err(format!(
                "tile-run fills at most {MAX_BUFFER_BYTES} bytes per argument, but argument {index} of @{name} ({ty}) takes {bytes}"
            ));
        }
        arguments.push(Argument {
            element,
            shape,
            output: written || updated,
            input: !written,
            partition: partitions.iter().find(|declared| declared.argument == index).copied(),
        });
    }
    Ok(Function {
        name: name.to_owned(),
        arguments,
    })
}

/// Creates the buffers of `function`: inputs (and what is only updated atomically) uniform in
/// [-1, 1) from `random`, outputs NaN (zero for integer outputs), partition arguments a valid
/// random partition (as a launcher checks them); dynamic sizes become `dynamic_size`.
pub fn buffers(function: &Function, random: &mut Random, dynamic_size: usize) -> Vec<Buffer> {
    let mut buffers = uniform_buffers(function, random, dynamic_size);
    for argument in function.arguments.iter().filter_map(|argument| argument.partition) {
        let size = buffers[argument.tensor]
            .stored_shape()
            .get(argument.dim)
            .copied()
            .unwrap_or(0);
        partition(&mut buffers[argument.argument], argument.partition, size, random);
    }
    buffers
}

/// Fills `buffer` with a random valid partition of `size` elements into its entries: random cuts,
/// sorted (equal cuts give empty parts; the last part may end before `size`).
fn partition(buffer: &mut Buffer, partition: tile_dialect::partition::Partition, size: usize, random: &mut Random) {
    let count = buffer.len();
    let mut cuts: Vec<usize> = (0..count)
        .map(|_| (((random.uniform() + 1.0) / 2.0 * (size + 1) as f64) as usize).min(size))
        .collect();
    cuts.sort_unstable();
    match partition {
        tile_dialect::partition::Partition::Offsets => {
            if let Some(first) = cuts.first_mut() {
                *first = 0;
            }
            for (index, cut) in cuts.iter().enumerate() {
                buffer.set(index, *cut as f64);
            }
        }
        tile_dialect::partition::Partition::Sizes => {
            let mut previous = 0;
            for (index, cut) in cuts.iter().enumerate() {
                buffer.set(index, (cut - previous) as f64);
                previous = *cut;
            }
        }
    }
}

fn uniform_buffers(function: &Function, random: &mut Random, dynamic_size: usize) -> Vec<Buffer> {
    function
        .arguments
        .iter()
        .map(|argument| {
            let shape: Vec<usize> = argument.shape.iter().map(|size| size.unwrap_or(dynamic_size)).collect();
            let poison = if argument.element.is_float() { f64::NAN } else { 0.0 };
            let mut buffer = Buffer::filled(argument.element, &shape, poison);
            if argument.input {
                for index in 0..buffer.len() {
                    let value = random.uniform();
                    let value = if argument.element == Element::F4E2M1FN {
                        // Over the whole range of the format (-6 to 6), not only its eight codes
                        // of magnitude at most 1.
                        value * 6.0
                    } else if argument.element.is_float() {
                        value
                    } else {
                        (value * 8.0).round()
                    };
                    buffer.set(index, value);
                }
            }
            buffer
        })
        .collect()
}

/// The CPU reference's `tile.print` of an integer (`tile_conversions::cpu::print::PRINT_INT`): the
/// message as the expanded descriptor of a `memref<?xi8>`, the block, the element's index (rank -1:
/// a scalar), the value; the line is the interpreter's.
#[allow(clippy::too_many_arguments)]
extern "C" fn print_int(
    _allocated: *const u8,
    aligned: *const u8,
    offset: i64,
    size: i64,
    _stride: i64,
    x: i64,
    y: i64,
    z: i64,
    rank: i64,
    i0: i64,
    i1: i64,
    i2: i64,
    i3: i64,
    value: i64,
) {
    let line = print_line(
        aligned,
        offset,
        size,
        [x, y, z],
        rank,
        [i0, i1, i2, i3],
        tile_interp::print::Printed::Int(value),
    );
    println!("{line}");
}

/// The same for a float (`PRINT_FLOAT`).
#[allow(clippy::too_many_arguments)]
extern "C" fn print_float(
    _allocated: *const u8,
    aligned: *const u8,
    offset: i64,
    size: i64,
    _stride: i64,
    x: i64,
    y: i64,
    z: i64,
    rank: i64,
    i0: i64,
    i1: i64,
    i2: i64,
    i3: i64,
    value: f64,
) {
    let line = print_line(
        aligned,
        offset,
        size,
        [x, y, z],
        rank,
        [i0, i1, i2, i3],
        tile_interp::print::Printed::Float(value),
    );
    println!("{line}");
}

/// The line of a print call: the message read from its bytes (a constant global of the program).
fn print_line(
    aligned: *const u8,
    offset: i64,
    size: i64,
    block: [i64; 3],
    rank: i64,
    index: [i64; 4],
    value: tile_interp::print::Printed,
) -> String {
    // SAFETY: the lowering passes a constant global of `size` bytes (tile_conversions' print).
    let bytes = unsafe { std::slice::from_raw_parts(aligned.add(offset as usize), size as usize) };
    let message = String::from_utf8_lossy(bytes);
    let index = (rank >= 0).then(|| &index[..(rank as usize).min(index.len())]);
    tile_interp::print::line(&message, block, index, value)
}

/// `__truncsfbf2`: f32 to bf16, rounding to nearest even. A bf16 return value travels in the low 16
/// bits of xmm0, which is where an f32 with those bits puts it.
extern "C" fn truncate_to_bf16(value: f32) -> f32 {
    let bits = value.to_bits();
    let rounded = if value.is_nan() {
        0x7FC0
    } else {
        (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    };
    f32::from_bits(rounded)
}

/// A program lowered for the CPU and compiled by MLIR's execution engine.
pub struct CpuProgram {
    engine: ExecutionEngine,
}

impl CpuProgram {
    /// Lowers `module` with the CPU reference pipeline and compiles it.
    pub fn compile(context: &Context, module: &mut Module) -> Result<Self, String> {
        // A run-time division by zero or an access out of bounds is undefined behaviour of the
        // program, but must not kill this process (see divisions.rs and accesses.rs).
        divisions::guard(context, module);
        accesses::guard(context, module)?;
        let manager = pass_manager(context, tile_conversions::cpu::LLVM_PIPELINE)?;
        manager
            .run(module)
            .map_err(|_| "lowering for the CPU failed (see the errors above)".to_string())?;
        // A failed translation leaves no program to run: it is reported as an error (the handler
        // below sees it before the tool's), and nothing runs.
        let failed = std::rc::Rc::new(std::cell::Cell::new(false));
        let seen = failed.clone();
        let handler = context.attach_diagnostic_handler(move |diagnostic| {
            if matches!(diagnostic.severity(), melior::diagnostic::DiagnosticSeverity::Error) {
                seen.set(true);
            }
            false
        });
        let engine = ExecutionEngine::new(module, 2, &[], false, false);
        context.detach_diagnostic_handler(handler);
        if failed.get() {
            return Err("translating the CPU program to LLVM failed (see the errors above)".into());
        }
        // LLVM's x86 backend moves bf16 values through f32 registers and calls the compiler-rt
        // conversion for it, which this process's libgcc does not have.
        unsafe { engine.register_symbol("__truncsfbf2", truncate_to_bf16 as *mut ()) };
        unsafe { engine.register_symbol(tile_conversions::cpu::print::PRINT_INT, print_int as *mut ()) };
        unsafe { engine.register_symbol(tile_conversions::cpu::print::PRINT_FLOAT, print_float as *mut ()) };
        Ok(Self { engine })
    }

    /// Runs `name` on `buffers` (one per argument, in order).
    pub fn run(&self, name: &str, buffers: &mut [Buffer]) -> Result<(), String> {
        // The execution engine wraps every function as `_mlir_<name>(void **arguments)`.
        let packed = self.engine.lookup(&format!("_mlir_{name}"));
        if packed.is_null() {
            return Err(format!("@{name} is missing from the JIT-compiled program"));
        }
        // The lowered signature takes each memref as (allocated, aligned, offset, sizes..., strides...);
        // invoke_packed wants a pointer to each of those values.
        let mut pointers: Vec<Box<*mut u8>> = Vec::new();
        let mut integers: Vec<Box<i64>> = Vec::new();
        let mut arguments: Vec<*mut ()> = Vec::new();
        for buffer in buffers.iter_mut() {
            let data = buffer.as_mut_ptr();
            for _ in 0..2 {
                pointers.push(Box::new(data));
                arguments.push(
                    pointers
                        .last_mut()
                        .map(|p| &mut **p as *mut *mut u8 as *mut ())
                        .expect("pushed"),
                );
            }
            let shape = buffer.stored_shape();
            let rank = shape.len();
            let mut strides = vec![1i64; rank];
            for dim in (0..rank.saturating_sub(1)).rev() {
                strides[dim] = strides[dim + 1] * shape[dim + 1] as i64;
            }
            let scalars = std::iter::once(0i64)
                .chain(shape.iter().map(|size| *size as i64))
                .chain(strides);
            for value in scalars {
                integers.push(Box::new(value));
                arguments.push(
                    integers
                        .last_mut()
                        .map(|v| &mut **v as *mut i64 as *mut ())
                        .expect("pushed"),
                );
            }
        }
        let function: unsafe extern "C" fn(*mut *mut ()) = unsafe { std::mem::transmute(packed) };
        unsafe { function(arguments.as_mut_ptr()) };
        Ok(())
    }
}

/// A program decoded by the reference interpreter ([`tile_interp`]), which shares no code with the
/// lowerings.
pub struct InterpProgram(tile_interp::Program);

impl InterpProgram {
    /// Decodes every host function of `module` (an op the interpreter lacks is reported when its
    /// function runs).
    pub fn new(module: &Module) -> Self {
        Self(tile_interp::Program::new(module))
    }

    /// Runs `name` on `buffers` (one per argument, in order), writing the outputs in place.
    pub fn run(&self, name: &str, buffers: &mut [Buffer]) -> Result<(), tile_interp::Error> {
        self.run_bounded(name, buffers).map(drop)
    }

    /// Like [`InterpProgram::run`], and returns every element's error bound, one list per buffer
    /// ([`tile_interp::Program::run_bounded`]).
    pub fn run_bounded(&self, name: &str, buffers: &mut [Buffer]) -> Result<Vec<Vec<f64>>, tile_interp::Error> {
        let mut tensors: Vec<tile_interp::Tensor> = buffers
            .iter()
            .map(|buffer| tile_interp::Tensor {
                shape: buffer.shape.clone(),
                data: (0..buffer.len()).map(|index| buffer.get(index)).collect(),
            })
            .collect();
        let result = self.0.run_bounded(name, &mut tensors);
        for (buffer, tensor) in buffers.iter_mut().zip(&tensors) {
            for (index, value) in tensor.data.iter().enumerate() {
                buffer.set(index, *value);
            }
        }
        result
    }
}

/// A program lowered to SPIR-V kernels, run through Vulkan.
pub struct VulkanProgram {
    kernels: Vec<SpirvKernel>,
    /// Where each kernel (by its entry) stands in the program, `file:line:col`: what a device's
    /// refusal of it is located at.
    sites: std::collections::HashMap<String, String>,
}

impl VulkanProgram {
    /// Lowers `module` for `target` (`spirv`, or `spirv-coopmat` for cooperative matrices) with
    /// our lowering and the upstream SPIR-V conversions, and serializes each kernel.
    pub fn compile(context: &Context, module: &mut Module, target: &str) -> Result<Self, String> {
        let target = tile_conversions::target::Target::parse(target)
            .ok()
            .filter(|target| target.is_spirv())
            .ok_or_else(|| format!("{target} is not a SPIR-V target (spirv, spirv-coopmat)"))?;
        // A launch under host control flow is not what the kernels' manifests run.
        if !tile_conversions::host::launches_only(module.as_operation(), target) {
            return Err("the program's launches cannot run on Vulkan (see the errors above)".into());
        }
        let (lowering, backend) = (target.lowering.argument, (target.backend)());
        // Matmuls become kernels first (the target's tiling), so that theirs are located too.
        target.record(module.as_operation());
        pass_manager(
            context,
            &format!("builtin.module({})", tile_conversions::matmul::ARGUMENT),
        )?
        .run(module)
        .map_err(|_| "writing the matmuls' kernels failed (see the errors above)".to_string())?;
        let sites = tile_dialect::ops::find_ops(module.as_operation(), tile_ir::tile::KernelOperation::name())
            .into_iter()
            .enumerate()
            .filter_map(|(index, kernel)| {
                let entry = tile_conversions::host::symbols::Symbols::of(kernel, index).kernel;
                Some((entry, file_line_column(&kernel.location().to_string())?))
            })
            .collect();
        let pack = tile_conversions::narrow::ARGUMENT;
        pass_manager(context, &format!("builtin.module({pack}, {lowering})"))?
            .run(module)
            .map_err(|_| "lowering to SPIR-V failed (see the errors above)".to_string())?;
        let manifests = tile_conversions::kernels::manifests(module);
        pass_manager(context, &format!("builtin.module({backend})"))?
            .run(module)
            .map_err(|_| "the SPIR-V conversion failed (see the errors above)".to_string())?;
        let mut binaries = tile_dialect::driver::spirv_binaries(module)?;
        let mut kernels = Vec::new();
        for (name, manifest) in manifests {
            let position = binaries
                .iter()
                .position(|(module_name, _)| *module_name == name)
                .ok_or_else(|| format!("no SPIR-V module for {name}"))?;
            let spirv = binaries.swap_remove(position).1;
            kernels.push(SpirvKernel::from_manifest(&manifest, spirv)?);
        }
        Ok(Self { kernels, sites })
    }

    /// Returns the kernels, in launch order.
    pub fn kernels(&self) -> &[SpirvKernel] {
        &self.kernels
    }

    /// Runs the kernels `function` launches, in order, on `buffers` (one per host argument).
    pub fn run(&self, device: &Vulkan, function: &str, buffers: &mut [Buffer]) -> Result<(), String> {
        self.run_workgroups(device, function, buffers, None)
    }

    /// Like [`VulkanProgram::run`], running only `workgroups` of each kernel's grid when given.
    pub fn run_workgroups(
        &self,
        device: &Vulkan,
        function: &str,
        buffers: &mut [Buffer],
        workgroups: Option<Workgroups>,
    ) -> Result<(), String> {
        for kernel in self.kernels.iter().filter(|kernel| kernel.function == function) {
            // The grid and the integers the kernel reads (sizes of dynamic tensors, scalars the
            // host computes), from the host arguments.
            let host = HostBuffers(buffers);
            let kernel = &kernel.with_grid(&host)?;
            let mut values = kernel.values(&host)?;
            let mut slots: Vec<Option<&mut [u8]>> = values.iter_mut().map(|value| value.as_deref_mut()).collect();
            for (argument, buffer) in buffers.iter_mut().enumerate() {
                if let Some(binding) = kernel
                    .bindings
                    .iter()
                    .position(|bound| bound.host_argument == Some(argument))
                {
                    slots[binding] = Some(buffer.bytes_mut());
                }
            }
            let mut bound: Vec<&mut [u8]> = slots
                .into_iter()
                .map(|slot| slot.ok_or("a binding without a host buffer"))
                .collect::<Result<_, _>>()?;
            // What the device cannot give the kernel (workgroup memory, cooperative matrices) is
            // an error at its tile.kernel.
            device
                .check_kernel(kernel)
                .map_err(|reason| match self.sites.get(&kernel.entry) {
                    Some(site) => format!("{site}: error: 'tile.kernel' op {reason}"),
                    None => reason,
                })?;
            device.run_workgroups(kernel, &mut bound, workgroups.unwrap_or(Workgroups::all(kernel)), 0)?;
        }
        Ok(())
    }
}

/// The host arguments a kernel's launch sizes read: the buffers' shapes.
struct HostBuffers<'b>(&'b [Buffer]);

impl tile_manifest::HostArguments for HostBuffers<'_> {
    fn size(&self, argument: usize, dim: usize) -> Option<i64> {
        let buffer = self.0.get(argument)?;
        let size = *buffer.shape.get(dim)? as i64;
        // A 4-bit tensor is bound as its bytes, two elements to a byte along its last dimension,
        // and the kernel's sizes of it count those (`tile-pack-narrow-types`).
        Some(if buffer.element.is_packed() && dim + 1 == buffer.shape.len() {
            (size + 1) / 2
        } else {
            size
        })
    }

    /// A Vulkan launcher binds each tensor at the start of a buffer of its own (offset 0), which the
    /// device's memory alignment (at least 16 bytes on every device) keeps aligned.
    fn address(&self, argument: usize) -> Option<i64> {
        self.0.get(argument).map(|_| 0)
    }
}

/// `file:line:col` of a location printed as `loc("file":line:col)`, if it is one.
fn file_line_column(location: &str) -> Option<String> {
    let inner = location.strip_prefix("loc(")?.strip_suffix(')')?;
    let (file, position) = inner.strip_prefix('"')?.split_once('"')?;
    let position = position.strip_prefix(':')?;
    position
        .split(':')
        .all(|part| part.parse::<u64>().is_ok())
        .then(|| format!("{file}:{position}"))
}

/// Compares `actual` with `reference` element by element: returns the worst relative error (floor 1
/// on the magnitude) and the first elements over `tolerance` as (row-major index, actual, expected).
pub fn compare(actual: &Buffer, reference: &Buffer, tolerance: f64) -> (f64, Vec<(usize, f64, f64)>) {
    compare_bounded(actual, reference, tolerance, &[])
}

/// How many times an element's first-order error bound (the interpreter's, [`tile_interp::bound`])
/// two targets may differ by: each may be off from the exact result by its bound (measured on
/// seed 3 of `test/programs/attention_unscaled.mlir`, lavapipe is off by 3% of it at worst: the
/// bound assumes every rounding falls the same way).
pub const BOUND_FACTOR: f64 = 2.0;

/// Returns true when `got` and `expected` differ beyond `tolerance` (relative, floor 1 on the
/// magnitude) and beyond [`BOUND_FACTOR`] times the element's error `bound` where one is known
/// (finite): the rounding that the element types allow given the magnitudes of the terms that
/// produced it. A NaN against a number always differs.
pub fn differs(got: f64, expected: f64, tolerance: f64, bound: Option<f64>) -> bool {
    let error = relative_error(got, expected);
    // Equal infinities measure NaN: no difference, as with the tolerance alone.
    if !(error > tolerance) {
        return false;
    }
    match bound.filter(|bound| bound.is_finite()) {
        Some(bound) if error.is_finite() => (got - expected).abs() > BOUND_FACTOR * bound,
        _ => true,
    }
}

/// Like [`compare`], an element over `tolerance` being a mismatch only when it also differs by
/// more than its error bound allows ([`differs`]; `bounds` is empty or one per element).
pub fn compare_bounded(
    actual: &Buffer,
    reference: &Buffer,
    tolerance: f64,
    bounds: &[f64],
) -> (f64, Vec<(usize, f64, f64)>) {
    let mut worst: f64 = 0.0;
    let mut mismatches = Vec::new();
    for index in 0..reference.len() {
        let (got, expected) = (actual.get(index), reference.get(index));
        worst = worst.max(relative_error(got, expected));
        if differs(got, expected, tolerance, bounds.get(index).copied()) && mismatches.len() < 8 {
            mismatches.push((index, got, expected));
        }
    }
    (worst, mismatches)
}

/// The error [`compare`] measures between `got` and `expected`: relative, with a floor of 1 on the
/// magnitude; infinite when one is NaN and the other not.
fn relative_error(got: f64, expected: f64) -> f64 {
    if got.is_nan() != expected.is_nan() {
        f64::INFINITY
    } else if got.is_nan() {
        0.0
    } else {
        (got - expected).abs() / expected.abs().max(1.0)
    }
}

/// Counts the elements of `actual` that differ from `reference` ([`differs`], with `bounds` empty or
/// one per element), and how many of those the reference holds as NaN or an infinity (values a
/// Vulkan implementation need not produce: without the SignedZeroInfNanPreserve execution mode it
/// may ignore NaN and infinities).
pub fn count_differences(actual: &Buffer, reference: &Buffer, tolerance: f64, bounds: &[f64]) -> (usize, usize) {
    let (mut differ, mut non_finite) = (0, 0);
    for index in 0..reference.len() {
        let (got, expected) = (actual.get(index), reference.get(index));
        if differs(got, expected, tolerance, bounds.get(index).copied()) {
            differ += 1;
            non_finite += usize::from(!expected.is_finite());
        }
    }
    (differ, non_finite)
}

/// The tolerance of a comparison between two targets, by element type: both accumulate in f32 in
/// the same order; transcendental functions and the output rounding differ.
pub fn tolerance(element: Element) -> f64 {
    match element {
        Element::F32 | Element::I32 | Element::I8 => 1e-4,
        _ => 4e-3,
    }
}

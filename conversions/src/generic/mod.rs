//! The plain strategy, for any tile kernel on any GPU target: the fragment ops by the register rules
//! (`crate::registers`: fragments in registers, gemms on the chip's matrix instructions where their
//! layouts allow), the rest by the loop lowering of the CPU reference (`crate::cpu`) with its
//! iterations dealt out to the block's threads (`for e = tid; e < total; e += threads` over the
//! flattened iteration space, then a barrier); where the target has wide copies, copies from
//! global tensors into shared tiles go in 16-byte (or 8-byte) runs and main loops are prefetched
//! through registers ([`vector_copy`]).
//! The kernel body moves into a `gpu.func`. Every GPU target lowers through it ([`lower_per_op`] on
//! the per-op targets, [`lower_kernel`] on the plain ones).

mod host_values;
mod owned;
mod reduce;
mod runtime_arrays;
mod skeleton;
pub mod vector_copy;

use crate::host::{
    launch as host,
    symbols::{Symbols, call_launch},
    values::{HostTensor, host_grid, host_tensor},
};
use crate::target::Target;
use melior::{
    Context,
    ir::{
        Attribute, BlockLike, ShapedTypeLike, Type, TypeLike, Value, ValueLike,
        attribute::{ArrayAttribute, StringAttribute},
        operation::{OperationBuilder, OperationLike, OperationRef, OperationResult},
        r#type::MemRefType,
    },
};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    element::Element,
    ops::{
        clone_detached, integer_attribute, is_defined_inside, memref_shape, nested_ops, op_name, set_attribute,
        set_operand, static_sizes,
    },
};
use tile_ir::{arith, builtin, gpu, memref, tile};

pub use crate::kernels::Failure;

/// Whether `kernel` has a gemm (whose kernel, off registers, is far from tensor-core speed).
fn has_gemm(kernel: OperationRef) -> bool {
    nested_ops(kernel)
        .iter()
        .any(|op| tile_ir::is(op, tile::GemmOperation::name))
}

/// Bytes of one element of type `ty` (8 for types outside the contract's: barriers are i64).
fn element_bytes(ty: melior::ir::Type) -> i64 {
    Element::of(ty).map_or(8, |element| element.bytes() as i64)
}

/// Checks what the plain strategy supports on `target` and returns the kernel's
/// workgroup-memory bytes.
fn check_kernel<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    target: &'static Target,
    owned: &[OperationRef<'c, 'a>],
    scratch: i64,
) -> Result<i64, Failure<'c, 'a>> {
    let mut shared = scratch;
    for op in nested_ops(kernel) {
        let types = op
            .operands()
            .map(|value| value.r#type())
            .chain(op.results().map(|result| result.r#type()));
        for ty in types {
            // SPIR-V kernels index with 32 bits: a tensor past that would not legalize.
            if target.is_spirv()
                && let Some(memref) = tile_dialect::ops::as_memref(ty)
            {
                let elements = static_sizes(memref)
                    .into_iter()
                    .map(|size| size.unwrap_or(1) as i128)
                    .product::<i128>();
                if elements > i32::MAX as i128 {
                    return Err((
                        op,
                        format!(
                            "uses {ty} ({elements} elements), more than the SPIR-V lowering's 32-bit indices address (2^31 - 1 elements) (target {})",
                            target.name
                        ),
                    ));
                }
            }
            let element = tile_dialect::ops::as_memref(ty)
                .map(|memref| memref.element())
                .unwrap_or(ty);
            if target.is_spirv()
                && let Some(element) =
                    Element::of(element).filter(|element| *element == Element::BF16 || element.is_f8())
                && !target.emulated_floats.contains(&element)
            {
                return Err((
                    op,
                    format!(
                        "uses {element}, which {} does not lower yet; use f16 or f32, or target spirv, which holds {element} as integers and computes in f32",
                        target.name
                    ),
                ));
            }
        }
        if target.is_spirv() && tile_ir::is(&op, tile::SlotOperation::name) {
            return Err((
                op,
                format!(
                    "reads a ring of shared tiles, which the SPIR-V lowering cannot view slot by slot; tile-plan-pipelines keeps SPIR-V loops synchronous, so leave tile.pipelined loops to it (target {})",
                    target.name
                ),
            ));
        }
        if crate::cpu::structure::is_allocation(&op) && !owned.contains(&op) {
            let memref = MemRefType::try_from(op.result_at(0).expect("allocation").r#type()).expect("memref");
            let mut sizes: Vec<i64> = static_sizes(memref).into_iter().map(|size| size.unwrap_or(1)).collect();
            // Rows padded by the tile's layout (see `cpu::structure::lower_alloc`).
            if target.is_spirv()
                && let (Some(last), Some(layout)) = (
                    sizes.last_mut(),
                    op.attribute(crate::layout::LAYOUT_ATTRIBUTE)
                        .ok()
                        .and_then(tile_dialect::layout::SharedLayout::from_attribute),
                )
            {
                *last += layout.padding;
            }
            let count: i64 = sizes.iter().product();
            shared += count * element_bytes(memref.element());
        }
    }
    let limit = target.shared_bytes(kernel);
    if shared > limit {
        let (strategy, lowering, limit, note) = (
            if target.is_spirv() {
                "the plain SPIR-V strategy"
            } else {
                "the generic strategy"
            },
            if target.is_spirv() {
                "the SPIR-V lowering"
            } else {
                target.name
            },
            limit,
            target.shared_limit_note(kernel),
        );
        return Err((
            kernel,
            format!(
                "needs {shared} bytes of workgroup memory for its tiles (shared tiles, and fragments the threads share, live there in {strategy}), but {lowering} allows {limit} ({note}); use smaller tiles (target {})",
                target.name
            ),
        ));
    }
    Ok(shared)
}

/// The values the kernel reads from the host function, in order of first use: global tensors
/// (bindings), and on NVIDIA and AMD the integers the host computes from its arguments (scalar
/// parameters, which the manifest says how to compute); constants are cloned into the kernel;
/// anything else cannot cross yet.
fn captured<'c, 'a>(
    kernel: OperationRef<'c, 'a>,
    target: &'static Target,
) -> Result<(Vec<Value<'c, 'a>>, Vec<Value<'c, 'a>>), Failure<'c, 'a>> {
    let mut tensors: Vec<Value> = Vec::new();
    let mut scalars: Vec<Value> = Vec::new();
    for op in nested_ops(kernel) {
        for operand in op.operands() {
            if is_defined_inside(operand, kernel) || tensors.contains(&operand) || scalars.contains(&operand) {
                continue;
            }
            let integer = operand.r#type().is_index() || operand.r#type().is_integer();
            let constant = tile_dialect::ops::as_result(operand)
                .is_some_and(|result| tile_ir::is(&result.owner(), arith::ConstantOperation::name));
            if integer && !constant && crate::host::values::host_expression(operand).is_ok() {
                scalars.push(operand);
                continue;
            }
            if tile_dialect::ops::as_memref(operand.r#type()).is_some() {
                tensors.push(operand);
            } else if tile_dialect::ops::as_result(operand)
                .map(|result| !tile_ir::is(&result.owner(), arith::ConstantOperation::name))
                .unwrap_or(true)
            {
                let what = match tile_dialect::ops::as_argument(operand) {
                    Some(argument) => format!("argument {} of the host function", argument.argument_number()),
                    None => tile_dialect::ops::as_result(operand).map_or("a host value".to_owned(), |result| {
                        format!("the result of '{}'", op_name(&result.owner()))
                    }),
                };
                return Err((
                    op,
                    format!(
                        "reads {what} (of type {}) inside the kernel; the {} lowering passes tensors, constants and integers the host computes from its arguments (sizes, index arguments and integer arithmetic on them)",
                        operand.r#type(),
                        target.name
                    ),
                ));
            }
        }
    }
    Ok((tensors, scalars))
}

/// Lowers one kernel with the plain strategy (spirv): fragments in registers where
/// every op that touches one has a rule, in workgroup memory otherwise, without a warning.
pub fn lower_plain<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
    target: &'static Target,
) -> Result<(), Failure<'c, 'a>> {
    lower(context, module, kernel, index, target, false)
}

/// Lowers a kernel of a target whose kernels all go op by op ([`crate::target::Strategy::PerOp`]):
/// fragments in registers where every op that touches one has a rule
/// (gemms on the chip's matrix instructions where their layouts allow), otherwise the older
/// lowering, with a warning at the op that kept a kernel with a gemm out of registers.
pub fn lower_per_op<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
    target: &'static Target,
) -> Result<(), Failure<'c, 'a>> {
    // Where tensors are memref descriptors, which hold their sizes, the sizes a dynamic kernel's
    // host computed are computed again inside (SPIR-V's storage buffers hold none: the host passes
    // them).
    if !target.memory.static_tensors {
        host_values::recompute_host_values(kernel);
    }
    lower(context, module, kernel, index, target, true)
}

/// [`lower_kernel`]; with `warn_off_registers`, a kernel with a gemm whose fragments cannot be
/// in registers gets a warning at the op that has no rule.
fn lower<'c, 'a>(
    context: &'c Context,
    module: OperationRef<'c, 'a>,
    kernel: OperationRef<'c, 'a>,
    index: usize,
    target: &'static Target,
    warn_off_registers: bool,
) -> Result<(), Failure<'c, 'a>> {
    let threads = integer_attribute(&kernel, "threads").unwrap_or(0);
    crate::layout::ensure_recorded(context, kernel, target, crate::layout::Rings::Written)?;
    // Fragments in registers where every op that touches one has a rule for its layouts; otherwise
    // fragments a thread only touches at its own elements are private, the others in workgroup memory.
    let planned = crate::registers::plan(kernel, target)?;
    crate::pipeline::producer::check(kernel, target, &planned)?;
    // A producer warpgroup beside the kernel's threads (TMA targets; the others refuse one).
    let block_threads = crate::pipeline::producer::block_threads(kernel, threads);
    // Where the target rearranges its shared tiles, those the register rules read are stored padded
    // and transposed as their layouts say, before any op that addresses them is lowered; elsewhere
    // the allocation and the workgroup-memory count read a padded layout from the tile.
    if let Ok(plan) = &planned
        && target.memory.rearranged_tiles
    {
        crate::layout::stored::apply(context, &plan.shared);
        crate::layout::stored::pad_rings(context, kernel);
    }
    let (owned, register_scratch) = match &planned {
        Ok(plan) => (plan.fragments.clone(), plan.scratch_bytes),
        Err(_) => (owned::thread_owned_fragments(kernel, threads), 0),
    };
    let not_in_registers = planned.as_ref().err().map(|(op, why)| {
        format!(
            "; its fragments are not in registers because '{}' at {} {why}",
            op_name(op),
            op.location()
        )
    });
    // A sum over a cluster's blocks exchanges registers: the plain path has none to exchange.
    if let Err((op, why)) = &planned
        && let Some(sum) = nested_ops(kernel)
            .into_iter()
            .find(|nested| tile_ir::is(nested, tile_ir::tile::SplitSumOperation::name))
    {
        return Err((
            sum,
            format!(
                "needs its kernel's fragments in registers, but '{}' at {} {why}",
                op_name(op),
                op.location()
            ),
        ));
    }
    // Every kernel a per-op target cannot keep in registers takes the slower path: say so at the
    // op that has no rule.
    if let (true, Err((op, why))) = (warn_off_registers, &planned) {
        let slower = if has_gemm(kernel) {
            "the kernel's fragments live in workgroup memory and its gemms run without matrix instructions (correct, far from tensor-core speed)"
        } else {
            "the kernel's fragments live in private or workgroup memory instead of registers (correct, slower)"
        };
        tile_dialect::diagnostics::emit_warning(
            op.location(),
            &format!("'{}' op {why}, so on {} {slower}", op_name(op), target.name),
        );
    }
    let mut shared = check_kernel(kernel, target, &owned, register_scratch)
        .map_err(|(op, message)| (op, format!("{message}{}", not_in_registers.clone().unwrap_or_default())))?;
    let (tensors, mut scalars) = captured(kernel, target)?;
    // Where tensors are storage buffers, one of dynamic shape is a runtime array and its sizes are
    // scalars.
    let arrays = if target.memory.static_tensors {
        runtime_arrays::plan(context, kernel, &tensors, &mut scalars, target.name)?
    } else {
        Vec::new()
    };
    let array_of = |tensor: usize| arrays.iter().find(|array| array.tensor == tensor);
    // Which tensors the kernel writes (destinations of copies, stores and atomics), for the launcher.
    let written: Vec<bool> = tensors
        .iter()
        .map(|tensor| {
            nested_ops(kernel)
                .iter()
                .any(|op| crate::support::destination(op).is_some_and(|(written, _)| written == *tensor))
        })
        .collect();
    let grid = host_grid(kernel.operands()).map_err(|message| {
        (
            kernel,
            format!("cannot be lowered for {target}: the launch needs {message}"),
        )
    })?;
    let condition = crate::host::values::host_condition(kernel).map_err(|message| {
        (
            kernel,
            format!("cannot be lowered for {target}: its launch's condition needs {message}"),
        )
    })?;
    // Nothing below fails at an op of the program: the register rules may now rewrite its ops.
    let registers = planned.is_ok();
    // The barriers that count copies, read before the register rules lower the copies.
    let counting = crate::pipeline::mbarriers::counting_barriers(kernel);
    let owned = match planned {
        Ok(plan) => {
            crate::registers::apply(context, kernel, plan, target);
            Vec::new()
        }
        Err(_) => owned,
    };
    // Barriers and arrivals on the chip's own barriers where it has them; what is left of the
    // asynchronous copies made synchronous, rings as views of bytes.
    if target.tma {
        crate::pipeline::mbarriers::lower_barriers(context, kernel, threads, &counting);
    }
    let awaited_by_groups = if target.cp_async_rings {
        crate::pipeline::groups::lower(context, kernel)
    } else {
        Vec::new()
    };
    // Ring copies no rule left running become synchronous: where rings run asynchronously (TMA
    // targets), that is a slower path, said at each such copy.
    if target.tma && registers {
        // Once a copy of the program: the ring's prologue issues it again (MLIR locations are
        // uniqued, so the copies of one op share one).
        let mut warned = std::collections::HashSet::new();
        for copy in nested_ops(kernel)
            .iter()
            .filter(|op| tile_ir::is(*op, tile::CopyAsyncOperation::name))
        {
            if !warned.insert(copy.location().to_raw().ptr) {
                continue;
            }
            tile_dialect::diagnostics::emit_warning(
                copy.location(),
                &format!(
                    "'tile.copy' op is copied by the threads element by element, synchronously, in its pipelined loop on {}: {}",
                    target.name,
                    synchronous_copy_reason(copy)
                ),
            );
        }
    }
    crate::pipeline::rings::lower(context, kernel, true);
    let (splits, scratch_bytes) = reduce::plan(context, kernel, threads, target.shared_bytes(kernel) - shared);
    shared += scratch_bytes;
    // The tensor maps the TMA copies read: parameters after the tensors.
    let maps = tensor_maps(kernel, &tensors);
    let symbols = Symbols::of(kernel, index);
    let Symbols {
        function: host_function,
        stem,
        ..
    } = &symbols;
    let block_dims = kernel.operand_count();

    // The tiles, in program order: workgroup attributions or workgroup allocations.
    let tiles: Vec<OperationRef> = nested_ops(kernel)
        .into_iter()
        .filter(|op| crate::cpu::structure::is_allocation(op) && !owned.contains(op))
        .collect();
    // A tile may ask for more than the slots' alignment (`crate::layout::tma::ALIGNMENT_ATTRIBUTE`),
    // read before the tile ops are lowered.
    let alignments: Vec<i64> = tiles
        .iter()
        .map(|tile| {
            integer_attribute(tile, crate::layout::tma::ALIGNMENT_ATTRIBUTE)
                .unwrap_or(1)
                .max(1)
        })
        .collect();
    let workgroup_space = Attribute::parse(context, target.memory.workgroup_space).expect("memory space");
    let attributions: Vec<Type> = tiles
        .iter()
        .map(|tile| {
            let memref = MemRefType::try_from(tile.result_at(0).expect("tile").r#type()).expect("memref");
            let shape: Vec<i64> = static_sizes(memref).into_iter().map(|size| size.unwrap_or(1)).collect();
            MemRefType::new(memref.element(), &shape, None, Some(workgroup_space)).into()
        })
        .collect();

    // Tile ops to loops shared by the threads.
    let tile_memory = if target.memory.attributions {
        crate::cpu::Tiles::Kept
    } else {
        crate::cpu::Tiles::Allocated(Some(workgroup_space))
    };
    // Targets with wide copies move global tensors into shared tiles 16 bytes a load (or 8 through
    // vector views); the others have their own ways (TMA and cp.async) or keep the plain copy.
    if let Some(wide_copies) = &target.wide_copies {
        vector_copy::lower(
            context,
            kernel,
            threads,
            registers,
            wide_copies,
            target.memory.private_space,
            &awaited_by_groups,
        );
    }
    let views = vector_views(kernel, &tensors);
    reduce::lower(context, &melior::IrRewriter::new(context).as_rewriter_base(), &splits);
    crate::cpu::lower_body(context, kernel, Some(threads), tile_memory, &owned);
    // Held cooperative matrices become values carried by the loops, now that they are scf.fors.
    crate::registers::promote::promote(context, kernel)
        .map_err(|message| (kernel, format!("cannot be lowered for {target}: {message}")))?;
    // The producer's thread and the kernel's threads part ways (their barriers are named ones).
    let registers_move = crate::pipeline::producer::split(context, kernel, threads, target);
    // A block of a cluster whose blocks release each other's ring slots leaves once all have
    // released theirs (arrivals on a block that has exited are lost).
    let multicast = integer_attribute(&kernel, tile_dialect::decisions::MULTICAST.name);
    if multicast.is_some() {
        let body = kernel.body().expect("the kernel's body");
        let end = body.terminator().expect("the kernel's terminator");
        let b = crate::cpu::builder::Builder {
            context,
            location: end.location(),
            threads: None,
        };
        crate::pipeline::mbarriers::cluster_barrier(&b, crate::cpu::builder::At::before(end));
    }
    // Thread-owned fragments: private attributions, or allocas in the entry block.
    let private_space = Attribute::parse(context, target.memory.private_space).expect("memory space");
    let private_types: Vec<MemRefType> = owned
        .iter()
        .map(|fragment| {
            let value: Value = fragment.result_at(0).expect("fragment").into();
            let elements = owned::private_elements(&memref_shape(value), threads);
            MemRefType::new(
                crate::cpu::data::element_type(value),
                &[elements],
                None,
                Some(private_space),
            )
        })
        .collect();

    // The kernel function: one argument per tensor, in order of first use.
    let pointer = crate::attributes::llvm_pointer(context, 0);
    // SPIR-V passes each scalar in a storage buffer of its own, after the tensors' bindings.
    let bound_scalars = target.is_spirv() && !scalars.is_empty();
    let arguments: Vec<skeleton::Argument> = tensors
        .iter()
        .enumerate()
        .map(|(i, tensor)| {
            // Beside a view of the same binding or a scalar's, every argument names its binding
            // (where none does, the SPIR-V conversion numbers them in order).
            skeleton::Argument {
                ty: match array_of(i) {
                    Some(_) => runtime_arrays::array_type(tensor.r#type()),
                    None => tensor.r#type(),
                },
                binding: (!views.is_empty() || bound_scalars).then_some(i),
                scalar: false,
            }
        })
        .chain(maps.iter().map(|_| skeleton::Argument {
            ty: pointer,
            binding: None,
            scalar: false,
        }))
        .chain(scalars.iter().enumerate().map(|(k, scalar)| skeleton::Argument {
            ty: scalar.r#type(),
            binding: bound_scalars.then_some(tensors.len() + k),
            scalar: true,
        }))
        .chain(views.iter().map(|(binding, cast)| skeleton::Argument {
            ty: cast.result_at(0).expect("a view").r#type(),
            binding: Some(*binding),
            scalar: false,
        }))
        .collect();
    let inputs = tensors.len() + maps.len() + scalars.len() + views.len();
    // Dynamic shared memory: each tile a view at its own 128-byte aligned offset.
    // A tile's offset is rounded up to its alignment, and the views start at the first boundary of
    // the largest in the dynamic shared memory (which the launch asks for that much more of).
    let base_alignment = alignments
        .iter()
        .copied()
        .max()
        .unwrap_or(1)
        .max(crate::pipeline::rings::SLOT_ALIGNMENT);
    let dynamic_offsets: Vec<i64> = if target.memory.dynamic_shared {
        let mut offset = 0;
        let offsets = tiles
            .iter()
            .zip(&alignments)
            .map(|(tile, &aligned)| {
                let memref = MemRefType::try_from(tile.result_at(0).expect("tile").r#type()).expect("memref");
                let at = (offset + aligned - 1) / aligned * aligned;
                offset = at
                    + crate::pipeline::rings::padded(
                        static_sizes(memref)
                            .into_iter()
                            .map(|size| size.unwrap_or(1))
                            .product::<i64>()
                            * element_bytes(memref.element()),
                    );
                at
            })
            .collect();
        let slack = if base_alignment > crate::pipeline::rings::SLOT_ALIGNMENT {
            base_alignment
        } else {
            0
        };
        shared = shared.max(offset + slack);
        offsets
    } else {
        Vec::new()
    };
    let attributed_tiles = if target.memory.dynamic_shared { 0 } else { tiles.len() };
    let mut bindings: Vec<tile_manifest::Binding> = tensors
        .iter()
        .enumerate()
        .map(|(binding, tensor)| {
            let HostTensor {
                argument,
                shape,
                element,
            } = host_tensor(*tensor);
            tile_manifest::Binding {
                set: 0,
                binding: binding as u32,
                host_argument: argument,
                shape,
                element,
                written: written[binding],
                value: None,
            }
        })
        .collect();
    if bound_scalars {
        for (k, scalar) in scalars.iter().enumerate() {
            let value = crate::host::values::host_expression(*scalar).map_err(|message| (kernel, message))?;
            bindings.push(tile_manifest::Binding {
                set: 0,
                binding: (tensors.len() + k) as u32,
                host_argument: -1,
                shape: Vec::new(),
                element: "i32".into(),
                written: false,
                value: Some(value),
            });
        }
    }
    let mut manifest = tile_manifest::Manifest::new(format!("{stem}_kernel"), target.name, grid);
    if let Some(condition) = condition {
        manifest.launched_when(condition);
    }
    manifest.host_function = Some(host_function.to_string());
    let checks = tile_dialect::partition::launch_checks(kernel);
    if !checks.is_empty() {
        manifest.checks = Some(checks);
    }
    manifest.strategy = Some(if registers {
        tile_manifest::Strategy::Registers
    } else {
        tile_manifest::Strategy::Plain
    });
    manifest.workgroup_size = Some([block_threads as u32, 1, 1]);
    // The cooperative-matrix environment fixes 32-wide subgroups: its gemms and shuffles are
    // written for them, and the launcher must ask for them.
    manifest.subgroup_size = target.subgroup_size;
    if target.memory.dynamic_shared {
        manifest.dynamic_shared_bytes = Some(shared as u64);
        manifest.shared_bytes = Some(0);
    } else {
        manifest.shared_bytes = Some(shared as u64);
    }
    manifest.bindings = Some(bindings);
    if !maps.is_empty() || (!scalars.is_empty() && !bound_scalars) {
        // After the bindings' descriptors, in the kernel's parameter order.
        let mut params: Vec<tile_manifest::Param> = maps
            .iter()
            .map(|map| {
                let HostTensor {
                    argument,
                    shape,
                    element,
                } = host_tensor(tensors[map.tensor]);
                tile_manifest::Param {
                    role: "tma".into(),
                    kind: tile_manifest::ParamKind::TensorMap {
                        host_argument: argument,
                        shape,
                        element,
                        box_: map.box_.iter().map(|size| *size as u32).collect(),
                        swizzle: map.swizzle as u32,
                        oob_fill: "zero".into(),
                    },
                }
            })
            .collect();
        for scalar in &scalars {
            let value = crate::host::values::host_expression(*scalar).map_err(|message| (kernel, message))?;
            params.push(tile_manifest::Param {
                role: "scalar".into(),
                kind: tile_manifest::ParamKind::Scalar {
                    ty: scalar.r#type().to_string(),
                    value,
                },
            });
        }
        manifest.params = Some(params);
    }
    let manifest = manifest.to_json();

    // The kernel's skeleton, then its launcher, after the module's functions; both at the
    // tile.kernel, whose body then moves in.
    let location = kernel.location();
    let body = module.body().expect("builtin.module has a body");
    let skeleton = skeleton::Kernel {
        arguments,
        workgroup: if target.memory.attributions && !target.memory.dynamic_shared {
            attributions
        } else {
            Vec::new()
        },
        private: if target.memory.attributions {
            private_types.iter().map(|ty| (*ty).into()).collect()
        } else {
            Vec::new()
        },
        attributes: skeleton::kernel_attributes(
            context,
            target,
            block_threads,
            integer_attribute(&kernel, "min_blocks_per_multiprocessor").or(registers_move.then_some(1)),
            integer_attribute(&kernel, crate::pipeline::split_k::SPLITS).or(multicast),
        ),
    };
    let targets = target.environment.map(|environment| {
        let targets = Attribute::parse(context, &environment(target.shared_bytes(kernel))).expect("gpu.module targets");
        ArrayAttribute::try_from(targets).expect("gpu.module targets are an array")
    });
    let gpu_module = skeleton::append(context, body, &symbols, targets, skeleton, location);
    set_attribute(
        gpu_module,
        tile_dialect::decisions::MANIFEST.name,
        StringAttribute::new(context, &manifest).into(),
    );
    // On NVIDIA and AMD the host launches the kernel through a function called where the
    // tile.kernel stood (SPIR-V kernels are launched through Vulkan, from their manifests).
    if !target.is_spirv() {
        let tensor_maps: Vec<host::TensorMapArgument> = maps
            .iter()
            .map(|map| {
                let element = crate::cpu::data::element_type(tensors[map.tensor]);
                let map_type = host::tensor_map_type(context, &map.box_, element, map.swizzle);
                host::TensorMapArgument {
                    tensor: map.tensor,
                    box_: map.box_.clone(),
                    map_type,
                }
            })
            .collect();
        let dynamic = target.memory.dynamic_shared.then_some(shared);
        let arguments = host::Arguments {
            shared_bytes: dynamic,
            threads: block_threads,
            tensor_maps: &tensor_maps,
        };
        let launched = host::Launched {
            tensors: tensors.clone(),
            grid: kernel.operands().collect(),
            scalars: scalars.clone(),
        };
        let (launcher, launch) = host::launch(context, launched, &symbols, &arguments, location);
        body.append_operation(launcher);
        call_launch(context, kernel, &launch).map_err(|message| (kernel, message))?;
    }
    set_attribute(module, "gpu.container_module", Attribute::unit(context));

    // Move the kernel body into the shader, block indices from gpu.block_id.
    let function = gpu_module.body().and_then(|b| b.first_operation()).expect("gpu.func");
    let entry = function.body().expect("entry block");
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
        .map(|dim| builder.dimension_index(at, gpu::BlockIdOperation::name, dim))
        .collect();
    let kernel_body = kernel.body().expect("kernel body");
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    if let Some(terminator) = kernel_body.terminator() {
        rewriter.erase_op(terminator);
    }
    rewriter.inline_block_before(kernel_body, ret, &block_ids);
    rewriter.erase_op(kernel);
    // Host integers read inside: the kernel's scalar parameters (the host keeps its own uses).
    let inside = nested_ops(function);
    for (k, scalar) in scalars.iter().enumerate() {
        let parameter: Value = entry
            .argument_at(tensors.len() + maps.len() + k)
            .expect("scalar parameter")
            .into();
        for op in &inside {
            for position in 0..op.operand_count() {
                if op.operand_at(position) == Some(*scalar) {
                    set_operand(*op, position, parameter);
                }
            }
        }
    }
    for (j, map) in maps.iter().enumerate() {
        let parameter: Value = entry
            .argument_at(tensors.len() + j)
            .expect("tensor map parameter")
            .into();
        for cast in &map.casts {
            rewriter.replace_all_uses_with(cast.result_at(0).expect("tensor map").into(), parameter);
            rewriter.erase_op(*cast);
        }
    }
    for (j, (_, cast)) in views.iter().enumerate() {
        let parameter: Value = entry
            .argument_at(tensors.len() + maps.len() + scalars.len() + j)
            .expect("vector view parameter")
            .into();
        rewriter.replace_all_uses_with(cast.result_at(0).expect("a vector view").into(), parameter);
        rewriter.erase_op(*cast);
    }
    if target.memory.dynamic_shared && !tiles.is_empty() {
        let first = entry.first_operation().expect("shader body");
        let at = crate::cpu::builder::At::before(first);
        let workgroup = Attribute::parse(context, target.memory.workgroup_space);
        let bytes_type = MemRefType::new(
            melior::ir::r#type::IntegerType::new(context, 8).into(),
            &[i64::MIN],
            None,
            workgroup,
        );
        let bytes = builder.value(
            at,
            gpu::dynamic_shared_memory(context, bytes_type.into(), builder.location).into(),
        );
        // The first `base_alignment` boundary in the dynamic shared memory.
        let start = if base_alignment > crate::pipeline::rings::SLOT_ALIGNMENT {
            let address = builder.aligned_pointer(at, bytes);
            let mask = builder.index(at, base_alignment - 1);
            let rounded = builder.addi(at, address, mask);
            let rounded = builder.andi(at, rounded, builder.index(at, !(base_alignment - 1)));
            Some(builder.subi(at, rounded, address))
        } else {
            None
        };
        for (tile, offset) in tiles.iter().zip(&dynamic_offsets) {
            let shift = builder.index(at, *offset);
            let shift = match start {
                Some(start) => builder.addi(at, start, shift),
                None => shift,
            };
            // Fragments the threads share live in workgroup memory too.
            let memref = MemRefType::try_from(tile.result_at(0).expect("tile").r#type()).expect("memref");
            let shape: Vec<i64> = static_sizes(memref).into_iter().map(|size| size.unwrap_or(1)).collect();
            let view_type = MemRefType::new(memref.element(), &shape, None, workgroup);
            // Built by its generated name with its result given: the ODS result of `memref.view` is
            // unnamed, and melior's generated constructor leaves unnamed results out.
            let view = builder.value(
                at,
                OperationBuilder::new(memref::ViewOperation::name(), builder.location)
                    .add_operands(&[bytes, shift])
                    .add_results(&[view_type.into()])
                    .build()
                    .expect("memref.view"),
            );
            rewriter.replace_all_uses_with(tile.result_at(0).expect("tile").into(), view);
            rewriter.erase_op(*tile);
        }
    } else if target.memory.attributions {
        // gpu.func's entry block holds the arguments, then the workgroup attributions.
        for (i, tile) in tiles.iter().enumerate() {
            let attribution = entry.argument_at(inputs + i).expect("workgroup attribution");
            rewriter.replace_all_uses_with(tile.result_at(0).expect("tile").into(), attribution.into());
            rewriter.erase_op(*tile);
        }
    }
    for (i, fragment) in owned.iter().enumerate() {
        let private: Value = if target.memory.attributions {
            entry
                .argument_at(inputs + attributed_tiles + i)
                .expect("private attribution")
                .into()
        } else {
            let first = entry.first_operation().expect("shader body");
            builder.value(
                crate::cpu::builder::At::before(first),
                // The kernel op is erased by now; the builder kept its location.
                melior::dialect::memref::alloca(context, private_types[i], &[], &[], None, builder.location),
            )
        };
        let value: Value = fragment.result_at(0).expect("fragment").into();
        owned::privatize(&builder, &rewriter, function, value, private, threads)
            .map_err(|message| (function, format!("cannot be lowered for {target}: {message}")))?;
        rewriter.erase_op(*fragment);
    }

    // Tensors bound as runtime arrays: their accesses index the array, their sizes are scalars.
    let parameters: Vec<Value> = (0..scalars.len())
        .map(|k| {
            entry
                .argument_at(tensors.len() + maps.len() + k)
                .expect("scalar parameter")
                .into()
        })
        .collect();
    for array in &arrays {
        let argument: Value = entry.argument_at(array.tensor).expect("binding argument").into();
        runtime_arrays::flatten(
            context,
            function,
            tensors[array.tensor],
            argument,
            &array.sizes,
            &parameters,
        )?;
    }
    // Host values inside the shader: tensors become the function's arguments, constants are cloned.
    let first = entry.first_operation().expect("shader body");
    let mut cloned: Vec<(Value, Value)> = Vec::new();
    for op in nested_ops(function) {
        for (position, operand) in op.operands().enumerate() {
            if let Some(binding) = tensors.iter().position(|tensor| *tensor == operand) {
                set_operand(
                    op,
                    position,
                    entry.argument_at(binding).expect("binding argument").into(),
                );
            } else if !is_defined_inside(operand, function) && tile_dialect::ops::as_result(operand).is_some() {
                // captured_tensors let only constants through.
                let replacement = match cloned.iter().find(|(original, _)| *original == operand) {
                    Some((_, replacement)) => *replacement,
                    None => {
                        let owner = OperationResult::try_from(operand).expect("a constant").owner();
                        let copy = entry.insert_operation_before(first, clone_detached(owner));
                        let value: Value = copy.result_at(0).expect("constant result").into();
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

/// The vector views of `kernel` (`vector_copy::VECTOR_VIEW`, SPIR-V): each with the binding of the
/// captured tensor it views.
fn vector_views<'c, 'a>(kernel: OperationRef<'c, 'a>, tensors: &[Value<'c, 'a>]) -> Vec<(usize, OperationRef<'c, 'a>)> {
    nested_ops(kernel)
        .into_iter()
        .filter(|op| {
            tile_ir::is(op, builtin::UnrealizedConversionCastOperation::name)
                && op.attribute(vector_copy::VECTOR_VIEW).is_ok()
        })
        .filter_map(|cast| {
            Some((
                tensors
                    .iter()
                    .position(|tensor| cast.operand_at(0).is_some_and(|source| source == *tensor))?,
                cast,
            ))
        })
        .collect()
}

/// A tensor map the register rules' TMA copies read (`crate::layout::tma::TENSOR_MAP_BOX`): of the
/// captured tensor `tensor`, with box `box_`, read through `casts` until the kernel takes it.
struct TensorMap<'c, 'a> {
    tensor: usize,
    box_: Vec<i64>,
    /// Bytes of the boxes' swizzle: one box row, or 0 where the cast is marked unswizzled.
    swizzle: i64,
    casts: Vec<OperationRef<'c, 'a>>,
}

/// The distinct (tensor, box) pairs of the TMA copies of `kernel`, in program order.
fn tensor_maps<'c, 'a>(kernel: OperationRef<'c, 'a>, tensors: &[Value<'c, 'a>]) -> Vec<TensorMap<'c, 'a>> {
    let mut maps: Vec<TensorMap> = Vec::new();
    for cast in nested_ops(kernel)
        .into_iter()
        .filter(|op| tile_ir::is(op, builtin::UnrealizedConversionCastOperation::name))
    {
        let Ok(attribute) = cast.attribute(crate::layout::tma::TENSOR_MAP_BOX) else {
            continue;
        };
        let Ok(array) = melior::ir::attribute::DenseI64ArrayAttribute::try_from(attribute) else {
            continue;
        };
        let box_: Vec<i64> = (0..array.len()).filter_map(|i| array.element(i).ok()).collect();
        let Some(tensor) = cast
            .operand_at(0)
            .and_then(|source| tensors.iter().position(|tensor| *tensor == source))
        else {
            continue;
        };
        let swizzle = if cast.attribute(crate::layout::tma::TENSOR_MAP_UNSWIZZLED).is_ok() {
            0
        } else {
            crate::layout::tma::tma_swizzle(&box_, element_bytes(crate::cpu::data::element_type(tensors[tensor])))
        };
        match maps
            .iter_mut()
            .find(|map| map.tensor == tensor && map.box_ == box_ && map.swizzle == swizzle)
        {
            Some(map) => map.casts.push(cast),
            None => maps.push(TensorMap {
                tensor,
                box_,
                swizzle,
                casts: vec![cast],
            }),
        }
    }
    maps
}

/// Why the ring copy `copy` (a `tile.copy_async` no rule took) cannot be left running, and what
/// would let it: the one condition it fails of those the asynchronous copies need.
fn synchronous_copy_reason(copy: &OperationRef) -> String {
    let Some((parts, _, _)) = tile_dialect::ops::copy_async_parts(copy) else {
        return "no rule moves it asynchronously".into();
    };
    let (source, tile) = (
        crate::cpu::data::element_type(parts.src),
        crate::cpu::data::element_type(parts.dst),
    );
    if source != tile {
        return format!(
            "it converts {source} to {tile} on the way, and copies left running move bytes as they are: copy {source} into a tile of {source} and convert where it is read"
        );
    }
    let bytes = tile_dialect::element::Element::of(tile).map_or(1, |element| element.bytes() as i64);
    let row = memref_shape(parts.dst).last().copied().unwrap_or(1) * bytes;
    if row % 16 != 0 {
        return format!(
            "its tile's rows are {row} bytes, and TMA and cp.async move whole 16-byte pieces of a row: store the tensor so that the tile's rows are a multiple of 16 bytes (a column of scales as a row of the transposed tensor)"
        );
    }
    "neither TMA nor cp.async serves it (a global tensor with offsets into a whole row-major shared tile of its element type)".into()
}

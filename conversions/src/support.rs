//! What a target cannot build, refused at the op before anything is lowered: 8-bit floats (a CPU
//! program whose translation failed, an AMDGCN serialization error located nowhere) and host memrefs
//! outside the default memory space (an upstream error located nowhere), index constants wider than
//! SPIR-V's 32 bits.

use crate::target::Target;
use melior::ir::{
    TypeLike, ValueLike,
    operation::{OperationLike, OperationRef},
};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{atomic::AtomicKind, diagnostics::emit_error, ops::op_name};
use tile_ir::{arith, func, memref, tile};

/// How messages name a target (`None`: the CPU reference).
fn display(target: Option<&Target>) -> &str {
    target.map_or("the CPU reference", |target| target.name)
}

/// Checks that the host functions of `module` have signatures the host code's lowering to LLVM
/// takes (upstream's errors would be located nowhere): memref arguments in the default memory
/// space (LLVM has no address space for `#gpu.address_space<global>`; every GPU target) and, where
/// `strided` (the targets whose host code `tile-compile` compiles: not SPIR-V, launched by
/// tile-vulkan-run), memref arguments and results in a layout MLIR can put in strided form (LLVM
/// passes memrefs as strided descriptors: a permuting `affine_map` failed with "conversion to
/// strided form failed", and `tile-compile` went on). Emits an error at each function that does
/// not; returns false when there was one.
fn host_arguments_plain(module: OperationRef, strided: bool) -> bool {
    let mut plain = true;
    for function in tile_dialect::ops::find_ops(module, func::FuncOperation::name()) {
        let Some(signature) = tile_dialect::ops::function_signature(&function) else {
            continue;
        };
        for index in 0..signature.input_count() {
            let Ok(ty) = signature.input(index) else {
                continue;
            };
            if tile_dialect::ops::as_memref(ty).is_some_and(|memref| memref.memory_space().is_some()) {
                emit_error(
                    function.location(),
                    &format!(
                        "expects the host function's memrefs in the default memory space (a launch passes \
                         plain device pointers), but argument {index} is {ty}"
                    ),
                );
                plain = false;
                break;
            }
        }
        if !strided {
            continue;
        }
        let arguments =
            (0..signature.input_count()).filter_map(|index| Some(("argument", index, signature.input(index).ok()?)));
        let results =
            (0..signature.result_count()).filter_map(|index| Some(("result", index, signature.result(index).ok()?)));
        for (role, index, ty) in arguments.chain(results) {
            if tile_dialect::ops::as_memref(ty).is_some_and(|memref| !tile_dialect::ops::has_strided_form(memref)) {
                let name = tile_dialect::ops::string_attribute(&function, "sym_name").unwrap_or_default();
                emit_error(
                    function.location(),
                    &format!(
                        "'func.func' op {role} {index} of @{name} has type {ty}, whose layout is not strided: the host code is compiled to LLVM, which passes memrefs as strided descriptors; use the identity layout or strided<...>"
                    ),
                );
                plain = false;
            }
        }
    }
    plain
}

/// Checks what `target` (`None`: the CPU reference) cannot build in `module`: host memrefs outside
/// the default memory space on GPU targets (the 8-bit floats every target holds as bytes where its
/// instructions lack them, `crate::small_floats`; spirv-coopmat's refusal is its lowering's), index
/// constants wider than 32-bit indices, producer warpgroups where the target has no TMA, cluster
/// sums where it has no clusters; emits an
/// error at each op or function it cannot build and returns `Err` (empty: the errors are out) when
/// there was one. (Math ops are the math passes' and `tile-check-external-calls`' business.)
pub fn check_supported(module: OperationRef, target: Option<&Target>) -> Result<(), String> {
    let mut failed = !narrow_types_packed(module);
    failed |= !dims_in_range(module);
    failed |= !divisors_nonzero(module);
    let Some(gpu) = target else {
        failed |= !truncations_linked(module);
        failed |= !no_producers(module, target);
        failed |= !no_split_sums(module, target);
        failed |= !atomics_supported(module, crate::target::Atomics::Llvm, CPU_REFERENCE);
        return if failed { Err(String::new()) } else { Ok(()) };
    };
    failed |= !host_arguments_plain(module, gpu.compiles_host_code());
    failed |= !kernel_hosts_named_plainly(module);
    if gpu.memory.indices_32_bit {
        failed |= !indices_fit_32_bits(module, gpu);
    }
    if !gpu.tma {
        failed |= !no_producers(module, target);
    }
    failed |= !atomics_supported(module, gpu.atomics, gpu.name);
    failed |= !prints_supported(module, gpu);
    if gpu.clusters.is_none() {
        failed |= !no_split_sums(module, target);
        failed |= !no_cluster_kernels(module, target);
    }
    if !gpu.f64_arithmetic {
        failed |= !no_f64(module, gpu);
    }
    if failed { Err(String::new()) } else { Ok(()) }
}

/// Checks that no memref of 4-bit elements is left in `module` (`tile-pack-narrow-types` stores them
/// as bytes first: every lowering indexes memory by whole elements); emits an error at the function
/// or op that holds one and returns false when there was one.
fn narrow_types_packed(module: OperationRef) -> bool {
    let packed = |ty: melior::ir::Type| crate::narrow::packed_element(ty).is_some();
    let mut fine = true;
    for function in tile_dialect::ops::find_ops(module, func::FuncOperation::name()) {
        for op in std::iter::once(function).chain(tile_dialect::ops::nested_ops(function)) {
            let arguments = op.regions().flat_map(|region| {
                melior::ir::RegionLike::first_block(&region)
                    .map(|block| {
                        use melior::ir::BlockLike;
                        (0..block.argument_count())
                            .filter_map(|index| block.argument_at(index))
                            .map(|argument| argument.r#type())
                            .collect::<Vec<_>>()
                    })
                    .unwrap_or_default()
            });
            let results = op.results().map(|result| result.r#type()).collect::<Vec<_>>();
            if let Some(ty) = arguments.chain(results).find(|ty| packed(*ty)) {
                emit_error(
                    op.location(),
                    &format!(
                        "'{}' op holds {ty}, whose 4-bit elements the lowerings read as bytes: run \
                         {} first (the target pipelines, tile-compile and tile-run do)",
                        op_name(&op),
                        crate::narrow::ARGUMENT
                    ),
                );
                fine = false;
                break;
            }
        }
    }
    fine
}

/// The buffer `op` writes, and whether it updates it atomically (`memref.atomic_rmw`, an atomic
/// `tile.copy`, which read the element too): a copy's destination, a store's or an atomic's
/// memref, a matmul's product; `None` for other ops.
pub fn destination<'c, 'a>(op: &OperationRef<'c, 'a>) -> Option<(melior::ir::Value<'c, 'a>, bool)> {
    tile_ir::match_op!(op, {
        tile::CopyOperation => {
            Some((tile_dialect::ops::copy_parts(op)?.dst, tile_dialect::ops::copy_atomic(op).is_some()))
        },
        tile_ir::memref::StoreOperation => Some((op.operand_at(1)?, false)),
        tile::MatmulOperation => Some((op.operand_at(2)?, false)),
        tile_ir::memref::AtomicRMWOperation => Some((op.operand_at(1)?, true)),
        _ => None,
    })
}

/// What messages call the CPU reference lowering (`convert-tile-to-cpu`), which has no target.
const CPU_REFERENCE: &str = "the CPU reference";

/// Checks that every `memref.atomic_rmw` in the kernels of `module` makes an update of `atomics`,
/// those of `name` (a target, or the CPU reference); emits an error at each other one and returns
/// false when there was one.
fn atomics_supported(module: OperationRef, atomics: crate::target::Atomics, name: &str) -> bool {
    let mut fine = true;
    for kernel in tile_dialect::ops::find_ops(module, tile::KernelOperation::name()) {
        // Each update: the op, its kind and the element type it updates (an atomic copy updates
        // each element of its destination).
        let updates = tile_dialect::ops::nested_ops(kernel).into_iter().filter_map(|op| {
            tile_ir::match_op!(op, {
                tile_ir::memref::AtomicRMWOperation => {
                    let kind = AtomicKind::of(tile_dialect::ops::integer_attribute(&op, "kind")?)?;
                    Some((op, kind, op.operand_at(0)?.r#type()))
                },
                tile::CopyOperation => {
                    let kind = tile_dialect::ops::copy_atomic(&op)?;
                    let element = tile_dialect::ops::scalar_type(tile_dialect::ops::copy_parts(&op)?.dst.r#type());
                    Some((op, AtomicKind::of_copy(kind, !element.is_integer())?, element))
                },
                _ => None,
            })
        });
        for (atomic, kind, element) in updates {
            if atomics.allow(kind, element) {
                continue;
            }
            let mut others: Vec<&str> = crate::target::TARGETS
                .iter()
                .filter(|other| other.atomics.allow(kind, element))
                .map(|other| other.name)
                .collect();
            if crate::target::Atomics::Llvm.allow(kind, element) && name != CPU_REFERENCE {
                others.push(CPU_REFERENCE);
            }
            let elsewhere = match others.split_last() {
                None => "no target makes it".to_owned(),
                Some((last, [])) => format!("{last} makes it"),
                Some((last, rest)) => format!("{} and {last} make it", rest.join(", ")),
            };
            emit_error(
                atomic.location(),
                &format!(
                    "'{}' op makes an atomic {} of {element}, which {name} cannot: its atomics are {}; {elsewhere}",
                    op_name(&atomic),
                    kind.name(),
                    atomics.describe(),
                ),
            );
            fine = false;
        }
    }
    fine
}

/// Checks that every function of `module` holding a `tile.kernel` has a name its kernels' symbols
/// and files can be made from (`{function}_{index}_kernel`: PTX and AMDGCN symbols, the files
/// `tile-compile` writes in its output folder): ASCII letters, digits and '_', not starting with a
/// digit. A name with a '/' wrote outside the output folder, one with a space aborted LLVM's PTX
/// printer. Emits an error at each function that has another and returns false when there was one.
fn kernel_hosts_named_plainly(module: OperationRef) -> bool {
    let mut plain = true;
    for function in tile_dialect::ops::find_ops(module, func::FuncOperation::name()) {
        if tile_dialect::ops::find_ops(function, tile::KernelOperation::name()).is_empty() {
            continue;
        }
        let name = tile_dialect::ops::string_attribute(&function, "sym_name").unwrap_or_default();
        let identifier = name.chars().next().is_some_and(|first| !first.is_ascii_digit())
            && name
                .chars()
                .all(|character| character.is_ascii_alphanumeric() || character == '_');
        if !identifier {
            emit_error(
                function.location(),
                &format!(
                    "'func.func' op expects a name of ASCII letters, digits and '_' (its kernels' symbols and files are named after it), but got @\"{}\"",
                    name.escape_default()
                ),
            );
            plain = false;
        }
    }
    plain
}

/// Checks that no kernel of `module` has a `tile.producer`: only TMA targets give one a warp of its
/// own (its copies run ahead of the threads that read them; run one after the other, the
/// producer's refills would overwrite slots before they are read).
fn no_producers(module: OperationRef, target: Option<&Target>) -> bool {
    let tma = crate::target::names_where(|target| target.tma);
    let producers = tile_dialect::ops::find_ops(module, tile::ProducerOperation::name());
    for producer in &producers {
        emit_error(
            producer.location(),
            &format!(
                "'tile.producer' op needs a warpgroup of its own running beside the kernel's threads, which only {tma} gives it, not {}; compile for {tma}, or expand the pipeline without producer = \"warpgroup\"",
                display(target)
            ),
        );
    }
    producers.is_empty()
}

/// Checks that no kernel of `module` has a `tile.split_sum`: only targets with thread block
/// clusters add up a fragment over several blocks.
fn no_split_sums(module: OperationRef, target: Option<&Target>) -> bool {
    let clusters = crate::target::names_where(|target| target.clusters.is_some());
    let sums = tile_dialect::ops::find_ops(module, tile::SplitSumOperation::name());
    for sum in &sums {
        emit_error(
            sum.location(),
            &format!(
                "'tile.split_sum' op adds up the fragments of a thread block cluster's blocks, which only {clusters} has, not {}; compile for {clusters}, or run the program before {} split it",
                display(target),
                crate::pipeline::split_k::ARGUMENT
            ),
        );
    }
    sums.is_empty()
}

/// Checks that no kernel of `module` runs as a thread block cluster (`tile.splits`,
/// `tile.multicast`: decisions of the passes of targets with clusters, or written in the input);
/// an error at each that does.
fn no_cluster_kernels(module: OperationRef, target: Option<&Target>) -> bool {
    let clusters = crate::target::names_where(|target| target.clusters.is_some());
    let mut fine = true;
    for kernel in tile_dialect::ops::find_ops(module, tile::KernelOperation::name()) {
        let decided = [tile_dialect::decisions::SPLITS, tile_dialect::decisions::MULTICAST]
            .into_iter()
            .find(|decision| kernel.attribute(decision.name).is_ok());
        if let Some(decision) = decided {
            emit_error(
                kernel.location(),
                &format!(
                    "'tile.kernel' op runs as a thread block cluster ({} is set, which {} writes), which only {clusters} has, not {}; compile for {clusters}, or drop the attribute",
                    decision.name,
                    decision.written_by,
                    display(target)
                ),
            );
            fine = false;
        }
    }
    fine
}

/// Checks that `module` prints only where `gpu`'s kernels can (`tile.print`); an error at each
/// print otherwise.
fn prints_supported(module: OperationRef, gpu: &Target) -> bool {
    let Some(why) = gpu.no_print else {
        return true;
    };
    let prints = tile_dialect::ops::find_ops(module, tile::PrintOperation::name());
    let on = crate::target::names_where(|target| target.no_print.is_none());
    for print in &prints {
        emit_error(
            print.location(),
            &format!(
                "'tile.print' op cannot print in a {} kernel: {why}; print on {on}, or run the program with tile-run (the interpreter or the CPU reference print too)",
                gpu.name
            ),
        );
    }
    prints.is_empty()
}

/// Checks that no op in a kernel of `module` computes an f64 value, which `gpu`'s kernels cannot
/// (the SPIR-V targets enable no Float64 capability: many Vulkan devices lack it); an error at
/// each op that makes one (where f64 values start: a conversion, a constant, or a load from a
/// tensor of f64) otherwise.
fn no_f64(module: OperationRef, gpu: &Target) -> bool {
    let on = crate::target::names_where(|target| target.f64_arithmetic);
    let mut fine = true;
    for kernel in tile_dialect::ops::find_ops(module, tile::KernelOperation::name()) {
        for op in tile_dialect::ops::nested_ops(kernel) {
            let makes_f64 = op
                .results()
                .any(|result| tile_dialect::ops::scalar_type(result.r#type()).is_f64());
            // A buffer's element type is no value the op takes: a load from a tensor of f64
            // makes one.
            let takes_f64 = op.operands().any(|value| {
                tile_dialect::ops::as_memref(value.r#type()).is_none()
                    && tile_dialect::ops::scalar_type(value.r#type()).is_f64()
            });
            if makes_f64 && !takes_f64 {
                fine = false;
                emit_error(
                    op.location(),
                    &format!(
                        "'{}' op makes an f64 value, which {} kernels cannot compute on (Vulkan devices need not have Float64, and the SPIR-V lowering enables none); compute on f32, or compile for {on}",
                        op_name(&op),
                        gpu.name
                    ),
                );
            }
        }
    }
    fine
}

/// Checks that every `memref.dim` of `module` with a constant index names a dimension its memref
/// has: upstream leaves a dimension past the rank undefined (the CPU reference read whatever lay
/// past the descriptor's sizes and crashed), so it is an error at the op.
fn dims_in_range(module: OperationRef) -> bool {
    let mut fine = true;
    for dim in tile_dialect::ops::find_ops(module, memref::DimOperation::name()) {
        let (Some(source), Some(index)) = (dim.operand_at(0), dim.operand_at(1)) else {
            continue;
        };
        let Some(memref) = tile_dialect::ops::as_memref(source.r#type()) else {
            continue;
        };
        let rank = tile_dialect::ops::static_sizes(memref).len() as i64;
        if let Some(index) = tile_dialect::ops::constant_integer(index)
            && !(0..rank).contains(&index)
        {
            emit_error(
                dim.location(),
                &format!(
                    "'memref.dim' op reads dimension {index} of {}, which has {rank}; use an index below {rank}",
                    source.r#type()
                ),
            );
            fine = false;
        }
    }
    fine
}

/// The integer divisions and remainders, whose result upstream leaves undefined for a zero
/// divisor.
const DIVISIONS: &[fn() -> &'static str] = &[
    arith::DivUIOperation::name,
    arith::DivSIOperation::name,
    arith::RemUIOperation::name,
    arith::RemSIOperation::name,
    arith::CeilDivUIOperation::name,
    arith::CeilDivSIOperation::name,
    arith::FloorDivSIOperation::name,
];

/// Checks that no integer division or remainder of `module` divides by a constant zero: its
/// result is undefined (the CPU reference's code for one ran on without end), so it is an error
/// at the op.
fn divisors_nonzero(module: OperationRef) -> bool {
    let mut fine = true;
    for name in DIVISIONS.iter().map(|name| name()) {
        for division in tile_dialect::ops::find_ops(module, name) {
            let Some(divisor) = division.operand_at(1) else {
                continue;
            };
            if tile_dialect::ops::constant_integer(divisor) == Some(0) {
                emit_error(
                    division.location(),
                    &format!(
                        "'{name}' op divides by the constant 0, whose result is undefined; divide by a nonzero value"
                    ),
                );
                fine = false;
            }
        }
    }
    fine
}

/// Checks that `module` has no `arith.truncf` from f64 to bf16, which LLVM compiles for the CPU as
/// a call of compiler-rt's `__truncdfbf2`, a function the CPU reference's JIT does not link (the
/// fuzzer's "Symbols not found", located nowhere): an error at the op, saying what works.
fn truncations_linked(module: OperationRef) -> bool {
    let mut fine = true;
    for truncation in tile_dialect::ops::find_ops(module, arith::TruncFOperation::name()) {
        let (Some(source), Some(result)) = (truncation.operand_at(0), truncation.result_at(0)) else {
            continue;
        };
        let element = tile_dialect::ops::scalar_type;
        if element(source.r#type()).is_f64() && element(result.r#type()).is_bf16() {
            let (from, to) = (source.r#type(), result.r#type());
            emit_error(
                truncation.location(),
                &format!(
                    "'arith.truncf' from {from} to {to} needs compiler-rt's __truncdfbf2, which the CPU reference does not link; truncate to f32 first (then to bf16)"
                ),
            );
            fine = false;
        }
    }
    fine
}

/// Checks that the index constants the kernels of `module` use fit SPIR-V's 32-bit indices
/// (upstream's conversion would fail on the constant, located nowhere); emits an error at the first
/// op of a kernel that uses one that does not, and returns false when there was one.
fn indices_fit_32_bits(module: OperationRef, target: &Target) -> bool {
    let mut fits = true;
    for kernel in tile_dialect::ops::find_ops(module, tile::KernelOperation::name()) {
        let wide = tile_dialect::ops::nested_ops(kernel).into_iter().find_map(|op| {
            op.operands()
                .filter(|value| value.r#type().is_index())
                .filter_map(tile_dialect::ops::constant_integer)
                .find(|value| i32::try_from(*value).is_err())
                .map(|value| (op, value))
        });
        if let Some((op, value)) = wide {
            emit_error(
                op.location(),
                &format!(
                    "'{}' op uses the index {value}, which does not fit the 32-bit indices of {target}",
                    op_name(&op)
                ),
            );
            fits = false;
        }
    }
    fits
}

/// The dimension of a gemm's A and B tiles that is K: A is MxK (KxM with `transpose_a`), B is KxN
/// (NxK with `transpose_b`).
pub fn k_dimensions(transpose_a: bool, transpose_b: bool) -> [usize; 2] {
    [if transpose_a { 0 } else { 1 }, if transpose_b { 1 } else { 0 }]
}

/// Whether a gemm of these operands multiplies i8 by i8 into an i32 accumulator.
pub fn i8_product(a: melior::ir::Value, b: melior::ir::Value, c: melior::ir::Value) -> bool {
    product_of(
        a,
        b,
        c,
        tile_dialect::element::Element::I8,
        tile_dialect::element::Element::I32,
    )
}

/// Whether a gemm of these operands multiplies 8-bit floats (f8E4M3FN or f8E5M2, both alike)
/// into an f32 accumulator.
pub fn f8_product(a: melior::ir::Value, b: melior::ir::Value, c: melior::ir::Value) -> bool {
    [
        tile_dialect::element::Element::F8E4M3FN,
        tile_dialect::element::Element::F8E5M2,
    ]
    .into_iter()
    .any(|input| product_of(a, b, c, input, tile_dialect::element::Element::F32))
}

/// Whether a gemm of these operands multiplies 8-bit tiles ([`i8_product`] or [`f8_product`]).
pub fn eight_bit_product(a: melior::ir::Value, b: melior::ir::Value, c: melior::ir::Value) -> bool {
    i8_product(a, b, c) || f8_product(a, b, c)
}

/// Whether A and B hold `input` and C `accumulator`.
pub fn product_of(
    a: melior::ir::Value,
    b: melior::ir::Value,
    c: melior::ir::Value,
    input: tile_dialect::element::Element,
    accumulator: tile_dialect::element::Element,
) -> bool {
    element_of(a) == Some(input) && element_of(b) == Some(input) && element_of(c) == Some(accumulator)
}

/// The tile element type of a memref value (`None` for other values and element types).
pub fn element_of(value: melior::ir::Value) -> Option<tile_dialect::element::Element> {
    use melior::ir::{ShapedTypeLike, ValueLike};
    tile_dialect::ops::as_memref(value.r#type()).and_then(|memref| tile_dialect::element::Element::of(memref.element()))
}

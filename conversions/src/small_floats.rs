//! `tile-emulate-small-floats`: bf16, f8E4M3FN and f8E5M2 on a target without instructions for
//! them (the plain SPIR-V target: Vulkan devices generally lack them; the CPU reference: LLVM has no
//! 8-bit floats), as the integers that hold their bits. It runs on lowered code, after upstream's
//! `arith-emulate-unsupported-floats` has moved the arithmetic on them to f32, so that what is left
//! of such a type is storage and conversions:
//!
//! - every memref of the type (arguments, allocations, views) holds integers of its width instead;
//! - an element load gives the bits, and the `arith.extf` that widens them is rebuilt in integer
//!   arithmetic (the bits shifted into an f32's; the 8-bit floats' subnormals scaled, f8E4M3FN's NaN
//!   code and f8E5M2's infinities kept);
//! - an `arith.truncf` into the type, or a constant of it, becomes the bits it rounds to (to
//!   nearest, ties to even; f8E4M3FN's overflow to its NaN code, f8E5M2's to infinity, as
//!   `arith.truncf` does), which the stores store.
//!
//! A value of the type anything else uses is a located error naming the op. Which types a target
//! emulates is a fact of its value ([`crate::target::Target::emulated_floats`]); without a target
//! (the CPU reference) it is f8E4M3FN.

use crate::cpu::builder::{At, Builder};
use melior::{
    Context,
    ir::{
        BlockLike, RegionLike, ShapedTypeLike, Type, TypeLike, Value, ValueLike,
        attribute::{FloatAttribute, IntegerAttribute},
        operation::{OperationLike, OperationRef},
        r#type::{IntegerType, MemRefType},
    },
};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_dialect::{
    element::Element,
    ops::{nested_ops, op_name, set_operand, with_context},
};
use tile_ir::{arith, func, gpu, memref, vector};

/// The pass's flag.
pub const ARGUMENT: &str = "tile-emulate-small-floats";

tile_passes::rust_pass! {
    /// Creates the `tile-emulate-small-floats` pass (on any op: a module, a kernel module).
    pub fn create_emulate_small_floats_pass() {
        argument: ARGUMENT,
        name: "TileEmulateSmallFloats",
        description: "Hold bf16, f8E4M3FN and f8E5M2 values as the integers of their bits where the target has no instructions for them, converting in integer arithmetic",
        anchor: "",
        dialects: [tile_dialect::dialect_handle(), tile_dialect::registration::math_dialect()],
        run: |op| with_context(op, |context| emulate(context, op)),
    }
}

/// The launch pass's flag.
pub const LAUNCHES_ARGUMENT: &str = "tile-emulate-small-floats-launches";

tile_passes::rust_pass! {
    /// Creates the `tile-emulate-small-floats-launches` pass (on `builtin.module`).
    pub fn create_emulate_small_floats_launches_pass() {
        argument: LAUNCHES_ARGUMENT,
        name: "TileEmulateSmallFloatsLaunches",
        description: "Before tile-emulate-small-floats runs on the kernel modules alone: give each kernel's tensors of an emulated type the type of their bits at its signature (cast back at its entry) and its launches (cast from the host's memref: the same descriptor)",
        anchor: tile_ir::builtin::ModuleOperation::name(),
        dialects: [tile_dialect::dialect_handle()],
        run: |module| with_context(module, |context| bits_at_launches(context, module)),
    }
}

/// The flag of the pass that routes conversions between an emulated type and f16 or bf16 through
/// f32.
pub const THROUGH_F32_ARGUMENT: &str = "tile-small-float-conversions-through-f32";

tile_passes::rust_pass! {
    /// Creates the `tile-small-float-conversions-through-f32` pass (on any op).
    pub fn create_conversions_through_f32_pass() {
        argument: THROUGH_F32_ARGUMENT,
        name: "TileSmallFloatConversionsThroughF32",
        description: "Split each arith.extf or arith.truncf between a type the target emulates and f16 or bf16 into two conversions through f32, which arith-emulate-unsupported-floats can take",
        anchor: "",
        dialects: [tile_dialect::dialect_handle()],
        run: |op| with_context(op, |context| conversions_through_f32(context, op)),
    }
}

/// Upstream's `arith-emulate-unsupported-floats` rewrites a conversion whose one side it emulates
/// by giving that side f32, so `arith.truncf f16 -> f8E4M3FN` (which canonicalization folds out of
/// the lowering's `extf` to f32 and `truncf` to the 8-bit type) became `truncf f16 -> f32`, invalid
/// IR. Each conversion between an emulated type and f16 or bf16 becomes an `extf` to f32 and a
/// `truncf` from it: the same values (f16 and bf16 widen to f32 exactly, and f8E4M3FN's values
/// are f16's and bf16's too).
fn conversions_through_f32<'c>(context: &'c Context, root: OperationRef<'c, '_>) -> Result<(), String> {
    let types = emulated(root);
    if types.is_empty() {
        return Ok(());
    }
    let emulated_type = |ty: Type| Element::of(ty).is_some_and(|element| types.contains(&element));
    let rewriter = melior::IrRewriter::new(context);
    for op in nested_ops(root) {
        if !tile_ir::is(&op, arith::ExtFOperation::name) && !tile_ir::is(&op, arith::TruncFOperation::name) {
            continue;
        }
        let (Some(operand), Some(result)) = (op.operand_at(0), op.result_at(0)) else {
            continue;
        };
        let [from, to] = [operand.r#type(), result.r#type()].map(tile_dialect::ops::scalar_type);
        let other = match (emulated_type(from), emulated_type(to)) {
            (true, false) => to,
            (false, true) => from,
            _ => continue,
        };
        // f64 is rounded to f32 or widened from it, as arith-emulate-unsupported-floats does.
        if !(other.is_f16() || other.is_bf16()) {
            continue;
        }
        let Some(middle) = tile_dialect::ops::vector_or_scalar_of(operand.r#type(), Type::float32(context)) else {
            continue;
        };
        let b = Builder {
            context,
            location: op.location(),
            threads: None,
        };
        let at = At::before(op);
        let middle = b.cast(at, tile_ir::arith::extf, operand, middle);
        let converted = b.cast(at, tile_ir::arith::truncf, middle, result.r#type());
        rewriter
            .as_rewriter_base()
            .replace_all_uses_with(result.into(), converted);
        rewriter.as_rewriter_base().erase_op(op);
    }
    Ok(())
}

/// Retypes the kernel arguments of `module` that are memrefs of an emulated type to memrefs of
/// their bits, at the kernels' signatures and their `gpu.launch_func`s, with an unrealized cast on
/// each side (the kernel's back to the type at its entry, which [`emulate`] then makes the bits
/// too; the host's from its memref, the same descriptor once lowered): the kernel modules are
/// emulated apart from the host's code, and a launch must match its kernel in between.
fn bits_at_launches<'c, 'a>(context: &'c Context, module: OperationRef<'c, 'a>) -> Result<(), String> {
    use melior::ir::attribute::DenseI32ArrayAttribute;
    let types = emulated(module);
    if types.is_empty() {
        return Ok(());
    }
    let bits_of = |ty: Type<'c>| memref_of_bits(context, ty, types);
    // The kernels' new signatures, by `module::function` symbol: (argument, bits type) pairs.
    let mut retyped: std::collections::HashMap<String, Vec<(usize, Type<'c>)>> = Default::default();
    for function in nested_ops(module)
        .into_iter()
        .filter(|op| tile_ir::is(op, gpu::GPUFuncOperation::name) && op.attribute("gpu.kernel").is_ok())
    {
        let Some(entry) = function.body() else {
            continue;
        };
        let mut changed = Vec::new();
        for index in 0..entry.argument_count() {
            let argument: Value = entry.argument_at(index).expect("an argument").into();
            let Some(bits) = bits_of(argument.r#type()) else {
                continue;
            };
            let original = argument.r#type();
            let users: Vec<(OperationRef, usize)> = nested_ops(function)
                .into_iter()
                .flat_map(|user| {
                    user.operands()
                        .enumerate()
                        .filter(|(_, operand)| *operand == argument)
                        .map(move |(position, _)| (user, position))
                        .collect::<Vec<_>>()
                })
                .collect();
            entry.argument_at(index).expect("an argument").set_type(bits);
            let first = entry.first_operation().expect("a kernel body");
            let back = unrealized_cast(context, At::before(first), argument, original);
            for (user, position) in users {
                set_operand(user, position, back);
            }
            changed.push((index, bits));
        }
        if changed.is_empty() {
            continue;
        }
        tile_dialect::ops::signature_from_entry(context, function);
        let symbol = |op: &OperationRef| tile_dialect::ops::string_attribute(op, "sym_name");
        if let (Some(parent), Some(name)) = (function.parent_operation().as_ref().and_then(symbol), symbol(&function)) {
            retyped.insert(format!("{parent}::{name}"), changed);
        }
    }
    for launch in nested_ops(module)
        .into_iter()
        .filter(|op| tile_ir::is(op, gpu::LaunchFuncOperation::name))
    {
        let Some(changed) = launch
            .attribute("kernel")
            .ok()
            .map(|kernel| kernel.to_string().replace(['@', '"'], ""))
            .and_then(|name| retyped.get(&name))
        else {
            continue;
        };
        // The kernel's operands: the segment after the async dependencies, the grid, the block,
        // the cluster and the dynamic shared memory.
        let sizes: Vec<i32> = launch
            .attribute("operandSegmentSizes")
            .ok()
            .and_then(|sizes| DenseI32ArrayAttribute::try_from(sizes).ok())
            .map(|sizes| (0..sizes.len()).filter_map(|index| sizes.element(index).ok()).collect())
            .unwrap_or_default();
        if sizes.len() < 12 {
            continue;
        }
        let first = sizes[..11].iter().sum::<i32>() as usize;
        for (index, bits) in changed {
            let position = first + index;
            if let Some(operand) = launch.operand_at(position) {
                let host = unrealized_cast(context, At::before(launch), operand, *bits);
                set_operand(launch, position, host);
            }
        }
    }
    Ok(())
}

/// `ty` with its elements held as the integers of their bits, where it is a memref of one of
/// `types`: the same shape, layout and memory space.
fn memref_of_bits<'c>(context: &'c Context, ty: Type<'c>, types: &[Element]) -> Option<Type<'c>> {
    let memref = MemRefType::try_from(ty).ok()?;
    // Elements may be vectors of it (the views that wide copies move runs through).
    let element =
        Element::of(tile_dialect::ops::scalar_type(memref.element())).filter(|element| types.contains(element))?;
    let bits = tile_dialect::ops::vector_or_scalar_of(memref.element(), bits_type(context, element))?;
    let shape: Vec<i64> = tile_dialect::ops::static_sizes(memref)
        .into_iter()
        .map(|size| size.unwrap_or(i64::MIN))
        .collect();
    Some(MemRefType::new(bits, &shape, Some(memref.layout()), memref.memory_space()).into())
}

/// `value` as `to` (`builtin.unrealized_conversion_cast`), at `at`.
fn unrealized_cast<'c, 'a>(context: &'c Context, at: At<'c, 'a>, value: Value<'c, 'a>, to: Type<'c>) -> Value<'c, 'a> {
    let location = value.location();
    Builder {
        context,
        location,
        threads: None,
    }
    .value(
        at,
        melior::dialect::ods::builtin::unrealized_conversion_cast(context, &[to], &[value], location).into(),
    )
}

/// The upstream pass that moves the arithmetic on `types` (those a target emulates) to f32, after
/// the conversions it cannot take are split through f32: a backend runs them on its kernel modules
/// right before this pass.
pub fn arithmetic_in_f32(types: &[Element]) -> String {
    let names: Vec<&str> = types.iter().map(|element| element.name()).collect();
    format!(
        "{THROUGH_F32_ARGUMENT}, arith-emulate-unsupported-floats{{source-types={} target-type=f32}}",
        names.join(",")
    )
}

/// The closest module around `op` that names a target (none: the CPU reference's input).
fn named_module<'c, 'a>(op: OperationRef<'c, 'a>) -> Option<OperationRef<'c, 'a>> {
    std::iter::successors(Some(op), |op| op.parent_operation())
        .find(|op| op.attribute(crate::target::ATTRIBUTE).is_ok())
}

/// The target the module around `op` names.
fn target_of(op: OperationRef) -> Option<&'static crate::target::Target> {
    named_module(op).and_then(|module| crate::target::Target::of(module).ok())
}

/// The types the code under `op` emulates: those of the target of the closest module that names
/// one, else (the CPU reference) the 8-bit floats.
fn emulated(op: OperationRef) -> &'static [Element] {
    match named_module(op) {
        Some(module) => crate::target::Target::of(module).map_or(&[], |target| target.emulated_floats),
        None => &[Element::F8E4M3FN, Element::F8E5M2],
    }
}

/// Whether a value under `root` (an op's result, a block's argument) is of one of `types` or holds
/// elements of one (a vector, a memref): where none is, [`emulate`] has nothing to rewrite, and
/// one walk that finds none costs a third of its own (most kernels have no 8-bit floats on a
/// target that emulates them).
fn holds_any(root: OperationRef, types: &[Element]) -> bool {
    use melior::ir::operation::{WalkOrder, WalkResult};
    if types.is_empty() {
        return false;
    }
    let emulated = |value: Value| {
        Element::of(tile_dialect::ops::scalar_type(value.r#type())).is_some_and(|element| types.contains(&element))
    };
    let mut found = false;
    root.walk(WalkOrder::PreOrder, |op| {
        let arguments = op.regions().any(|region| {
            std::iter::successors(region.first_block(), |block| block.next_in_region()).any(|block| {
                (0..block.argument_count()).any(|index| {
                    block
                        .argument_at(index)
                        .is_some_and(|argument| emulated(argument.into()))
                })
            })
        });
        found = arguments || op.results().any(|result| emulated(result.into()));
        if found {
            WalkResult::Interrupt
        } else {
            WalkResult::Advance
        }
    });
    found
}

/// The integer type that holds an element's bits.
fn bits_type(context: &Context, element: Element) -> Type<'_> {
    IntegerType::new(context, element.bits() as u32).into()
}

fn emulate<'c>(context: &'c Context, root: OperationRef<'c, '_>) -> Result<(), String> {
    let types = emulated(root);
    if !holds_any(root, types) {
        return Ok(());
    }
    // In kernel modules only: the CPU reference lowers a module naming a GPU target for the host.
    let instruction = target_of(root).is_some_and(|target| target.f8_rounding);
    let by_instruction = |op: OperationRef| {
        instruction
            && std::iter::successors(Some(op), |op| op.parent_operation())
                .any(|op| tile_ir::is(&op, gpu::GPUModuleOperation::name))
    };
    let emulated_element = |ty: Type| Element::of(ty).filter(|element| types.contains(element));
    let ops = nested_ops(root);
    // The values of an emulated type, by what makes them, before any type changes.
    let mut loads = Vec::new();
    let mut roundings = Vec::new();
    for op in &ops {
        // (`result` on an op without one formats the op for its error, which verifies it.)
        let Some(result) = op.results().next() else { continue };
        // A rounding may give a vector (each lane rounded).
        if tile_ir::is(op, arith::TruncFOperation::name)
            && let Some(element) = emulated_element(tile_dialect::ops::scalar_type(result.r#type()))
        {
            roundings.push((*op, element));
            continue;
        }
        let Some(element) = emulated_element(result.r#type()) else {
            continue;
        };
        tile_ir::match_op!(op, {
            memref::LoadOperation => loads.push((*op, element)),
            arith::ConstantOperation => roundings.push((*op, element)),
            _ => {},
        });
    }
    // Every memref of an emulated type holds the bits.
    let memref_of_bits = |ty: Type<'c>| memref_of_bits(context, ty, types);
    for op in std::iter::once(root).chain(ops.iter().copied()) {
        for result in op.results() {
            if let Some(ty) = memref_of_bits(result.r#type()) {
                result.set_type(ty);
            }
        }
        for region in op.regions() {
            let mut block = region.first_block();
            while let Some(current) = block {
                for index in 0..current.argument_count() {
                    let argument = current.argument_at(index).expect("an argument");
                    if let Some(ty) = memref_of_bits(argument.r#type()) {
                        argument.set_type(ty);
                    }
                }
                block = current.next_in_region();
            }
        }
        if tile_ir::is(&op, func::FuncOperation::name) || tile_ir::is(&op, gpu::GPUFuncOperation::name) {
            tile_dialect::ops::signature_from_entry(context, op);
        }
    }
    // Values that ops move without computing on them (vector loads and stores of runs, vectors
    // built of elements and taken apart, selects) hold the bits too.
    let mut moved = Vec::new();
    for op in ops.iter().filter(|op| moves(op)) {
        for result in op.results() {
            let Some(element) = emulated_element(tile_dialect::ops::scalar_type(result.r#type())) else {
                continue;
            };
            if let Some(ty) = tile_dialect::ops::vector_or_scalar_of(result.r#type(), bits_type(context, element)) {
                result.set_type(ty);
                moved.push((Value::from(result), element));
            }
        }
    }
    let mut failure = None;
    for (value, element) in moved {
        widen_users(context, value, value, element, &mut failure);
    }
    for (load, element) in loads {
        let value: Value = load.result_at(0).expect("a loaded value").into();
        value.set_type(bits_type(context, element));
        widen_users(context, value, value, element, &mut failure);
    }
    for (op, element) in roundings {
        let b = Builder {
            context,
            location: op.location(),
            threads: None,
        };
        let at = At::before(op);
        let bits = if tile_ir::is(&op, arith::ConstantOperation::name) {
            let value = op
                .attribute("value")
                .ok()
                .and_then(|attribute| FloatAttribute::try_from(attribute).ok())
                .map_or(0.0, |attribute| attribute.value());
            let code = encode_constant(element, value);
            b.value(
                at,
                melior::dialect::arith::constant(
                    context,
                    IntegerAttribute::new(bits_type(context, element), code).into(),
                    b.location,
                ),
            )
        } else {
            let result = op.result_at(0).expect("a value").r#type();
            let ty = tile_dialect::ops::vector_or_scalar_of(result, bits_type(context, element)).expect("bits");
            let value = op.operand_at(0).expect("a float");
            let saturate = op.attribute(tile_dialect::decisions::SATURATE).is_ok();
            match by_instruction(op) && element.is_f8() {
                // The instruction saturates: a saturating rounding needs no check either.
                true => {
                    let in_range = op.attribute(tile_dialect::decisions::IN_RANGE).is_ok();
                    encode_by_instruction(&b, at, value, ty, element, in_range || saturate)
                }
                false => each_lane(&b, at, value, ty, |lane, _| {
                    let lane = if saturate {
                        clamp_finite(&b, at, lane, element)
                    } else {
                        lane
                    };
                    encode(&b, at, lane, element)
                }),
            }
        };
        let value: Value = op.result_at(0).expect("a value").into();
        for user in tile_dialect::ops::users(value) {
            if tile_ir::is(&user, memref::StoreOperation::name) || moves(&user) {
                let uses: Vec<usize> = (0..user.operand_count())
                    .filter(|index| user.operand_at(*index) == Some(value))
                    .collect();
                for index in uses {
                    set_operand(user, index, bits);
                }
            }
        }
        widen_users(context, value, bits, element, &mut failure);
        if !tile_dialect::ops::has_uses(value) {
            melior::IrRewriter::new(context).as_rewriter_base().erase_op(op);
        }
    }
    if let Some((op, message)) = failure {
        tile_dialect::diagnostics::emit_error(op.location(), &format!("'{}' op {message}", op_name(&op)));
        return Err(String::new());
    }
    // Nothing of an emulated type is left.
    for op in nested_ops(root) {
        let left = op
            .results()
            .map(|result| result.r#type())
            .chain(op.operands().map(|operand| operand.r#type()))
            // Memrefs of vectors too.
            .map(|ty| tile_dialect::ops::scalar_type(tile_dialect::ops::scalar_type(ty)))
            .find(|ty| emulated_element(*ty).is_some());
        if let Some(ty) = left {
            tile_dialect::diagnostics::emit_error(
                op.location(),
                &format!(
                    "'{}' op computes on {ty}, which this target holds as the integers of its bits and converts only where values are loaded, stored or widened (arith.extf, arith.truncf, constants); convert to f32 first",
                    op_name(&op)
                ),
            );
            return Err(String::new());
        }
    }
    Ok(())
}

/// Rebuilds each `arith.extf` of `value` (an `element` value whose bits are `bits`) from the bits
/// in integer arithmetic; stores of `bits` store the bits. Anything else that uses `value` is
/// recorded in `failure`.
fn widen_users<'c, 'a>(
    context: &'c Context,
    value: Value<'c, 'a>,
    bits: Value<'c, 'a>,
    element: Element,
    failure: &mut Option<(OperationRef<'c, 'a>, String)>,
) {
    for user in tile_dialect::ops::users(value) {
        if (tile_ir::is(&user, memref::StoreOperation::name) && user.operand_at(0) == Some(value)) || moves(&user) {
            continue;
        }
        if tile_ir::is(&user, arith::ExtFOperation::name) {
            let b = Builder {
                context,
                location: user.location(),
                threads: None,
            };
            let at = At::before(user);
            let result: Value = user.result_at(0).expect("a widened value").into();
            let widened = each_lane(&b, at, bits, result.r#type(), |lane, ty| {
                decode(&b, at, lane, element, ty)
            });
            let rewriter = melior::IrRewriter::new(context);
            rewriter.as_rewriter_base().replace_all_uses_with(result, widened);
            rewriter.as_rewriter_base().erase_op(user);
            continue;
        }
        if failure.is_none() {
            *failure = Some((
                user,
                format!(
                    "uses a {element} value, which this target holds as the integers of its bits: only loads, stores, arith.extf and arith.truncf of it are converted"
                ),
            ));
        }
    }
}

/// `convert` applied to `value` (a scalar, giving a `ty`), or to each lane of it (a 1-D vector:
/// the lanes' results built into a `ty`, a vector of as many).
fn each_lane<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    value: Value<'c, 'a>,
    ty: Type<'c>,
    convert: impl Fn(Value<'c, 'a>, Type<'c>) -> Value<'c, 'a>,
) -> Value<'c, 'a> {
    let Some(count) = tile_dialect::ops::vector_lanes(ty) else {
        return convert(value, ty);
    };
    let element = tile_dialect::ops::scalar_type(ty);
    // Each lane converted as it is taken out.
    let lanes: Vec<Value> = (0..count)
        .map(|lane| convert(lane_of(b, at, value, lane), element))
        .collect();
    b.value(at, vector::from_elements(b.context, ty, &lanes, b.location).into())
}

/// Lane `lane` of `value` (a 1-D vector).
pub(crate) fn lane_of<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, value: Value<'c, 'a>, lane: i64) -> Value<'c, 'a> {
    let position = crate::attributes::i64_array(b.context, &[lane]);
    b.value(
        at,
        tile_ir::vector::extract(b.context, value, &[], position, b.location).into(),
    )
}

/// Whether `op` moves values without computing on them, so that it moves their bits as well.
fn moves(op: &OperationRef) -> bool {
    // A whole vector loaded from or stored to a memref of vectors (a wide copy's view).
    let vector_access =
        |value: Option<Value>| value.is_some_and(|value| tile_dialect::ops::vector_lanes(value.r#type()).is_some());
    if tile_ir::is(op, memref::LoadOperation::name) {
        return vector_access(op.result_at(0).map(Value::from));
    }
    if tile_ir::is(op, memref::StoreOperation::name) {
        return vector_access(op.operand_at(0));
    }
    tile_ir::match_op!(op, {
        vector::LoadOperation
        | vector::StoreOperation
        | vector::FromElementsOperation
        | vector::ExtractOperation
        | vector::ExtractStridedSliceOperation
        | vector::BitCastOperation
        | vector::InsertOperation
        | vector::BroadcastOperation
        | vector::ShapeCastOperation
        | arith::SelectOperation => true,
        _ => false,
    })
}

/// An 8-bit float format's fields, as the integer arithmetic below needs them.
struct Eight {
    /// Stored mantissa bits.
    mantissa: i64,
    /// Exponent bias.
    bias: i64,
    /// The largest code of a magnitude that rounding may give (f8E4M3FN: 0x7F, its NaN, which
    /// `arith.truncf` gives past 448; f8E5M2: 0x7C, infinity).
    top: i64,
    /// The code of NaN.
    nan: i64,
    /// The magnitude (f32 bits) from which rounding passes the largest finite value: f8E4M3FN
    /// from 464 (halfway from 448 to the 480 it lacks), f8E5M2 from 61440.
    overflow: i64,
    /// The largest finite value: f8E4M3FN 448, f8E5M2 57344 (what a saturating rounding gives past
    /// it).
    largest: f64,
    /// Whether the all-ones exponent holds infinity and NaNs (IEEE), not finite values.
    ieee: bool,
}

impl Eight {
    fn of(element: Element) -> Self {
        match element {
            // Sign, four exponent bits (bias 7), three mantissa bits; 0x7F is NaN, no infinity.
            Element::F8E4M3FN => Self {
                mantissa: 3,
                bias: 7,
                top: 0x7F,
                nan: 0x7F,
                overflow: 0x43E8_0000,
                largest: 448.0,
                ieee: false,
            },
            // Sign, five exponent bits (bias 15), two mantissa bits: an f16's top byte.
            _ => Self {
                mantissa: 2,
                bias: 15,
                top: 0x7C,
                nan: 0x7E,
                overflow: 0x4770_0000,
                largest: 57344.0,
                ieee: true,
            },
        }
    }

    /// The shift from an f32's bits to the format's mantissa.
    fn shift(&self) -> i64 {
        23 - self.mantissa
    }

    /// The f32 bits of the smallest normal magnitude (2^(1 - bias)).
    fn smallest_normal(&self) -> i64 {
        (128 - self.bias) << 23
    }

    /// The rounding of an f32 magnitude below the smallest normal: in units of the subnormal
    /// quantum 2^(1 - bias - mantissa), it is the f32 mantissa with its implicit bit shifted
    /// right by this less the f32's exponent field.
    fn subnormal_shift(&self) -> i64 {
        151 - self.bias - self.mantissa
    }
}

/// Runs `lower`, the lowering of `op` that builds its ops in the op's place, and where `op` is a
/// saturating copy marks the roundings into 8-bit floats it built
/// ([`tile_dialect::decisions::SATURATE`]): they then give values past the largest finite one that
/// value. Every strategy's driver lowers its copies through it.
pub fn lower_in_place<'c, 'a>(op: OperationRef<'c, 'a>, lower: impl FnOnce()) {
    let Some(block) = op.block().filter(|_| tile_dialect::ops::copy_saturates(&op)) else {
        lower();
        return;
    };
    // The ops around `op` (melior exposes no previous sibling): what lies between them afterwards
    // is what `lower` built.
    let before = std::iter::successors(block.first_operation(), |sibling| sibling.next_in_block())
        .take_while(|sibling| *sibling != op)
        .last();
    let after = op.next_in_block();
    lower();
    let first = match before {
        Some(before) => before.next_in_block(),
        None => block.first_operation(),
    };
    for built in std::iter::successors(first, |built| built.next_in_block()).take_while(|built| Some(*built) != after) {
        for nested in std::iter::once(built).chain(nested_ops(built)) {
            mark_if_rounding_to_f8(nested);
        }
    }
}

/// Sets [`tile_dialect::decisions::SATURATE`] on `op` where it is an `arith.truncf` into an 8-bit
/// float (or vector of them).
fn mark_if_rounding_to_f8(op: OperationRef) {
    let rounds_to_f8 = tile_ir::is(&op, arith::TruncFOperation::name)
        && op
            .result_at(0)
            .and_then(|result| Element::of(tile_dialect::ops::scalar_type(result.r#type())))
            .is_some_and(|element| element.is_f8());
    if rounds_to_f8 {
        with_context(op, |context| {
            tile_dialect::ops::set_attribute(
                op,
                tile_dialect::decisions::SATURATE,
                melior::ir::Attribute::unit(context),
            );
        });
    }
}

/// `lane` clamped to the 8-bit float `element`'s largest finite magnitude (infinities too; NaN
/// stays NaN: `minimumf` and `maximumf` keep it).
fn clamp_finite<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, lane: Value<'c, 'a>, element: Element) -> Value<'c, 'a> {
    let largest = Eight::of(element).largest;
    let ty = lane.r#type();
    let high = b.binary(
        at,
        |c, x, y, l| arith::minimumf(c, x, y, l).into(),
        lane,
        b.constant(at, ty, largest),
    );
    b.binary(
        at,
        |c, x, y, l| arith::maximumf(c, x, y, l).into(),
        high,
        b.constant(at, ty, -largest),
    )
}

/// The magnitude from which rounding to the 8-bit float `element` passes its largest finite value
/// (f8E4M3FN: 464; f8E5M2: 61440); `None` for other types. A value known to stay below it rounds
/// by the instruction alone ([`tile_dialect::decisions::IN_RANGE`]).
pub fn overflow_bound(element: Element) -> Option<f64> {
    element
        .is_f8()
        .then(|| f32::from_bits(Eight::of(element).overflow as u32) as f64)
}

/// The f32 whose value the `element` bits `bits` hold, converted to `ty` (exactly: every bf16,
/// f8E4M3FN and f8E5M2 value is an f32, and an f64).
fn decode<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    bits: Value<'c, 'a>,
    element: Element,
    ty: Type<'c>,
) -> Value<'c, 'a> {
    let i32 = IntegerType::new(b.context, 32).into();
    let f32 = Type::float32(b.context);
    let word = b.cast(at, tile_ir::arith::extui, bits, i32);
    let value = match element {
        Element::BF16 => {
            let shifted = b.shli(at, word, b.integer(at, i32, 16));
            b.cast(at, tile_ir::arith::bitcast, shifted, f32)
        }
        _ => {
            let format = Eight::of(element);
            let m = format.mantissa;
            let sign = b.shli(at, b.andi(at, word, b.integer(at, i32, 0x80)), b.integer(at, i32, 24));
            let exponent = b.andi(
                at,
                b.shrui(at, word, b.integer(at, i32, m)),
                b.integer(at, i32, (0x80 >> m) - 1),
            );
            let mantissa = b.andi(at, word, b.integer(at, i32, (1 << m) - 1));
            let rebiased = b.shli(
                at,
                b.addi(at, exponent, b.integer(at, i32, 127 - format.bias)),
                b.integer(at, i32, 23),
            );
            let normal = b.ori(
                at,
                b.ori(at, rebiased, b.shli(at, mantissa, b.integer(at, i32, format.shift()))),
                sign,
            );
            // A subnormal code is its mantissa times the subnormal quantum.
            let small = b.cast(at, tile_ir::arith::uitofp, mantissa, f32);
            let quantum = 2f64.powi((1 - format.bias - m) as i32);
            let scaled = b.multiply(at, small, b.constant(at, f32, quantum));
            let scaled_bits = b.cast(at, tile_ir::arith::bitcast, scaled, i32);
            let subnormal = b.ori(at, scaled_bits, sign);
            let zero_exponent = b.compare(at, "eq", exponent, b.integer(at, i32, 0));
            let finite = b.select(at, zero_exponent, subnormal, normal);
            let magnitude = b.andi(at, word, b.integer(at, i32, 0x7F));
            let word = if format.ieee {
                // The all-ones exponent: infinity with a zero mantissa, NaN otherwise.
                let special = b.compare(at, "uge", magnitude, b.integer(at, i32, format.top));
                let nan = b.compare(at, "ugt", magnitude, b.integer(at, i32, format.top));
                let quiet = b.ori(at, b.integer(at, i32, 0x7FC0_0000), sign);
                let infinity = b.ori(at, b.integer(at, i32, 0x7F80_0000), sign);
                let special_word = b.select(at, nan, quiet, infinity);
                b.select(at, special, special_word, finite)
            } else {
                let nan = b.compare(at, "eq", magnitude, b.integer(at, i32, format.nan));
                let quiet = b.ori(at, b.integer(at, i32, 0x7FC0_0000), sign);
                b.select(at, nan, quiet, finite)
            };
            b.cast(at, tile_ir::arith::bitcast, word, f32)
        }
    };
    if ty.is_f32() {
        value
    } else if ty.is_f64() {
        b.cast(at, tile_ir::arith::extf, value, ty)
    } else {
        // An 8-bit float widened to f16 or bf16: its values are theirs too.
        b.cast(at, tile_ir::arith::truncf, value, ty)
    }
}

/// The `element` bits that `value` (a float; f64 is first rounded to f32) rounds to: to nearest,
/// ties to even; NaN stays NaN, and values past the largest finite one become f8E4M3FN's NaN
/// code (448, and anything from 464 up) or f8E5M2's infinity (from 61440 up), as `arith.truncf`
/// does.
fn encode<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, value: Value<'c, 'a>, element: Element) -> Value<'c, 'a> {
    let i32 = IntegerType::new(b.context, 32).into();
    let f32 = Type::float32(b.context);
    let value = if value.r#type().is_f32() {
        value
    } else {
        b.cast(at, tile_ir::arith::truncf, value, f32)
    };
    let word = b.cast(at, tile_ir::arith::bitcast, value, i32);
    let code = match element {
        Element::BF16 => {
            let lsb = b.andi(at, b.shrui(at, word, b.integer(at, i32, 16)), b.integer(at, i32, 1));
            let bias = b.addi(at, b.integer(at, i32, 0x7FFF), lsb);
            let rounded = b.shrui(at, b.addi(at, word, bias), b.integer(at, i32, 16));
            let nan = b.compare_float(at, melior::dialect::arith::CmpfPredicate::Uno, value, value);
            b.select(at, nan, b.integer(at, i32, 0x7FC0), rounded)
        }
        _ => {
            let format = Eight::of(element);
            let shift = format.shift();
            let sign = b.andi(at, b.shrui(at, word, b.integer(at, i32, 24)), b.integer(at, i32, 0x80));
            let magnitude = b.andi(at, word, b.integer(at, i32, 0x7FFF_FFFF));
            // Normal range: round the exponent and top mantissa bits together (a carry moves
            // into the exponent), then rebias from 127.
            let lsb = b.andi(
                at,
                b.shrui(at, magnitude, b.integer(at, i32, shift)),
                b.integer(at, i32, 1),
            );
            let bias = b.addi(at, b.integer(at, i32, (1 << (shift - 1)) - 1), lsb);
            let rounded = b.shrui(at, b.addi(at, magnitude, bias), b.integer(at, i32, shift));
            let normal = b.subi(at, rounded, b.integer(at, i32, (127 - format.bias) << format.mantissa));
            // Below the smallest normal: multiples of the subnormal quantum, the f32's mantissa
            // with its implicit bit shifted right (by 21 or more here; capped at 31, past which
            // nothing is left), rounded to even in integers (a device may simplify float tricks
            // such as adding and taking away 2^23).
            let exponent = b.shrui(at, magnitude, b.integer(at, i32, 23));
            let full = b.ori(
                at,
                b.andi(at, magnitude, b.integer(at, i32, 0x7F_FFFF)),
                b.integer(at, i32, 0x80_0000),
            );
            let shift = b.minui(
                at,
                b.subi(at, b.integer(at, i32, format.subnormal_shift()), exponent),
                b.integer(at, i32, 31),
            );
            let half = b.shrui(at, b.shli(at, b.integer(at, i32, 1), shift), b.integer(at, i32, 1));
            let kept = b.andi(at, b.shrui(at, full, shift), b.integer(at, i32, 1));
            let bias = b.subi(at, b.addi(at, half, kept), b.integer(at, i32, 1));
            let subnormal = b.shrui(at, b.addi(at, full, bias), shift);
            let small = b.compare(at, "ult", magnitude, b.integer(at, i32, format.smallest_normal()));
            let finite = b.select(at, small, subnormal, normal);
            let saturated = b.minui(at, finite, b.integer(at, i32, format.top));
            let nan = b.compare(at, "ugt", magnitude, b.integer(at, i32, 0x7F80_0000));
            let code = b.select(at, nan, b.integer(at, i32, format.nan), saturated);
            b.ori(at, code, sign)
        }
    };
    b.cast(at, tile_ir::arith::trunci, code, bits_type(b.context, element))
}

/// `value` (f32 lanes, or f64 first rounded to f32) rounded to `element` by the device's
/// instruction (`cvt.rn.satfinite`, two lanes at a time: `nvvm.convert.f32x2.to.f8x2`) where the
/// target has one: the same codes as [`encode`], the instruction's saturation past the largest
/// finite value replaced by what `arith.truncf` gives there (f8E4M3FN's NaN, f8E5M2's infinity,
/// the sign kept; a NaN stays NaN, its sign the instruction's). `ty`: the bits' type (a scalar or
/// a 1-D vector). `in_range`: every lane is known to stay below the overflow bound (or be NaN),
/// where the instruction's codes are `arith.truncf`'s as they are.
fn encode_by_instruction<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    value: Value<'c, 'a>,
    ty: Type<'c>,
    element: Element,
    in_range: bool,
) -> Value<'c, 'a> {
    let f32 = Type::float32(b.context);
    let i16: Type = IntegerType::new(b.context, 16).into();
    let lanes: Vec<Value> = match tile_dialect::ops::vector_lanes(value.r#type()) {
        None => vec![value],
        Some(count) => (0..count).map(|lane| lane_of(b, at, value, lane)).collect(),
    };
    let lanes: Vec<Value> = lanes
        .into_iter()
        .map(|lane| match lane.r#type().is_f32() {
            true => lane,
            false => b.cast(at, tile_ir::arith::truncf, lane, f32),
        })
        .collect();
    let rounding = |high: Value<'c, 'a>, low: Value<'c, 'a>| -> Value<'c, 'a> {
        let attribute = |text: &str| melior::ir::Attribute::parse(b.context, text).expect("an nvvm attribute");
        let op = melior::ir::operation::OperationBuilder::new("nvvm.convert.f32x2.to.f8x2", b.location)
            .add_operands(&[high, low])
            .add_results(&[i16])
            .add_attributes(&[
                (
                    melior::ir::Identifier::new(b.context, "rnd"),
                    attribute("#nvvm.fp_rnd_mode<rn>"),
                ),
                (
                    melior::ir::Identifier::new(b.context, "sat"),
                    attribute("#nvvm.sat_mode<satfinite>"),
                ),
                (
                    melior::ir::Identifier::new(b.context, "dstTy"),
                    melior::ir::attribute::TypeAttribute::new(
                        Type::parse(b.context, element.name()).expect("an 8-bit float type"),
                    )
                    .into(),
                ),
            ])
            .build()
            .expect("nvvm.convert.f32x2.to.f8x2");
        b.value(at, op)
    };
    let format = Eight::of(element);
    // The instruction saturates a magnitude past the largest finite value to that value's code;
    // from the overflow bound on `arith.truncf` gives the next code (f8E4M3FN's NaN, f8E5M2's
    // infinity; the sign kept), so a lane at or past the bound gets its code plus one, without a
    // branch. (Ordered: a NaN lane keeps the instruction's NaN, whose sign is as unspecified as
    // `arith.truncf`'s of a NaN.)
    let bound = (!in_range).then(|| b.constant(at, f32, f32::from_bits(format.overflow as u32) as f64));
    let past = |lane: Value<'c, 'a>, bound: Value<'c, 'a>, one: i64| {
        let beyond = b.compare_float(at, melior::dialect::arith::CmpfPredicate::Oge, b.absf(at, lane), bound);
        b.select(at, beyond, b.integer(at, i16, one), b.integer(at, i16, 0))
    };
    // Each pair's two codes as one i16, the lower lane's in the low byte.
    let words: Vec<Value> = lanes
        .chunks(2)
        .map(|pair| {
            let (low, high) = (pair[0], *pair.get(1).unwrap_or(&pair[0]));
            let word = rounding(high, low);
            match bound {
                None => word,
                Some(bound) => b.addi(at, b.addi(at, word, past(low, bound, 1)), past(high, bound, 0x100)),
            }
        })
        .collect();
    let bits = bits_type(b.context, element);
    match tile_dialect::ops::vector_lanes(ty) {
        None => b.cast(at, tile_ir::arith::trunci, words[0], bits),
        // Whole pairs: the words' bytes are the vector's lanes (a pair stored as one 16-bit store).
        Some(count) if count % 2 == 0 => {
            let wide = crate::attributes::vector(count / 2, i16);
            let packed = b.value(at, vector::from_elements(b.context, wide, &words, b.location).into());
            b.cast(at, tile_ir::vector::bitcast, packed, ty)
        }
        Some(count) => {
            let codes: Vec<Value> = (0..count)
                .map(|lane| {
                    let word = words[lane as usize / 2];
                    let byte = b.shrui(at, word, b.integer(at, i16, 8 * (lane % 2)));
                    b.cast(at, tile_ir::arith::trunci, byte, bits)
                })
                .collect();
            b.value(at, vector::from_elements(b.context, ty, &codes, b.location).into())
        }
    }
}

/// The bits of the `element` value nearest `value` (ties to even; NaN, f8E4M3FN's overflow to
/// NaN, f8E5M2's to infinity), computed here for a constant.
fn encode_constant(element: Element, value: f64) -> i64 {
    let word = (value as f32).to_bits();
    match element {
        Element::BF16 => {
            if value.is_nan() {
                0x7FC0
            } else {
                (word.wrapping_add(0x7FFF + ((word >> 16) & 1)) >> 16) as i64
            }
        }
        _ => {
            let format = Eight::of(element);
            let shift = format.shift();
            let sign = ((word >> 24) & 0x80) as i64;
            let magnitude = (word & 0x7FFF_FFFF) as i64;
            let code = if magnitude > 0x7F80_0000 {
                format.nan
            } else if magnitude < format.smallest_normal() {
                let quantum = 2f64.powi((1 - format.bias - format.mantissa) as i32);
                (f32::from_bits(magnitude as u32) as f64 / quantum).round_ties_even() as i64
            } else {
                let rounded = (magnitude + (1 << (shift - 1)) - 1 + ((magnitude >> shift) & 1)) >> shift;
                (rounded - ((127 - format.bias) << format.mantissa)).min(format.top)
            };
            code | sign
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn constants_round_to_nearest_even_and_f8_overflows_to_nan() {
        assert_eq!(encode_constant(Element::BF16, 1.0), 0x3F80);
        assert_eq!(encode_constant(Element::BF16, -2.0), 0xC000);
        assert_eq!(encode_constant(Element::F8E4M3FN, 1.0), 0x38);
        assert_eq!(encode_constant(Element::F8E4M3FN, 448.0), 0x7E);
        assert_eq!(encode_constant(Element::F8E4M3FN, 464.0), 0x7E); // a tie: 448's mantissa is even
        assert_eq!(encode_constant(Element::F8E4M3FN, 470.0), 0x7F);
        assert_eq!(encode_constant(Element::F8E4M3FN, -0.5), 0x80 | 0x30);
        assert_eq!(encode_constant(Element::F8E4M3FN, 2f64.powi(-9)), 0x01);
        assert_eq!(encode_constant(Element::F8E4M3FN, 2f64.powi(-6)), 0x08);
        assert_eq!(encode_constant(Element::F8E5M2, 1.0), 0x3C);
        assert_eq!(encode_constant(Element::F8E5M2, -1.5), 0x80 | 0x3E);
        assert_eq!(encode_constant(Element::F8E5M2, 57344.0), 0x7B);
        assert_eq!(encode_constant(Element::F8E5M2, 61439.0), 0x7B);
        assert_eq!(encode_constant(Element::F8E5M2, 61440.0), 0x7C); // a tie: 57344's mantissa is odd
        assert_eq!(encode_constant(Element::F8E5M2, f64::INFINITY), 0x7C);
        assert_eq!(encode_constant(Element::F8E5M2, f64::NAN), 0x7E);
        assert_eq!(encode_constant(Element::F8E5M2, 2f64.powi(-16)), 0x01);
        assert_eq!(encode_constant(Element::F8E5M2, 2f64.powi(-17)), 0x00); // a tie: 0 is even
        assert_eq!(encode_constant(Element::F8E5M2, 2f64.powi(-14)), 0x04);
    }
}

//! `tile.print`. On the CPU reference, calls to the print functions `tile-run` defines
//! ([`PRINT_INT`], [`PRINT_FLOAT`]), which format the line as the interpreter does
//! (`tile_interp::print`); on a GPU, `gpu.printf` from the block's first thread with the same
//! format (C's `%g` for floats), a tile's elements in row-major order between barriers.

use super::builder::{At, Builder};
use melior::{
    dialect::func,
    ir::{
        Attribute, BlockLike, Identifier, Region, RegionLike, Type, TypeLike, Value, ValueLike,
        attribute::{DenseElementsAttribute, FlatSymbolRefAttribute, StringAttribute, TypeAttribute},
        operation::{OperationLike, OperationRef},
        r#type::{FunctionType, IntegerType, MemRefType, RankedTensorType},
    },
};
use tile_dialect::ops::{find_ops, memref_shape, string_attribute};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_ir::{arith, memref, tile};

/// The CPU reference's print of an integer: (message as `memref<?xi8>`, block x, y, z, rank of
/// the index (-1 for a scalar), four index coordinates, the value as i64).
pub const PRINT_INT: &str = "tile_print_int";
/// The same for a float (the value as f64).
pub const PRINT_FLOAT: &str = "tile_print_float";
/// The most dimensions a printed tile has (the coordinates the print functions take).
pub const MAX_RANK: usize = 4;

/// Lowers `tile.print` where it stands (a scalar's print, or a loop over the tile's elements).
pub fn lower_print<'c>(b: &Builder<'c>, print: OperationRef<'c, '_>) {
    let at = At::before(print);
    let value = print.operand_at(0).expect("verified print");
    if value.r#type().is_mem_ref() {
        let shape = memref_shape(value);
        print_elements(b, at, print, &shape, |at, indices| b.load(at, value, indices));
    } else {
        let at = first_thread(b, at);
        let blocks = block_ids(b, at, print);
        print_value(b, at, print, &blocks, None, value);
    }
}

/// Prints every element of a tile of `shape` for `print`, in row-major order, `load` reading the
/// element at the given indices. On a GPU the block's first thread prints, after a barrier (the
/// other threads' writes are in) and before another (none writes the tile before it is printed).
pub(crate) fn print_elements<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    print: OperationRef<'c, 'a>,
    shape: &[i64],
    load: impl Fn(At<'c, 'a>, &[Value<'c, 'a>]) -> Value<'c, 'a>,
) {
    if b.threads.is_some() {
        b.barrier(at);
    }
    let inner = first_thread(b, at);
    let blocks = block_ids(b, inner, print);
    let extents: Vec<Value> = shape.iter().map(|extent| b.index(inner, *extent)).collect();
    let (body, indices) = b.loop_nest(inner, &extents);
    let element = load(body, &indices);
    print_value(b, body, print, &blocks, Some(&indices), element);
    if b.threads.is_some() {
        b.barrier(at);
    }
}

/// `at` on the CPU; inside `if thread == 0` on a GPU.
fn first_thread<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>) -> At<'c, 'a> {
    if b.threads.is_none() {
        return at;
    }
    let thread = b.thread_id(at);
    let zero = b.index(at, 0);
    let first = b.compare(at, "eq", thread, zero);
    b.if_then(at, first)
}

/// The block's x, y and z as i64: the enclosing kernel's block arguments (0 past its grid).
fn block_ids<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, print: OperationRef<'c, 'a>) -> [Value<'c, 'a>; 3] {
    let mut kernel = print.parent_operation();
    while let Some(op) = kernel.filter(|op| !tile_ir::is(op, tile::KernelOperation::name)) {
        kernel = op.parent_operation();
    }
    let body = kernel
        .and_then(|kernel| kernel.region_at(0))
        .and_then(|region| region.first_block());
    let i64_type = IntegerType::new(b.context, 64).into();
    [0, 1, 2].map(|d| match body.and_then(|body| body.argument_at(d)) {
        Some(id) => b.cast(at, arith::index_cast, id.into(), i64_type),
        None => b.integer(at, i64_type, 0),
    })
}

/// Prints one line: `value` (with its tile `indices`, if any) of `print`.
fn print_value<'c, 'a>(
    b: &Builder<'c>,
    at: At<'c, 'a>,
    print: OperationRef<'c, 'a>,
    blocks: &[Value<'c, 'a>; 3],
    indices: Option<&[Value<'c, 'a>]>,
    value: Value<'c, 'a>,
) {
    let context = b.context;
    let i64_type: Type = IntegerType::new(context, 64).into();
    let f64_type = Type::float64(context);
    let r#type = value.r#type();
    let float = !(r#type.is_index() || r#type.is_integer());
    let value = if r#type.is_index() {
        b.cast(at, arith::index_cast, value, i64_type)
    } else if r#type.is_integer() {
        let width = IntegerType::try_from(r#type)
            .map(|integer| integer.width())
            .unwrap_or(64);
        match width {
            64 => value,
            1 => b.cast(at, arith::extui, value, i64_type),
            _ => b.cast(at, arith::extsi, value, i64_type),
        }
    } else if r#type.is_f64() {
        value
    } else {
        // Narrow floats widen through f32, which every target's conversions take.
        let wide = if r#type.is_f32() {
            value
        } else {
            b.cast(at, arith::extf, value, Type::float32(context))
        };
        b.cast(at, arith::extf, wide, f64_type)
    };
    let coordinates: Vec<Value> = indices
        .unwrap_or_default()
        .iter()
        .map(|index| b.cast(at, arith::index_cast, *index, i64_type))
        .collect();
    let message = string_attribute(&print, "message").unwrap_or_default();
    if b.threads.is_some() {
        // C's printf takes the message as a format: its percent signs are doubled.
        let mut format = format!("{} block (%lld, %lld, %lld)", message.replace('%', "%%"));
        if indices.is_some() {
            format += &format!(" [{}]", vec!["%lld"; coordinates.len()].join(", "));
        }
        format += if float { ": %g\n" } else { ": %lld\n" };
        let mut arguments: Vec<Value> = blocks.to_vec();
        arguments.extend(&coordinates);
        arguments.push(value);
        b.insert(
            at,
            tile_ir::gpu::printf(context, &arguments, StringAttribute::new(context, &format), b.location).into(),
        );
        return;
    }
    let text = message_text(b, at, print, &message);
    let rank = b.integer(at, i64_type, indices.map_or(-1, |indices| indices.len() as i64));
    let zero = b.integer(at, i64_type, 0);
    let mut operands = vec![text];
    operands.extend(blocks);
    operands.push(rank);
    operands.extend((0..MAX_RANK).map(|d| coordinates.get(d).copied().unwrap_or(zero)));
    operands.push(value);
    let callee = declare(
        b,
        print,
        if float { PRINT_FLOAT } else { PRINT_INT },
        if float { f64_type } else { i64_type },
    );
    b.insert(
        at,
        func::call(
            context,
            FlatSymbolRefAttribute::new(context, callee),
            &operands,
            &[],
            b.location,
        ),
    );
}

/// The module that holds `op`.
fn module_of<'c, 'a>(op: OperationRef<'c, 'a>) -> OperationRef<'c, 'a> {
    let mut module = op;
    while let Some(parent) = module.parent_operation() {
        module = parent;
    }
    module
}

/// The first op of the module's body (where declarations go).
fn module_start<'c, 'a>(module: OperationRef<'c, 'a>) -> At<'c, 'a> {
    let body = module.body().expect("a module body");
    At {
        block: body,
        before: body.first_operation().expect("the module's functions"),
    }
}

/// `message` as a `memref<?xi8>` of its bytes: a constant global of the module, one per message.
fn message_text<'c, 'a>(b: &Builder<'c>, at: At<'c, 'a>, print: OperationRef<'c, 'a>, message: &str) -> Value<'c, 'a> {
    let context = b.context;
    let module = module_of(print);
    let i8_type: Type = IntegerType::new(context, 8).into();
    let bytes = message.len().max(1) as u64;
    let global_type = MemRefType::new(i8_type, &[bytes as i64], None, None);
    let existing = find_ops(module, memref::GlobalOperation::name())
        .into_iter()
        .filter(|global| {
            string_attribute(global, "sym_name").is_some_and(|name| name.starts_with("tile_print_message_"))
        })
        .count();
    let name = format!("tile_print_message_{existing}");
    let mut values: Vec<Attribute> = message
        .bytes()
        .map(|byte| melior::ir::attribute::IntegerAttribute::new(i8_type, byte as i8 as i64).into())
        .collect();
    if values.is_empty() {
        values.push(melior::ir::attribute::IntegerAttribute::new(i8_type, 0).into());
    }
    let initial = DenseElementsAttribute::new(RankedTensorType::new(&[bytes], i8_type, None).into(), &values)
        .expect("the message's bytes");
    let global = memref::GlobalOperation::builder(context, b.location)
        .sym_name(StringAttribute::new(context, &name))
        .sym_visibility(StringAttribute::new(context, "private"))
        .r#type(TypeAttribute::new(global_type.into()))
        .initial_value(initial.into())
        .constant(Attribute::unit(context))
        .build();
    b.insert(module_start(module), global.into());
    let whole = b.value(
        at,
        memref::get_global(
            context,
            global_type.into(),
            FlatSymbolRefAttribute::new(context, &name),
            b.location,
        )
        .into(),
    );
    let dynamic = MemRefType::new(i8_type, &[i64::MIN], None, None);
    b.cast(at, memref::cast, whole, dynamic.into())
}

/// Declares the print function `name` (its last parameter of `value_type`) in the module of
/// `print`, once; returns its name.
fn declare<'c>(b: &Builder<'c>, print: OperationRef<'c, '_>, name: &'static str, value_type: Type<'c>) -> &'static str {
    let context = b.context;
    let module = module_of(print);
    let declared = find_ops(module, tile_ir::func::FuncOperation::name())
        .iter()
        .any(|function| string_attribute(function, "sym_name").as_deref() == Some(name));
    if declared {
        return name;
    }
    let i64_type: Type = IntegerType::new(context, 64).into();
    let text: Type = MemRefType::new(IntegerType::new(context, 8).into(), &[i64::MIN], None, None).into();
    let mut inputs = vec![text];
    inputs.extend(std::iter::repeat_n(i64_type, 4 + MAX_RANK));
    inputs.push(value_type);
    let declaration = func::func(
        context,
        StringAttribute::new(context, name),
        TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into()),
        Region::new(),
        &[(
            Identifier::new(context, "sym_visibility"),
            StringAttribute::new(context, "private").into(),
        )],
        b.location,
    );
    b.insert(module_start(module), declaration);
    name
}

//! The host side of a lowered kernel: a `func.func` that takes the host tensors and the grid of
//! the `tile.kernel`, prepares the kernel's arguments (tensor maps included) and launches it
//! (`gpu.launch_func`). The lowering calls it where the `tile.kernel` stood; upstream's
//! `gpu-to-llvm` turns it into calls of MLIR's GPU runtime wrappers. Every GPU target uses it.

use super::symbols::{HostLaunch, Symbols};
use melior::{
    Context,
    dialect::{arith, func},
    ir::{
        Block, BlockLike, Identifier, Location, Operation, Region, RegionLike, Type, Value, ValueLike,
        attribute::{IntegerAttribute, StringAttribute, TypeAttribute},
        r#type::{FunctionType, IntegerType, MemRefType},
    },
};
use tile_dialect::ops::{nested_symbol, unranked_type};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_ir::{builtin, gpu, memref, nvgpu};

/// What a launch takes from the host, in the kernel's argument order.
pub struct Launched<'c, 'a> {
    /// The global tensors (host memrefs), in the kernel's order.
    pub tensors: Vec<Value<'c, 'a>>,
    /// The grid, one host index per dimension the program gives.
    pub grid: Vec<Value<'c, 'a>>,
    /// Integers the kernel takes after its tensors and tensor maps.
    pub scalars: Vec<Value<'c, 'a>>,
}

/// How a kernel is launched beside its tensors (passed as the memrefs the host holds).
pub struct Arguments<'c, 'f> {
    /// Dynamic shared memory the launch asks for.
    pub shared_bytes: Option<i64>,
    /// Threads a block launches.
    pub threads: i64,
    /// Tensor maps the kernel takes after its tensors (the register rules' TMA copies).
    pub tensor_maps: &'f [TensorMapArgument<'c>],
}

/// A tensor map the host encodes for the kernel: of global tensor `tensor` (its index among the
/// launch's tensors), with the box `box_` (one size per dimension, outermost first), of type
/// `map_type` (an `!nvgpu.tensormap.descriptor`), passed as a pointer to the encoded map.
pub struct TensorMapArgument<'c> {
    /// Index of the tensor among the launch's tensors.
    pub tensor: usize,
    /// The box, outermost first.
    pub box_: Vec<i64>,
    /// The `!nvgpu.tensormap.descriptor` type.
    pub map_type: Type<'c>,
}

/// The launch function `{stem}_launch` of the kernel `symbols` name, taking what `launched` says:
/// `func.func private @{stem}_launch(tensors..., scalars..., grid...)`, every op of it at
/// `location` (the `tile.kernel`'s, so that what upstream passes report about it points at the
/// user's kernel). Returns the function, to be placed in the module, and how to call it.
pub fn launch<'c, 'a>(
    context: &'c Context,
    launched: Launched<'c, 'a>,
    symbols: &Symbols,
    arguments: &Arguments<'c, '_>,
    location: Location<'c>,
) -> (Operation<'c>, HostLaunch<'c, 'a>) {
    let name = format!("{}_launch", symbols.stem);
    let inputs: Vec<Type> = launched
        .tensors
        .iter()
        .chain(&launched.scalars)
        .chain(&launched.grid)
        .map(|value| value.r#type())
        .collect();
    let block = Block::new(&inputs.iter().map(|ty| (*ty, location)).collect::<Vec<_>>());
    launch_body(context, &block, &launched, symbols, arguments, location);
    let region = Region::new();
    region.append_block(block);
    let function = func::func(
        context,
        StringAttribute::new(context, &name),
        TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into()),
        region,
        &[(
            Identifier::new(context, "sym_visibility"),
            StringAttribute::new(context, "private").into(),
        )],
        location,
    );
    let mut operands = launched.tensors;
    operands.extend(launched.scalars);
    operands.extend(launched.grid);
    (function, HostLaunch { name, operands })
}

/// Fills `block`, whose arguments are the tensors, the scalars and the grid of `launched`: encodes
/// the tensor maps, then launches the kernel with one block of `arguments.threads` threads per
/// grid point (dimensions the program leaves out are 1).
fn launch_body<'c>(
    context: &'c Context,
    block: &Block<'c>,
    launched: &Launched,
    symbols: &Symbols,
    arguments: &Arguments<'c, '_>,
    location: Location<'c>,
) {
    let argument = |index: usize| -> Value<'c, '_> { block.argument_at(index).expect("launch argument").into() };
    let append =
        |op: Operation<'c>| -> Value<'c, '_> { block.append_operation(op).result_at(0).expect("a value").into() };
    let constant = |value: i64, ty: Type<'c>| {
        append(arith::constant(
            context,
            IntegerAttribute::new(ty, value).into(),
            location,
        ))
    };
    let index = Type::index(context);
    let (tensors, scalars, dims) = (launched.tensors.len(), launched.scalars.len(), launched.grid.len());
    let one = constant(1, index);
    let mut kernel_operands: Vec<Value> = (0..tensors).map(argument).collect();
    for map in arguments.tensor_maps {
        let tensor = argument(map.tensor);
        let memref = MemRefType::try_from(tensor.r#type()).expect("global tensors are memrefs");
        // The descriptor op takes a tensor of any rank.
        let unranked = append(memref::cast(context, unranked_type(memref), tensor, location).into());
        let box_: Vec<Value> = map.box_.iter().map(|size| constant(*size, index)).collect();
        let descriptor = append(nvgpu::tma_create_descriptor(context, map.map_type, unranked, &box_, location).into());
        // The kernel takes the encoded map as a pointer, which the descriptor becomes in LLVM.
        let pointer = append(
            builtin::unrealized_conversion_cast(
                context,
                &[crate::attributes::llvm_pointer(context, 0)],
                &[descriptor],
                location,
            )
            .into(),
        );
        kernel_operands.push(pointer);
    }
    kernel_operands.extend((tensors..tensors + scalars).map(argument));
    let grid: Vec<Value> = (0..3)
        .map(|dim| {
            if dim < dims {
                argument(tensors + scalars + dim)
            } else {
                one
            }
        })
        .collect();
    let threads = constant(arguments.threads, index);
    let shared: Vec<Value> = arguments
        .shared_bytes
        .map(|bytes| constant(bytes, IntegerType::new(context, 32).into()))
        .into_iter()
        .collect();
    // Segments: async dependencies, grid x/y/z, block x/y/z, cluster x/y/z, dynamic shared
    // memory, kernel operands, async object.
    let segments = [
        0,
        1,
        1,
        1,
        1,
        1,
        1,
        0,
        0,
        0,
        shared.len() as i32,
        kernel_operands.len() as i32,
        0,
    ];
    let mut launch = gpu::LaunchFuncOperation::builder(context, location)
        .async_dependencies(&[])
        .grid_size_x(grid[0])
        .grid_size_y(grid[1])
        .grid_size_z(grid[2])
        .block_size_x(threads)
        .block_size_y(one)
        .block_size_z(one);
    if let Some(bytes) = shared.first() {
        launch = launch.dynamic_shared_memory_size(*bytes);
    }
    let launch = launch
        .kernel_operands(&kernel_operands)
        .kernel(nested_symbol(context, &symbols.module, &symbols.kernel))
        .build();
    block.append_operation(tile_ir::with_segments(context, launch, &segments));
    block.append_operation(func::r#return(&[], location));
}

/// The `!nvgpu.tensormap.descriptor` type of a TMA box `box_` (outermost first: the tile's rows
/// and columns in the dimensions it spans, 1 in the others) of `element`s in workgroup memory, each row swizzled over
/// `swizzle` bytes, past the tensor's end read as zeros. (melior has no constructor for it.)
pub fn tensor_map_type<'c>(context: &'c Context, box_: &[i64], element: Type<'c>, swizzle: i64) -> Type<'c> {
    let shape: Vec<String> = box_.iter().map(i64::to_string).collect();
    let swizzle = match swizzle {
        128 => "swizzle_128b",
        64 => "swizzle_64b",
        32 => "swizzle_32b",
        _ => "none",
    };
    let text = format!(
        "!nvgpu.tensormap.descriptor<tensor = memref<{}x{element}, #gpu.address_space<workgroup>>, swizzle = {swizzle}, l2promo = l2promo_128b, oob = zero, interleave = none>",
        shape.join("x")
    );
    Type::parse(context, &text).expect("tensor map descriptor type")
}

//! The skeleton a plain kernel moves into: `gpu.module @{stem}_module` holding
//! `gpu.func @{stem}_kernel`, whose entry block has the kernel's arguments and attributions and
//! only a `gpu.return`, before which the lowering then moves the `tile.kernel`'s body. Built op by
//! op at the `tile.kernel`'s location, so that what upstream passes report about the kernel points
//! at the user's input.

use crate::host::symbols::Symbols;
use crate::target::Target;
use melior::{
    Context,
    ir::{
        Attribute, Block, BlockLike, BlockRef, Identifier, Location, Operation, Region, RegionLike, Type,
        attribute::{
            ArrayAttribute, DenseI32ArrayAttribute, DictionaryAttribute, IntegerAttribute, StringAttribute,
            TypeAttribute,
        },
        operation::{OperationMutLike, OperationRef},
        r#type::{FunctionType, IntegerType},
    },
};
use tile_ir::gpu;

/// An argument of the kernel function.
pub struct Argument<'c> {
    /// Its type.
    pub ty: Type<'c>,
    /// The storage-buffer binding it names (SPIR-V: where views share a binding with a tensor,
    /// or scalars have bindings of their own, every argument names its own; elsewhere the
    /// conversion numbers them in order).
    pub binding: Option<usize>,
    /// A scalar: on SPIR-V its binding is a storage buffer that holds it.
    pub scalar: bool,
}

/// The kernel function's signature and attributes.
pub struct Kernel<'c> {
    /// Arguments in order: tensors, tensor maps, scalars, vector views.
    pub arguments: Vec<Argument<'c>>,
    /// Workgroup attributions (tiles in workgroup memory), after the arguments.
    pub workgroup: Vec<Type<'c>>,
    /// Private attributions (thread-owned fragments), after the workgroup attributions.
    pub private: Vec<Type<'c>>,
    /// Attributes of the function beside its signature (see [`kernel_attributes`]).
    pub attributes: Vec<(Identifier<'c>, Attribute<'c>)>,
}

/// What `target`'s kernels of `threads` threads say of their launch: the SPIR-V entry point's
/// workgroup size, or the known block size (and, on NVIDIA with `min_blocks`, the launch bound
/// that keeps registers few enough for `min_blocks` blocks a multiprocessor, `.minnctapersm`,
/// beside the `.maxntid` that upstream's `convert-gpu-to-nvvm` writes from the known block size:
/// the kernel giving it too made the function's attributes hold the key twice, which printed IR
/// that does not parse; with `cluster`, the blocks of a cluster along x, which the code then asks
/// for: PTX's `.reqnctapercluster`).
pub fn kernel_attributes<'c>(
    context: &'c Context,
    target: &Target,
    threads: i64,
    min_blocks: Option<i64>,
    cluster: Option<i64>,
) -> Vec<(Identifier<'c>, Attribute<'c>)> {
    let named = |name: &str, value: Attribute<'c>| (Identifier::new(context, name), value);
    if target.is_spirv() {
        let abi = format!("#spirv.entry_point_abi<workgroup_size = [{threads}, 1, 1]>");
        return vec![named(
            "spirv.entry_point_abi",
            Attribute::parse(context, &abi).expect("entry point ABI"),
        )];
    }
    let block: Attribute = DenseI32ArrayAttribute::new(context, &[threads as i32, 1, 1]).into();
    let mut attributes = vec![named("known_block_size", block)];
    if let Some(blocks) = cluster {
        let cluster = DenseI32ArrayAttribute::new(context, &[blocks as i32, 1, 1]).into();
        attributes.push(named("known_cluster_size", cluster));
    }
    if let (Some(blocks), true) = (min_blocks, target.memory.dynamic_shared) {
        let i32 = IntegerType::new(context, 32).into();
        attributes.push(named("nvvm.minctasm", IntegerAttribute::new(i32, blocks).into()));
    }
    attributes
}

/// Appends the skeleton of `kernel` to `body` (a module's block): the `gpu.module` named by
/// `symbols`, with `targets` (e.g. a SPIR-V target environment) where given; returns it.
pub fn append<'c, 'a>(
    context: &'c Context,
    body: BlockRef<'c, 'a>,
    symbols: &Symbols,
    targets: Option<ArrayAttribute<'c>>,
    kernel: Kernel<'c>,
    location: Location<'c>,
) -> OperationRef<'c, 'a> {
    let contents = Block::new(&[]);
    contents.append_operation(function(context, &symbols.kernel, kernel, location));
    let region = Region::new();
    region.append_block(contents);
    let mut module = gpu::GPUModuleOperation::builder(context, location)
        .body_region(region)
        .sym_name(StringAttribute::new(context, &symbols.module));
    if let Some(targets) = targets {
        module = module.targets(targets);
    }
    body.append_operation(module.build().into())
}

/// The `gpu.func` `name` of `kernel`, its body a lone `gpu.return`.
fn function<'c>(context: &'c Context, name: &str, kernel: Kernel<'c>, location: Location<'c>) -> Operation<'c> {
    let named = |name: &str, value: Attribute<'c>| (Identifier::new(context, name), value);
    let inputs: Vec<Type> = kernel.arguments.iter().map(|argument| argument.ty).collect();
    // The entry block holds the arguments, then the workgroup and private attributions.
    let entry: Vec<(Type, Location)> = inputs
        .iter()
        .chain(&kernel.workgroup)
        .chain(&kernel.private)
        .map(|ty| (*ty, location))
        .collect();
    let block = Block::new(&entry);
    block.append_operation(gpu::r#return(context, &[], location).into());
    let region = Region::new();
    region.append_block(block);
    let i64 = IntegerType::new(context, 64).into();
    let mut function = gpu::GPUFuncOperation::builder(context, location)
        .body(region)
        .function_type(TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into()));
    if kernel.arguments.iter().any(|argument| argument.binding.is_some()) {
        let per_argument: Vec<Attribute> = kernel
            .arguments
            .iter()
            .map(|argument| {
                let abi = argument.binding.map(|binding| {
                    let storage = if argument.scalar { ", StorageBuffer" } else { "" };
                    let abi = format!("#spirv.interface_var_abi<(0, {binding}){storage}>");
                    named(
                        "spirv.interface_var_abi",
                        Attribute::parse(context, &abi).expect("interface ABI"),
                    )
                });
                DictionaryAttribute::new(context, &abi.into_iter().collect::<Vec<_>>()).into()
            })
            .collect();
        function = function.arg_attrs(ArrayAttribute::new(context, &per_argument));
    }
    if !kernel.workgroup.is_empty() {
        // 128-byte aligned: asynchronous 16-byte copies and wgmma descriptors address the tiles in
        // 16-byte units, and rows of 128 bytes keep bank patterns.
        let aligned: Attribute =
            DictionaryAttribute::new(context, &[named("llvm.align", IntegerAttribute::new(i64, 128).into())]).into();
        let per_tile = vec![aligned; kernel.workgroup.len()];
        function = function.workgroup_attrib_attrs(ArrayAttribute::new(context, &per_tile));
    }
    // The symbol name, the kernel mark and the attribution count are no ODS arguments of
    // `gpu.func` (its builder has no setters for them); the target's launch attributes
    // ([`kernel_attributes`]) come by name.
    let mut function: Operation = function.build().into();
    function.set_attribute("sym_name", StringAttribute::new(context, name).into());
    function.set_attribute("gpu.kernel", Attribute::unit(context));
    function.set_attribute(
        "workgroup_attributions",
        IntegerAttribute::new(i64, kernel.workgroup.len() as i64).into(),
    );
    for (name, value) in kernel.attributes {
        function.set_attribute(name.as_string_ref().as_str().expect("attribute name"), value);
    }
    function
}

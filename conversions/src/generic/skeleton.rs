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
        Attribute, Block, BlockLike, BlockRef, Identifier, Location, Region, RegionLike, Type,
        attribute::{
            ArrayAttribute, DenseI32ArrayAttribute, DictionaryAttribute, IntegerAttribute, StringAttribute,
            TypeAttribute,
        },
        operation::{OperationBuilder, OperationRef},
        r#type::{FunctionType, IntegerType},
    },
};

/// An argument of the kernel function.
pub struct Argument<'c> {
    /// Its type.
    pub ty: Type<'c>,
    /// The storage-buffer binding it names (SPIR-V: where views share a binding with a tensor,
    /// every argument names its own; elsewhere the conversion numbers them in order).
    pub binding: Option<usize>,
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
/// workgroup size, or the known block size (and, on NVIDIA with `min_blocks`, the launch bounds
/// that keep registers few enough for `min_blocks` blocks a multiprocessor).
pub fn kernel_attributes<'c>(
    context: &'c Context,
    target: &Target,
    threads: i64,
    min_blocks: Option<i64>,
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
    if let (Some(blocks), true) = (min_blocks, target.memory.dynamic_shared) {
        attributes.push(named("nvvm.maxntid", block));
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
    targets: Option<Attribute<'c>>,
    kernel: Kernel<'c>,
    location: Location<'c>,
) -> OperationRef<'c, 'a> {
    let named = |name: &str, value: Attribute<'c>| (Identifier::new(context, name), value);
    let mut attributes = vec![named("sym_name", StringAttribute::new(context, &symbols.module).into())];
    attributes.extend(targets.map(|targets| named("targets", targets)));
    let contents = Block::new(&[]);
    contents.append_operation(function(context, &symbols.kernel, kernel, location));
    let region = Region::new();
    region.append_block(contents);
    body.append_operation(
        OperationBuilder::new("gpu.module", location)
            .add_attributes(&attributes)
            .add_regions([region])
            .build()
            .expect("gpu.module"),
    )
}

/// The `gpu.func` `name` of `kernel`, its body a lone `gpu.return`.
fn function<'c>(
    context: &'c Context,
    name: &str,
    kernel: Kernel<'c>,
    location: Location<'c>,
) -> melior::ir::Operation<'c> {
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
    block.append_operation(
        OperationBuilder::new("gpu.return", location)
            .build()
            .expect("gpu.return"),
    );
    let region = Region::new();
    region.append_block(block);
    let i64 = IntegerType::new(context, 64).into();
    let mut attributes = vec![
        named("sym_name", StringAttribute::new(context, name).into()),
        named(
            "function_type",
            TypeAttribute::new(FunctionType::new(context, &inputs, &[]).into()).into(),
        ),
        named("gpu.kernel", Attribute::unit(context)),
        named(
            "workgroup_attributions",
            IntegerAttribute::new(i64, kernel.workgroup.len() as i64).into(),
        ),
    ];
    if kernel.arguments.iter().any(|argument| argument.binding.is_some()) {
        let per_argument: Vec<Attribute> = kernel
            .arguments
            .iter()
            .map(|argument| {
                let abi = argument.binding.map(|binding| {
                    let abi = format!("#spirv.interface_var_abi<(0, {binding})>");
                    named(
                        "spirv.interface_var_abi",
                        Attribute::parse(context, &abi).expect("interface ABI"),
                    )
                });
                DictionaryAttribute::new(context, &abi.into_iter().collect::<Vec<_>>()).into()
            })
            .collect();
        attributes.push(named("arg_attrs", ArrayAttribute::new(context, &per_argument).into()));
    }
    if !kernel.workgroup.is_empty() {
        // 128-byte aligned: asynchronous 16-byte copies and wgmma descriptors address the tiles in
        // 16-byte units, and rows of 128 bytes keep bank patterns.
        let aligned: Attribute =
            DictionaryAttribute::new(context, &[named("llvm.align", IntegerAttribute::new(i64, 128).into())]).into();
        let per_tile = vec![aligned; kernel.workgroup.len()];
        attributes.push(named(
            "workgroup_attrib_attrs",
            ArrayAttribute::new(context, &per_tile).into(),
        ));
    }
    attributes.extend(kernel.attributes);
    OperationBuilder::new("gpu.func", location)
        .add_attributes(&attributes)
        .add_regions([region])
        .build()
        .expect("gpu.func")
}

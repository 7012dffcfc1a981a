//! Tensors of dynamic shape on targets that bind tensors as storage buffers (SPIR-V,
//! [`crate::target::Memory::static_tensors`]): MLIR's SPIR-V conversion addresses a tensor through
//! static strides only, and its binding holds no sizes. Such a tensor is bound as a runtime array
//! of its elements (`memref<?xT>`, row-major), and each of its dynamic sizes is a host scalar of
//! the kernel (a `memref.dim` on the host, which the launch manifest says how to compute): every
//! access inside the kernel indexes the array at the row-major offset of its indices, and every
//! `memref.dim` of the tensor reads the size. Every host scalar reaches the kernel as the 32-bit
//! contents of a binding of its own, so each must be an index or an i32.

use crate::cpu::builder::{At, Builder};
use crate::kernels::Failure;
use melior::{
    Context,
    ir::{
        ShapedTypeLike, Type, TypeLike, Value, ValueLike,
        operation::{OperationLike, OperationMutLike, OperationRef, OperationRefMut},
        r#type::{IntegerType, MemRefType},
    },
};
use tile_dialect::ops::{as_memref, nested_ops, op_name};
use tile_dialect::positions::OperationAt;
use tile_ir::{memref, vector};

/// The size of one dimension of a tensor bound as a runtime array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Size {
    /// Known at compile time.
    Static(i64),
    /// The kernel's scalar parameter of this position among its host scalars.
    Scalar(usize),
}

/// A captured tensor (by position) bound as a runtime array, and its sizes.
#[derive(Clone, Debug)]
pub struct RuntimeArray {
    pub tensor: usize,
    pub sizes: Vec<Size>,
}

/// The tensors among `tensors` of dynamic shape, each to be bound as a runtime array: their
/// dynamic sizes become host scalars of the kernel (`memref.dim`s made before `kernel`, appended
/// to `scalars`). A tensor with a layout other than row-major is an error at the op that reads it.
pub fn plan<'c, 'a>(
    context: &'c Context,
    kernel: OperationRef<'c, 'a>,
    tensors: &[Value<'c, 'a>],
    scalars: &mut Vec<Value<'c, 'a>>,
    target: &str,
) -> Result<Vec<RuntimeArray>, Failure<'c, 'a>> {
    let b = Builder {
        context,
        location: kernel.location(),
        threads: None,
    };
    let wide = |scalar: &Value| {
        !scalar.r#type().is_index()
            && IntegerType::try_from(scalar.r#type()).map_or(true, |integer| integer.width() != 32)
    };
    if let Some(scalar) = scalars.iter().find(|scalar| wide(scalar)) {
        return Err((
            first_reader(kernel, *scalar),
            format!(
                "reads a host integer of type {} inside the kernel; {target} passes host integers as 32-bit values (index or i32): convert it on the host (arith.trunci, arith.index_cast)",
                scalar.r#type()
            ),
        ));
    }
    let mut arrays = Vec::new();
    for (position, tensor) in tensors.iter().enumerate() {
        let Some(memref) = as_memref(tensor.r#type()).filter(|memref| !memref.has_static_shape()) else {
            continue;
        };
        if !tile_dialect::ops::has_identity_layout(memref) {
            return Err((
                first_reader(kernel, *tensor),
                format!(
                    "reads the tensor {}, whose shape is dynamic and whose layout is not row-major; {target} binds a tensor of dynamic shape as a row-major runtime array (give it the identity layout, or static sizes)",
                    tensor.r#type()
                ),
            ));
        }
        let sizes = tile_dialect::ops::static_sizes(memref)
            .into_iter()
            .enumerate()
            .map(|(dim, size)| match size {
                Some(size) => Size::Static(size),
                None => {
                    scalars.push(b.dim(At::before(kernel), *tensor, dim as i64));
                    Size::Scalar(scalars.len() - 1)
                }
            })
            .collect();
        arrays.push(RuntimeArray {
            tensor: position,
            sizes,
        });
    }
    Ok(arrays)
}

/// The first op of `kernel` that reads `value` (the kernel itself if none does).
fn first_reader<'c, 'a>(kernel: OperationRef<'c, 'a>, value: Value<'c, 'a>) -> OperationRef<'c, 'a> {
    nested_ops(kernel)
        .into_iter()
        .find(|op| op.operands().any(|operand| operand == value))
        .unwrap_or(kernel)
}

/// The runtime array a tensor of `ty` is bound as: `memref<?xT>`.
pub fn array_type<'c>(ty: Type<'c>) -> Type<'c> {
    let memref = MemRefType::try_from(ty).expect("a tensor");
    MemRefType::new(memref.element(), &[i64::MIN], None, None).into()
}

/// Rewrites every use of `tensor` in `function` onto `array`, its runtime array: loads, stores,
/// atomic updates and vector loads and stores index it at the row-major offset of their indices;
/// `memref.dim` reads the size (`scalars`: the kernel's scalar parameters). Any other use is an
/// error at the op.
pub fn flatten<'c, 'a>(
    context: &'c Context,
    function: OperationRef<'c, 'a>,
    tensor: Value<'c, 'a>,
    array: Value<'c, 'a>,
    sizes: &[Size],
    scalars: &[Value<'c, 'a>],
) -> Result<(), Failure<'c, 'a>> {
    for op in nested_ops(function) {
        let Some(position) = op.operands().position(|operand| operand == tensor) else {
            continue;
        };
        let b = Builder {
            context,
            location: op.location(),
            threads: None,
        };
        let at = At::before(op);
        let size = |dim: usize| match sizes[dim] {
            Size::Static(size) => b.index(at, size),
            Size::Scalar(k) => scalars[k],
        };
        if tile_ir::is(&op, memref::DimOperation::name) {
            let dim = op
                .operand_at(1)
                .and_then(tile_dialect::ops::constant_integer)
                .filter(|dim| (0..sizes.len() as i64).contains(dim))
                .ok_or_else(|| {
                    (
                        op,
                        "asks for a size of a tensor bound as a runtime array along a dimension that is not a constant of its rank".to_owned(),
                    )
                })?;
            let rewriter = melior::IrRewriter::new(context);
            let rewriter = rewriter.as_rewriter_base();
            rewriter.replace_all_uses_with(op.result_at(0).expect("a size").into(), size(dim as usize));
            rewriter.erase_op(op);
            continue;
        }
        // The ops that take a memref and then its indices, one per dimension.
        let indexed = [
            memref::LoadOperation::name(),
            memref::StoreOperation::name(),
            memref::AtomicRMWOperation::name(),
            vector::LoadOperation::name(),
            vector::StoreOperation::name(),
        ];
        if !indexed.contains(&op_name(&op)) {
            return Err((
                op,
                format!(
                    "'{}' op reads the tensor {}, of dynamic shape, which this target binds as a runtime array: only loads, stores, atomic updates and sizes of it are lowered",
                    op_name(&op),
                    tensor.r#type()
                ),
            ));
        }
        let operands: Vec<Value> = op.operands().collect();
        let rank = sizes.len();
        let indices = &operands[position + 1..position + 1 + rank];
        let mut offset = indices[0];
        for (dim, index) in indices.iter().enumerate().skip(1) {
            offset = b.muli(at, offset, size(dim));
            offset = b.addi(at, offset, *index);
        }
        let mut rewritten: Vec<Value> = operands[..position].to_vec();
        rewritten.push(array);
        rewritten.push(offset);
        rewritten.extend_from_slice(&operands[position + 1 + rank..]);
        unsafe { OperationRefMut::from_raw(op.to_raw()) }.set_operands(&rewritten);
    }
    Ok(())
}

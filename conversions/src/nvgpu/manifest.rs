//! The launch manifest of one lowered kernel, as JSON: everything a launcher needs to run the PTX
//! without MLIR (entry, block, grid, dynamic shared memory, and one tensor map per parameter).

use super::{config::HopperConfig, plan::GemmPlan};
use melior::ir::{
    ShapedTypeLike, Value, ValueLike,
    block::BlockArgument,
    operation::{OperationLike, OperationResult},
    r#type::{DimSize, MemRefType},
};
use tile_dialect::ops::constant_integer;

fn json_list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// Describes one global tensor: which host argument it is, its shape and element type.
fn tensor(value: Value) -> (i64, Vec<String>, String) {
    let argument = BlockArgument::try_from(value)
        .map(|argument| argument.argument_number() as i64)
        .unwrap_or(-1);
    let memref = MemRefType::try_from(value.r#type()).expect("global tensors are memrefs");
    let shape = (0..memref.rank())
        .map(|dim| match memref.dim_size(dim) {
            Ok(DimSize::Static(size)) => size.to_string(),
            _ => "null".into(),
        })
        .collect();
    (argument, shape, memref.element().to_string())
}

fn tensor_map(role: &str, value: Value, box_inner: i64, box_rows: i64, swizzle: i64) -> String {
    let (argument, shape, element) = tensor(value);
    format!(
        "{{\"role\": \"{role}\", \"kind\": \"tensor_map\", \"host_argument\": {argument}, \"shape\": {}, \"element\": \"{element}\", \"box\": [{box_rows}, {box_inner}], \"swizzle\": {swizzle}, \"oob_fill\": \"zero\"}}",
        json_list(shape)
    )
}

/// Host ops whose value a launcher can recompute from the host arguments.
const HOST_OPS: &[&str] = &[
    "arith.addi",
    "arith.subi",
    "arith.muli",
    "arith.divui",
    "arith.divsi",
    "arith.ceildivui",
    "arith.ceildivsi",
    "arith.remui",
    "arith.remsi",
    "arith.minui",
    "arith.maxui",
    "arith.minsi",
    "arith.maxsi",
];

/// Describes how the host computes `value` from its arguments, as JSON: a number, `{"dim":
/// [argument, dimension]}` (a size of a tensor argument), `{"argument": n}` (a scalar argument), or
/// `{"op": "arith.ceildivui", "args": [..]}`.
pub fn host_expression(value: Value) -> Result<String, String> {
    if let Some(constant) = constant_integer(value) {
        return Ok(constant.to_string());
    }
    if let Ok(argument) = BlockArgument::try_from(value) {
        return Ok(format!("{{\"argument\": {}}}", argument.argument_number()));
    }
    let owner = OperationResult::try_from(value)
        .map_err(|_| "an unknown value".to_string())?
        .owner();
    let name = owner
        .name()
        .as_string_ref()
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let operands: Vec<Value> = owner.operands().collect();
    match name.as_str() {
        "memref.dim" => {
            let tensor = BlockArgument::try_from(operands[0])
                .map_err(|_| "memref.dim of a tensor that is not a host argument".to_string())?;
            let dim =
                constant_integer(operands[1]).ok_or("memref.dim with a dynamic dimension index")?;
            Ok(format!(
                "{{\"dim\": [{}, {dim}]}}",
                tensor.argument_number()
            ))
        }
        "arith.index_cast" | "arith.index_castui" => host_expression(operands[0]),
        _ if HOST_OPS.contains(&name.as_str()) => {
            let args = operands
                .into_iter()
                .map(host_expression)
                .collect::<Result<Vec<_>, _>>()?;
            Ok(format!(
                "{{\"op\": \"{name}\", \"args\": [{}]}}",
                args.join(", ")
            ))
        }
        _ => Err(format!(
            "a value computed by {name}, which a launcher cannot recompute"
        )),
    }
}

/// Returns the manifest of the kernel `entry` lowered from `plan` with `config`, or says which
/// launch value the host could not compute.
pub fn manifest(plan: &GemmPlan, config: &HopperConfig, entry: &str) -> Result<String, String> {
    let mut grid = plan
        .grid
        .iter()
        .map(|size| host_expression(*size))
        .collect::<Result<Vec<_>, _>>()?;
    grid.resize(3, "1".into());
    let mut params = vec![
        tensor_map(
            "A",
            plan.a.global,
            config.a.box_inner,
            config.a.box_rows,
            config.a.swizzle,
        ),
        tensor_map(
            "B",
            plan.b.global,
            config.b.box_inner,
            config.b.box_rows,
            config.b.swizzle,
        ),
        tensor_map("C", plan.output.global, config.bn, config.bm, 0),
    ];
    for param in &plan.params {
        params.push(format!(
            "{{\"role\": \"size\", \"kind\": \"scalar\", \"type\": \"i64\", \"value\": {}}}",
            host_expression(*param)?
        ));
    }
    Ok(format!(
        "{{\"entry\": \"{entry}\", \"chip\": \"sm_90a\", \"block\": [{}, 1, 1], \"grid\": {}, \"dynamic_shared_bytes\": {}, \"params\": {}, \"tile\": {{\"m\": {}, \"n\": {}, \"k\": {}, \"stages\": {}, \"warpgroups\": {}, \"transpose_b\": {}}}}}",
        plan.threads,
        json_list(grid),
        config.shared_bytes,
        json_list(params),
        config.bm,
        config.bn,
        config.bk,
        config.stages,
        config.warpgroups,
        plan.transpose_b
    ))
}

//! The launch manifest of one lowered kernel, as JSON: everything a launcher needs to run the PTX
//! without MLIR (entry, block, grid, dynamic shared memory, and one tensor map per parameter).

use super::config::{HopperConfig, MULTIPROCESSORS};
use crate::gemm::{
    launch::{HostTensor, host_expression, host_grid, host_tensor},
    plan::GemmPlan,
};
use melior::ir::Value;

fn json_list(items: impl IntoIterator<Item = String>) -> String {
    format!("[{}]", items.into_iter().collect::<Vec<_>>().join(", "))
}

/// One tensor map parameter. `box` has one size per dimension of the tensor, outermost first like
/// `shape`: 1 in each leading dimension of an N-D tensor, then the box's rows and inner elements.
fn tensor_map(role: &str, value: Value, box_inner: i64, box_rows: i64, swizzle: i64) -> String {
    let HostTensor { argument, shape, element } = host_tensor(value);
    let leading = shape.len().saturating_sub(2);
    let sizes = std::iter::repeat_n(1, leading).chain([box_rows, box_inner]).map(|size| size.to_string());
    format!(
        "{{\"role\": \"{role}\", \"kind\": \"tensor_map\", \"host_argument\": {argument}, \"shape\": {}, \"element\": \"{element}\", \"box\": {}, \"swizzle\": {swizzle}, \"oob_fill\": \"zero\"}}",
        json_list(shape),
        json_list(sizes)
    )
}

/// Returns the manifest of the kernel `entry` lowered from `plan` with `config`, or says which
/// launch value the host could not compute.
pub fn manifest(plan: &GemmPlan, config: &HopperConfig, entry: &str) -> Result<String, String> {
    let program_grid = host_grid(plan.grid.iter().copied())?;
    let (grid, persistent) = match config.persistent {
        // min(tiles x * tiles y, blocks), as a host expression when the grid is dynamic.
        Some(persistent) => {
            let blocks = persistent.blocks().map_or_else(
                || format!(
                    "{{\"op\": \"arith.minui\", \"args\": [{{\"op\": \"arith.muli\", \"args\": [{}, {}]}}, {MULTIPROCESSORS}]}}",
                    program_grid[0], program_grid[1]
                ),
                |blocks| blocks.to_string(),
            );
            let tiles = format!("{{\"tiles\": [{}, {}]}}", program_grid[0], program_grid[1]);
            (vec![blocks, "1".into(), "1".into()], tiles)
        }
        None => (program_grid.clone(), "null".into()),
    };
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
        tensor_map("C", plan.output.global, config.c.box_cols, config.bm, config.c.swizzle),
    ];
    // The other tensors the epilogue reads: memref descriptors (allocated and aligned pointers,
    // offset, sizes, strides), in the kernel's parameter order.
    for tensor in plan.epilogue_tensors() {
        let HostTensor { argument, shape, element } = host_tensor(tensor);
        params.push(format!(
            "{{\"role\": \"epilogue\", \"kind\": \"memref\", \"host_argument\": {argument}, \"shape\": {}, \"element\": \"{element}\"}}",
            json_list(shape)
        ));
    }
    let scalar = |role: &str, value: &str| {
        format!("{{\"role\": \"{role}\", \"kind\": \"scalar\", \"type\": \"i64\", \"value\": {value}}}")
    };
    for param in &plan.params {
        params.push(scalar("size", &host_expression(*param)?));
    }
    if config.persistent.is_some_and(|persistent| persistent.tiles.is_none()) {
        params.push(scalar("tiles_x", &program_grid[0]));
        params.push(scalar("tiles_y", &program_grid[1]));
    }
    Ok(format!(
        "{{\"entry\": \"{entry}\", \"chip\": \"sm_90a\", \"block\": [{}, 1, 1], \"grid\": {}, \"dynamic_shared_bytes\": {}, \"params\": {}, \"tile\": {{\"m\": {}, \"n\": {}, \"k\": {}, \"stages\": {}, \"warpgroups\": {}, \"transpose_a\": {}, \"transpose_b\": {}, \"persistent\": {persistent}}}}}",
        plan.threads,
        json_list(grid),
        config.shared_bytes(),
        json_list(params),
        config.bm,
        config.bn,
        config.bk,
        config.stages,
        config.warpgroups,
        plan.transpose_a,
        plan.transpose_b
    ))
}

//! The launch manifest of one lowered kernel: everything a launcher needs to run the PTX without
//! MLIR (entry, block, grid, dynamic shared memory, and one tensor map per parameter), in the
//! schema of `tile-manifest`.

use super::config::{HopperConfig, MULTIPROCESSORS};
use crate::gemm::{
    launch::{HostTensor, host_expression, host_grid, host_tensor},
    plan::GemmPlan,
};
use melior::ir::Value;
use tile_manifest::{Expr, HostOp, Manifest, Param, ParamKind, Persistence, TileConfig};

/// One tensor map parameter. `box` has one size per dimension of the tensor, outermost first like
/// `shape`: 1 in each leading dimension of an N-D tensor, then the box's rows and inner elements.
fn tensor_map(role: &str, value: Value, box_inner: i64, box_rows: i64, swizzle: i64) -> Param {
    let HostTensor {
        argument,
        shape,
        element,
    } = host_tensor(value);
    let leading = shape.len().saturating_sub(2);
    let box_ = std::iter::repeat_n(1, leading)
        .chain([box_rows as u32, box_inner as u32])
        .collect();
    Param {
        role: role.into(),
        kind: ParamKind::TensorMap {
            host_argument: argument,
            shape,
            element,
            box_,
            swizzle: swizzle as u32,
            oob_fill: "zero".into(),
        },
    }
}

fn scalar(role: &str, value: Expr) -> Param {
    Param {
        role: role.into(),
        kind: ParamKind::Scalar {
            ty: "i64".into(),
            value,
        },
    }
}

/// Returns the manifest (JSON) of the kernel `entry` lowered from `plan` with `config`, or says
/// which launch value the host could not compute.
pub fn manifest(plan: &GemmPlan, config: &HopperConfig, entry: &str) -> Result<String, String> {
    let program_grid = host_grid(plan.grid.iter().copied())?;
    let (grid, persistent) = match config.persistent {
        // min(tiles x * tiles y, blocks), as a host expression when the grid is dynamic.
        Some(persistent) => {
            let blocks = persistent.blocks().map_or_else(
                || Expr::Op {
                    op: HostOp::MinU,
                    args: vec![
                        Expr::Op {
                            op: HostOp::Mul,
                            args: vec![program_grid[0].clone(), program_grid[1].clone()],
                        },
                        Expr::Const(MULTIPROCESSORS),
                    ],
                },
                Expr::Const,
            );
            let tiles = Persistence::Tiles {
                tiles: [program_grid[0].clone(), program_grid[1].clone()],
            };
            (vec![blocks, Expr::Const(1), Expr::Const(1)], tiles)
        }
        None => (program_grid.clone(), Persistence::OneTileABlock(())),
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
        tensor_map(
            "C",
            plan.output.global,
            config.c.box_cols,
            config.bm,
            config.c.swizzle,
        ),
    ];
    // The other tensors the epilogue reads: memref descriptors (allocated and aligned pointers,
    // offset, sizes, strides), in the kernel's parameter order.
    for tensor in plan.epilogue_tensors() {
        let HostTensor {
            argument,
            shape,
            element,
        } = host_tensor(tensor);
        params.push(Param {
            role: "epilogue".into(),
            kind: ParamKind::Memref {
                host_argument: argument,
                shape: Some(shape),
                element: Some(element),
                ty: None,
            },
        });
    }
    for param in &plan.params {
        params.push(scalar("size", host_expression(*param)?));
    }
    if config
        .persistent
        .is_some_and(|persistent| persistent.tiles.is_none())
    {
        params.push(scalar("tiles_x", program_grid[0].clone()));
        params.push(scalar("tiles_y", program_grid[1].clone()));
    }
    let mut manifest = Manifest::new(entry, "sm_90a", grid);
    manifest.chip = Some("sm_90a".into());
    manifest.block = Some([plan.threads as u32, 1, 1]);
    manifest.dynamic_shared_bytes = Some(config.shared_bytes() as u64);
    manifest.params = Some(params);
    manifest.tile = Some(TileConfig {
        m: config.bm as u32,
        n: config.bn as u32,
        k: config.bk as u32,
        stages: Some(config.stages as u32),
        warpgroups: Some(config.warpgroups as u32),
        waves: None,
        mfma: None,
        subgroups: None,
        matrix: None,
        transpose_a: Some(plan.transpose_a),
        transpose_b: Some(plan.transpose_b),
        persistent,
    });
    Ok(manifest.to_json())
}

use super::*;
use tile_manifest::COMPILER_VERSION;

fn manifest(json: &str) -> Manifest {
    Manifest::from_json(&json.replace("COMPILER", COMPILER_VERSION)).unwrap()
}

/// A dynamic-M GEMM as the sm_90a lowering writes it.
const TMA: &str = r#"{"version": 1, "compiler": "COMPILER", "entry": "gemm_0_kernel", "target": "sm_90a", "chip": "sm_90a", "block": [128, 1, 1], "grid": [{"op": "arith.ceildivui", "args": [{"dim": [1, 1]}, 128]}, {"op": "arith.ceildivui", "args": [{"dim": [0, 0]}, 128]}, 1], "dynamic_shared_bytes": 50176, "params": [{"role": "A", "kind": "tensor_map", "host_argument": 0, "shape": [null, 256], "element": "f16", "box": [128, 32], "swizzle": 64, "oob_fill": "zero"}, {"role": "B", "kind": "tensor_map", "host_argument": 1, "shape": [256, 512], "element": "f16", "box": [32, 64], "swizzle": 128, "oob_fill": "zero"}, {"role": "C", "kind": "tensor_map", "host_argument": 2, "shape": [null, 512], "element": "f32", "box": [128, 32], "swizzle": 128, "oob_fill": "zero"}, {"role": "size", "kind": "scalar", "type": "i64", "value": {"dim": [0, 0]}}]}"#;

/// A plain-strategy kernel.
const PLAIN: &str = r#"{"version": 1, "compiler": "COMPILER", "entry": "softmax_0_kernel", "host_function": "softmax", "target": "sm_90a", "strategy": "registers", "workgroup_size": [64, 1, 1], "grid": [3, 1, 1], "shared_bytes": 0, "bindings": [{"set": 0, "binding": 0, "host_argument": 0, "shape": [24, 64], "element": "f32", "written": false}, {"set": 0, "binding": 1, "host_argument": 1, "shape": [24, 64], "element": "f32", "written": true}]}"#;

fn gemm_args(m: i64) -> Vec<Arg> {
    vec![
        Arg::Tensor(Tensor::contiguous(0x1000, "f16", &[m, 256])),
        Arg::Tensor(Tensor::contiguous(0x2000_0000, "f16", &[256, 512])),
        Arg::Tensor(Tensor::contiguous(0x4000_0000, "f32", &[m, 512])),
    ]
}

#[test]
fn a_tensor_core_launch_is_planned_from_the_shapes() {
    let plan = plan_launch(&manifest(TMA), &gemm_args(300)).unwrap();
    assert_eq!(plan.grid, [4, 3, 1]);
    assert_eq!(plan.block, [128, 1, 1]);
    assert_eq!(plan.dynamic_shared_bytes, 50176);
    assert_eq!(plan.params.len(), 4);
    let Param::TensorMap(a) = &plan.params[0] else {
        panic!("{:?}", plan.params[0])
    };
    assert_eq!(
        (&a.global_dim[..], &a.box_dim[..], &a.global_strides[..]),
        (&[256, 300][..], &[32, 128][..], &[512][..])
    );
    assert_eq!(plan.params[3], Param::I64(300));
}

#[test]
fn epilogue_tensors_follow_the_tensor_maps_as_memref_descriptors() {
    let with_bias = TMA.replace(
        r#"{"role": "size""#,
        r#"{"role": "epilogue", "kind": "memref", "host_argument": 3, "shape": [512], "element": "f32"}, {"role": "size""#,
    );
    let mut args = gemm_args(300);
    args.push(Arg::Tensor(Tensor::contiguous(0x5000, "f32", &[512])));
    let plan = plan_launch(&manifest(&with_bias), &args).unwrap();
    use Param::{I64, Pointer};
    assert_eq!(
        plan.params[3..9],
        [Pointer(0x5000), Pointer(0x5000), I64(0), I64(512), I64(1), I64(300)]
    );
    args[3] = Arg::Tensor(Tensor::contiguous(0x5000, "f32", &[256]));
    assert_eq!(
        plan_launch(&manifest(&with_bias), &args).unwrap_err().to_string(),
        "argument 3 (epilogue of gemm_0_kernel): expects shape 512, but got 256"
    );
}

#[test]
fn a_plain_launch_spreads_memref_descriptors() {
    let args = vec![
        Arg::Tensor(Tensor::contiguous(0x10, "f32", &[24, 64])),
        Arg::Tensor(Tensor::contiguous(0x20, "f32", &[24, 64])),
    ];
    let plan = plan_launch(&manifest(PLAIN), &args).unwrap();
    assert_eq!(
        (plan.grid, plan.block, plan.dynamic_shared_bytes),
        ([3, 1, 1], [64, 1, 1], 0)
    );
    use Param::{I64, Pointer};
    assert_eq!(
        plan.params[..7],
        [Pointer(0x10), Pointer(0x10), I64(0), I64(24), I64(64), I64(64), I64(1)]
    );
    assert_eq!(plan.params.len(), 14);
}

#[test]
fn a_registers_kernel_takes_its_tensor_maps_after_the_descriptors() {
    // A registers-strategy kernel whose ring refills run on TMA (`patterns::tma`).
    let with_maps = PLAIN.replace(
        r#"}]}"#,
        r#"}], "params": [{"role": "tma", "kind": "tensor_map", "host_argument": 0, "shape": [24, 64], "element": "f32", "box": [8, 32], "swizzle": 128, "oob_fill": "zero"}]}"#,
    );
    let args = vec![
        Arg::Tensor(Tensor::contiguous(0x100, "f32", &[24, 64])),
        Arg::Tensor(Tensor::contiguous(0x200, "f32", &[24, 64])),
    ];
    let plan = plan_launch(&manifest(&with_maps), &args).unwrap();
    assert_eq!(plan.params.len(), 15);
    assert_eq!(plan.params[0], Param::Pointer(0x100));
    assert_eq!(plan.params[7], Param::Pointer(0x200));
    let Param::TensorMap(map) = &plan.params[14] else {
        panic!("{:?}", plan.params[14])
    };
    assert_eq!((&map.global_dim[..], &map.box_dim[..]), (&[64, 24][..], &[32, 8][..]));
}

#[test]
fn mismatched_arguments_are_named() {
    let m = manifest(TMA);
    let error = |args: &[Arg]| plan_launch(&m, args).unwrap_err().to_string();
    let mut args = gemm_args(300);
    args[1] = Arg::Tensor(Tensor::contiguous(0x2000_0000, "f32", &[256, 512]));
    assert_eq!(
        error(&args),
        "argument 1 (B of gemm_0_kernel): expects element type f16, but got f32"
    );
    args[1] = Arg::Tensor(Tensor::contiguous(0x2000_0000, "f16", &[256, 500]));
    assert_eq!(
        error(&args),
        "argument 1 (B of gemm_0_kernel): expects shape 256x512, but got 256x500"
    );
    args[1] = Arg::Scalar(3);
    assert_eq!(
        error(&args),
        "argument 1 (B of gemm_0_kernel): expects a tensor, but got an integer"
    );
    assert_eq!(
        error(&gemm_args(300)[..2]),
        "argument 2 (C of gemm_0_kernel): expects a tensor, but got only 2 argument(s)"
    );
    let mut args = gemm_args(300);
    args[0] = Arg::Tensor(Tensor::contiguous(0x1000, "f16", &[300, 256, 1]));
    assert_eq!(
        error(&args),
        "argument 0 (A of gemm_0_kernel): expects 2 dimensions, but got 3 (with 3 strides)"
    );
}

#[test]
fn a_strided_tensor_is_refused_where_the_kernel_assumes_contiguity() {
    let mut strided = Tensor::contiguous(0x10, "f32", &[24, 64]);
    strided.strides = vec![128, 1];
    let args = vec![
        Arg::Tensor(strided),
        Arg::Tensor(Tensor::contiguous(0x20, "f32", &[24, 64])),
    ];
    assert_eq!(
        plan_launch(&manifest(PLAIN), &args).unwrap_err().to_string(),
        "argument 0 (binding 0 of softmax_0_kernel): expects a row-major contiguous tensor, but got strides [128, 1]"
    );
}

#[test]
fn other_targets_are_not_launched_through_cuda() {
    let spirv = manifest(&PLAIN.replace("sm_90a", "spirv"));
    assert!(
        plan_launch(&spirv, &[])
            .unwrap_err()
            .to_string()
            .contains("compiled for spirv is not launched through CUDA")
    );
}

#[test]
fn a_kernel_launched_under_a_condition_runs_only_where_it_holds() {
    // The TMA GEMM launched where M < 1000 (the then branch of an scf.if in its host function):
    // where M is larger its launch launches nothing, and its grid is not computed.
    let mut conditional = manifest(TMA);
    conditional.launched_when(tile_manifest::Expr::Op {
        op: tile_manifest::HostOp::ULt,
        args: vec![
            tile_manifest::Expr::Dim { dim: [0, 0] },
            tile_manifest::Expr::Const(1000),
        ],
    });
    let small = plan_launch(&conditional, &gemm_args(300)).unwrap();
    assert!(small.runs);
    assert_eq!(small.grid, plan_launch(&manifest(TMA), &gemm_args(300)).unwrap().grid);
    let large = plan_launch(&conditional, &gemm_args(4096)).unwrap();
    assert!(!large.runs);
    assert_eq!(large.grid, [0; 3]);
    // The arguments are checked either way.
    let mut wrong = gemm_args(4096);
    wrong.truncate(2);
    assert!(plan_launch(&conditional, &wrong).is_err());
}

#[test]
fn a_partition_argument_is_read_as_its_entries_and_refused_where_they_break_the_rule() {
    // The grouped GEMM's group sizes partition the rows of A (argument 0, 300 rows here).
    let checked = TMA.replace(
        r#""dynamic_shared_bytes""#,
        r#""checks": [{"argument": 3, "partition": "sizes", "within": {"dim": [0, 0]}}], "dynamic_shared_bytes""#,
    );
    let mut args = gemm_args(300);
    args.push(Arg::Tensor(Tensor::contiguous(0x6000, "i32", &[3])));
    let plan = plan_launch(&manifest(&checked), &args).unwrap();
    let [check] = &plan.checks[..] else {
        panic!("{:?}", plan.checks)
    };
    assert_eq!(
        (check.argument, check.count, check.entry_bytes, check.within),
        (3, 3, 4, 300)
    );
    let bytes = |sizes: &[i32]| sizes.iter().flat_map(|size| size.to_le_bytes()).collect::<Vec<u8>>();
    assert!(check.check_bytes(&bytes(&[100, 0, 200])).is_ok());
    assert_eq!(
        check.check_bytes(&bytes(&[100, 150, 51])).unwrap_err().to_string(),
        "refuses the launch: host argument 3 (sizes of a dimension of 300): sizes 0 to 2 sum to 301, past the 300 the dimension holds"
    );
    assert_eq!(
        check.check_bytes(&bytes(&[-5, 0, 0])).unwrap_err().to_string(),
        "refuses the launch: host argument 3 (sizes of a dimension of 300): size 0 is -5, below 0"
    );
    // Offsets in i64, and a checked argument of another element type.
    let offsets = checked.replace(r#""partition": "sizes""#, r#""partition": "offsets""#);
    args[3] = Arg::Tensor(Tensor::contiguous(0x6000, "i64", &[3]));
    let plan = plan_launch(&manifest(&offsets), &args).unwrap();
    let wide = |offsets: &[i64]| {
        offsets
            .iter()
            .flat_map(|offset| offset.to_le_bytes())
            .collect::<Vec<u8>>()
    };
    assert!(plan.checks[0].check_bytes(&wide(&[0, 7, 300])).is_ok());
    assert!(plan.checks[0].check_bytes(&wide(&[0, 7, 6])).is_err());
    args[3] = Arg::Tensor(Tensor::contiguous(0x6000, "f32", &[3]));
    assert_eq!(
        plan_launch(&manifest(&offsets), &args).unwrap_err().to_string(),
        "argument 3 (offsets of gemm_0_kernel): expects element type i32 or i64, but got f32"
    );
}

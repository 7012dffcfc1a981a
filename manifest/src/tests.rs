use super::*;

/// An sm_90a tensor-core manifest as the compiler wrote it before this crate (plus the version).
const TMA: &str = r#"{"version": 1, "compiler": "COMPILER", "entry": "gemm_0_kernel", "target": "sm_90a", "chip": "sm_90a", "block": [128, 1, 1], "grid": [{"op": "arith.minui", "args": [{"op": "arith.muli", "args": [{"op": "arith.ceildivui", "args": [{"dim": [0, 0]}, 128]}, 4]}, 132]}, 1, 1], "dynamic_shared_bytes": 50176, "params": [{"role": "A", "kind": "tensor_map", "host_argument": 0, "shape": [null, 4096], "element": "f16", "box": [128, 32], "swizzle": 64, "oob_fill": "zero"}, {"role": "size", "kind": "scalar", "type": "i64", "value": {"dim": [0, 0]}}], "tile": {"m": 128, "n": 256, "k": 64, "stages": 4, "warpgroups": 2, "transpose_a": false, "transpose_b": true, "persistent": {"tiles": [{"dim": [0, 0]}, 4]}}}"#;

/// A plain-strategy manifest.
const PLAIN: &str = r#"{"version": 1, "compiler": "COMPILER", "entry": "k_0_kernel", "host_function": "k", "target": "spirv", "strategy": "registers", "workgroup_size": [64, 1, 1], "grid": [3, 1, 1], "shared_bytes": 0, "bindings": [{"set": 0, "binding": 0, "host_argument": 1, "shape": [128, 48], "element": "f16", "written": false}]}"#;

/// A SPIR-V manifest of a tensor of dynamic shape: its size comes in a binding of its own.
const RUNTIME_ARRAY: &str = r#"{"version": 1, "compiler": "COMPILER", "entry": "k_0_kernel", "host_function": "k", "target": "spirv", "strategy": "plain", "workgroup_size": [64, 1, 1], "grid": [{"op": "arith.ceildivui", "args": [{"dim": [0, 0]}, 64]}, 1, 1], "shared_bytes": 0, "bindings": [{"set": 0, "binding": 0, "host_argument": 0, "shape": [null, 48], "element": "f16", "written": true}, {"set": 0, "binding": 1, "host_argument": -1, "shape": [], "element": "i32", "written": false, "value": {"dim": [0, 0]}}]}"#;

fn text(template: &str) -> String {
    template.replace("COMPILER", COMPILER_VERSION)
}

#[test]
fn manifests_round_trip_byte_for_byte() {
    for template in [TMA, PLAIN, RUNTIME_ARRAY] {
        let manifest = Manifest::from_json(&text(template)).unwrap();
        pretty_assertions::assert_eq!(manifest.to_json(), text(template));
    }
}

#[test]
fn typed_fields_read_back() {
    let manifest = Manifest::from_json(&text(TMA)).unwrap();
    let params = manifest.params.as_ref().unwrap();
    assert!(matches!(
        &params[0].kind,
        ParamKind::TensorMap { box_, swizzle: 64, .. } if box_ == &[128, 32]
    ));
    assert_eq!(params[1].role, "size");
    assert_eq!(manifest.threads(), [128, 1, 1]);
    assert_eq!(manifest.shared_memory_bytes(), 50176);
    let plain = Manifest::from_json(&text(PLAIN)).unwrap();
    assert_eq!(plain.strategy, Some(Strategy::Registers));
    assert_eq!(plain.bindings.unwrap()[0].shape, vec![Some(128), Some(48)]);
    let sized = Manifest::from_json(&text(RUNTIME_ARRAY)).unwrap();
    let bindings = sized.bindings.unwrap();
    assert_eq!(bindings[0].value, None);
    assert_eq!(bindings[1].value, Some(Expr::Dim { dim: [0, 0] }));
}

#[test]
fn a_one_tile_a_block_launch_keeps_its_null() {
    let one = text(TMA).replace(r#"{"tiles": [{"dim": [0, 0]}, 4]}"#, "null");
    let manifest = Manifest::from_json(&one).unwrap();
    assert_eq!(
        manifest.tile.as_ref().unwrap().persistent,
        Persistence::OneTileABlock(())
    );
    assert_eq!(manifest.to_json(), one);
}

#[test]
fn grids_evaluate_over_host_shapes() {
    let manifest = Manifest::from_json(&text(TMA)).unwrap();
    let shapes: &[Vec<i64>] = &[vec![8192, 4096]];
    // min(ceil(8192 / 128) * 4, 132)
    assert_eq!(manifest.evaluate_grid(shapes).unwrap(), [132, 1, 1]);
    let small: &[Vec<i64>] = &[vec![300, 4096]];
    assert_eq!(manifest.evaluate_grid(small).unwrap(), [12, 1, 1]);
    let none: &[Vec<i64>] = &[];
    assert_eq!(
        manifest.evaluate_grid(none).unwrap_err().to_string(),
        "cannot compute the launch: host argument 0 is not a tensor with a dimension 0"
    );
}

#[test]
fn host_ops_follow_arith() {
    assert_eq!(HostOp::from_name("arith.ceildivsi"), Some(HostOp::CeilDivS));
    assert_eq!(HostOp::from_name("arith.addf"), None);
    assert_eq!(HostOp::CeilDivU.apply(129, 128).unwrap(), 2);
    assert_eq!(HostOp::CeilDivS.apply(-7, 2).unwrap(), -3);
    assert_eq!(HostOp::CeilDivS.apply(7, 2).unwrap(), 4);
    assert!(HostOp::DivU.apply(1, 0).is_err());
}

#[test]
fn other_versions_are_refused_with_a_message() {
    let old = text(PLAIN).replace(r#""version": 1, "#, "");
    assert_eq!(Manifest::from_json(&old).unwrap_err(), Error::Schema { found: None });
    let newer = text(PLAIN).replace(r#""version": 1"#, r#""version": 7"#);
    assert!(
        Manifest::from_json(&newer)
            .unwrap_err()
            .to_string()
            .starts_with("expects manifest version 1 or 2, but got 7")
    );
    let manifest = Manifest::from_json(&text(PLAIN).replace(COMPILER_VERSION, "0.0.1")).unwrap();
    assert_eq!(
        manifest.check_loadable("spirv").unwrap_err(),
        Error::Compiler { found: "0.0.1".into() }
    );
    let manifest = Manifest::from_json(&text(PLAIN)).unwrap();
    assert!(manifest.check_loadable("spirv").is_ok());
    assert_eq!(
        manifest.check_loadable("sm_90a").unwrap_err().to_string(),
        "expects a kernel compiled for sm_90a, but got one compiled for spirv"
    );
}

#[test]
fn unknown_fields_are_ignored_and_missing_ones_named() {
    let extra = text(PLAIN).replace(r#""grid""#, r#""future": {"a": 1}, "grid""#);
    assert!(Manifest::from_json(&extra).is_ok());
    let missing = text(PLAIN).replace(r#""entry": "k_0_kernel", "#, "");
    assert!(
        Manifest::from_json(&missing)
            .unwrap_err()
            .to_string()
            .contains("missing field `entry`")
    );
}

#[test]
fn ptx_for_a_plain_architecture_loads_on_that_chip_and_later_ones() {
    assert!(loads_on("sm_80", "sm_80"));
    assert!(loads_on("sm_80", "sm_86"));
    assert!(loads_on("sm_80", "sm_90a"));
    assert!(!loads_on("sm_80", "sm_75"));
    assert!(!loads_on("sm_90a", "sm_100"));
    assert!(!loads_on("sm_80", "spirv"));
    assert!(!loads_on("spirv", "sm_90a"));
    let manifest = Manifest::from_json(&text(PLAIN).replace("\"target\": \"spirv\"", "\"target\": \"sm_80\"")).unwrap();
    assert!(manifest.check_loadable("sm_90a").is_ok());
    assert_eq!(
        manifest.check_loadable("sm_75").unwrap_err().to_string(),
        "expects a kernel compiled for sm_75, but got one compiled for sm_80 (its code needs compute capability 8.0 or newer)"
    );
}

#[test]
fn a_conditional_launch_says_version_2_and_runs_where_its_condition_holds() {
    // `scf.if %n < 1000`: the kernel of the then branch.
    let mut manifest = Manifest::from_json(&text(PLAIN)).unwrap();
    manifest.launched_when(Expr::Op {
        op: HostOp::ULt,
        args: vec![Expr::Dim { dim: [0, 0] }, Expr::Const(1000)],
    });
    let json = manifest.to_json();
    assert!(
        json.contains(r#""version": 2"#)
            && json.contains(r#""when": {"op": "arith.cmpi ult", "args": [{"dim": [0, 0]}, 1000]}"#),
        "{json}"
    );
    let read = Manifest::from_json(&json).unwrap();
    assert_eq!(read, manifest);
    let small: &[Vec<i64>] = &[vec![256]];
    let large: &[Vec<i64>] = &[vec![4096]];
    assert!(read.runs(small).unwrap() && !read.runs(large).unwrap());
    // A condition under version 1 (which a version-1 reader would ignore) is refused.
    let old = json.replace(r#""version": 2"#, r#""version": 1"#);
    assert_eq!(Manifest::from_json(&old).unwrap_err(), Error::Schema { found: Some(1) });
    // The else branch: not the condition (xor 1); both of two conditions: and.
    let not = Expr::Op {
        op: HostOp::Xor,
        args: vec![read.when.clone().unwrap(), Expr::Const(1)],
    };
    assert_eq!(not.evaluate(large).unwrap(), 1);
    let both = Expr::Op {
        op: HostOp::And,
        args: vec![
            not,
            Expr::Op {
                op: HostOp::SGe,
                args: vec![Expr::Const(-1), Expr::Const(0)],
            },
        ],
    };
    assert_eq!(both.evaluate(large).unwrap(), 0);
    // Every launch without a condition runs.
    assert!(Manifest::from_json(&text(PLAIN)).unwrap().runs(small).unwrap());
}

#[test]
fn an_alignment_condition_reads_the_addresses_a_launcher_knows() {
    // `scf.if (extract_aligned_pointer_as_index %arg0) % 16 == 0`: the aligned twin's launch.
    struct Addressed(Vec<i64>);
    impl HostArguments for Addressed {
        fn size(&self, _: usize, _: usize) -> Option<i64> {
            None
        }
        fn address(&self, argument: usize) -> Option<i64> {
            self.0.get(argument).copied()
        }
    }
    let aligned = Expr::Op {
        op: HostOp::Eq,
        args: vec![
            Expr::Op {
                op: HostOp::RemU,
                args: vec![Expr::Address { address: 1 }, Expr::Const(16)],
            },
            Expr::Const(0),
        ],
    };
    let mut manifest = Manifest::from_json(&text(PLAIN)).unwrap();
    manifest.launched_when(aligned.clone());
    let json = manifest.to_json();
    assert!(
        json.contains(
            r#""when": {"op": "arith.cmpi eq", "args": [{"op": "arith.remui", "args": [{"address": 1}, 16]}, 0]}"#
        ),
        "{json}"
    );
    assert_eq!(Manifest::from_json(&json).unwrap(), manifest);
    assert!(aligned.reads_addresses() && !Expr::Dim { dim: [0, 0] }.reads_addresses());
    assert_eq!(aligned.evaluate(&Addressed(vec![0, 0x7f00_0000_0100])).unwrap(), 1);
    assert_eq!(aligned.evaluate(&Addressed(vec![0, 0x7f00_0000_0102])).unwrap(), 0);
    // A launcher that knows no addresses says so instead of guessing.
    let shapes: &[Vec<i64>] = &[vec![4], vec![4]];
    assert_eq!(
        aligned.evaluate(shapes).unwrap_err().to_string(),
        "cannot compute the launch: host argument 1 is not a tensor whose address this launcher knows"
    );
}

#[test]
fn partitions_accept_what_the_kernels_rely_on_and_name_the_first_entry_that_breaks_it() {
    let offsets = Partition::Offsets;
    assert_eq!(offsets.check(&[0, 37, 37, 300], 300), Ok(()));
    assert_eq!(
        offsets.check(&[0, 37, 20, 300], 300).unwrap_err(),
        "offset 2 is 20, below offset 1 (37): offsets must not decrease"
    );
    assert_eq!(
        offsets.check(&[-1, 5], 300).unwrap_err(),
        "offset 0 is -1, outside [0, 300]"
    );
    assert_eq!(
        offsets.check(&[0, 301], 300).unwrap_err(),
        "offset 1 is 301, outside [0, 300]"
    );
    assert_eq!(
        offsets.check(&[0], 300).unwrap_err(),
        "expects at least 2 offsets (one part), but got 1"
    );
    let sizes = Partition::Sizes;
    assert_eq!(sizes.check(&[100, 0, 200], 300), Ok(()));
    assert_eq!(sizes.check(&[100, -1], 300).unwrap_err(), "size 1 is -1, below 0");
    assert_eq!(
        sizes.check(&[100, 150, 51], 300).unwrap_err(),
        "sizes 0 to 2 sum to 301, past the 300 the dimension holds"
    );
    assert_eq!(
        sizes.check(&[], 300).unwrap_err(),
        "expects at least one part size, but got none"
    );
    assert_eq!(
        sizes.check(&[i64::MAX, i64::MAX], i64::MAX - 1).unwrap_err(),
        "sizes 0 to 0 sum to 9223372036854775807, past the 9223372036854775806 the dimension holds"
    );
}

#[test]
fn a_check_reads_its_bound_from_the_host_arguments_and_names_its_argument() {
    let check: Check =
        serde_json::from_str(r#"{"argument": 2, "partition": "sizes", "within": {"dim": [0, 0]}}"#).unwrap();
    let shapes: Vec<Vec<i64>> = vec![vec![300, 64], vec![4, 64, 64], vec![3]];
    assert!(check.check(&[100, 100, 100], shapes.as_slice()).is_ok());
    assert_eq!(
        check
            .check(&[100, 100, 101], shapes.as_slice())
            .unwrap_err()
            .to_string(),
        "refuses the launch: host argument 2 (sizes of a dimension of 300): sizes 0 to 2 sum to 301, past the 300 the dimension holds"
    );
}

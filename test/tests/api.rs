//! The Rust embedding API: build the contract's example kernel with the typed builders, verify it,
//! compare it with the parsed example, and run a tile pass on it.

mod common;

use common::{repo_root, test_context};
use melior::{
    Context,
    dialect::{arith, func, memref},
    ir::{
        Block, BlockLike, Location, Module, Operation, Region, RegionLike, Type, Value,
        attribute::{FloatAttribute, IntegerAttribute, StringAttribute, TypeAttribute},
        operation::{OperationBuilder, OperationLike},
        r#type::{FunctionType, MemRefType},
    },
    pass::PassManager,
};
use pretty_assertions::assert_eq;
use tile_dialect::ops;

fn index_constant<'c>(context: &'c Context, value: i64, location: Location<'c>) -> Operation<'c> {
    arith::constant(
        context,
        IntegerAttribute::new(Type::index(context), value).into(),
        location,
    )
}

fn binary<'c>(name: &str, lhs: Value<'c, '_>, rhs: Value<'c, '_>, location: Location<'c>) -> Operation<'c> {
    OperationBuilder::new(name, location)
        .add_operands(&[lhs, rhs])
        .enable_result_type_inference()
        .build()
        .expect("binary arith op")
}

/// Builds `examples/gemm_relu.mlir` through the builders, op for op.
fn build_gemm_relu(context: &Context) -> Module<'_> {
    let location = Location::unknown(context);
    let f16 = Type::float16(context);
    let f32 = Type::float32(context);
    let global: Type = MemRefType::new(f16, &[4096, 4096], None, None).into();
    let module = Module::new(location);

    let body = Block::new(&[(global, location); 3]);
    let [a, b, c] = [0, 1, 2].map(|index| body.argument(index).expect("argument").into());
    let c0 = body
        .append_operation(index_constant(context, 0, location))
        .result(0)
        .unwrap()
        .into();
    let c32 = body
        .append_operation(index_constant(context, 32, location))
        .result(0)
        .unwrap()
        .into();
    let c128 = body
        .append_operation(index_constant(context, 128, location))
        .result(0)
        .unwrap()
        .into();
    let zero: Value = body
        .append_operation(arith::constant(
            context,
            FloatAttribute::new(context, f32, 0.0).into(),
            location,
        ))
        .result(0)
        .unwrap()
        .into();

    let kernel_body = ops::body_block(context, 2, location);
    let bx = kernel_body.argument(0).unwrap().into();
    let by = kernel_body.argument(1).unwrap().into();
    let a_tile = ops::shared_type(context, &[128, 32], f16);
    let b_tile = ops::shared_type(context, &[32, 128], f16);
    let accumulator = ops::fragment_type(context, &[128, 128], f32);
    let a_shared = kernel_body
        .append_operation(ops::alloc_shared(a_tile, location).unwrap())
        .result(0)
        .unwrap()
        .into();
    let b_shared = kernel_body
        .append_operation(ops::alloc_shared(b_tile, location).unwrap())
        .result(0)
        .unwrap()
        .into();
    let c_fragment = kernel_body
        .append_operation(ops::alloc_fragment(accumulator, location).unwrap())
        .result(0)
        .unwrap()
        .into();
    kernel_body.append_operation(ops::fill(c_fragment, zero, location).unwrap());
    let m0 = kernel_body
        .append_operation(binary("arith.muli", by, c128, location))
        .result(0)
        .unwrap()
        .into();
    let n0 = kernel_body
        .append_operation(binary("arith.muli", bx, c128, location))
        .result(0)
        .unwrap()
        .into();

    let loop_body = ops::body_block(context, 1, location);
    let k = loop_body.argument(0).unwrap().into();
    let k0 = loop_body
        .append_operation(binary("arith.muli", k, c32, location))
        .result(0)
        .unwrap()
        .into();
    loop_body.append_operation(ops::copy(context, a, &[m0, k0], a_shared, &[], location).unwrap());
    loop_body.append_operation(ops::copy(context, b, &[k0, n0], b_shared, &[], location).unwrap());
    loop_body.append_operation(ops::gemm(context, [a_shared, b_shared, c_fragment], false, false, location).unwrap());
    kernel_body.append_operation(ops::pipelined(context, c0, c128, None, 3, loop_body, location).unwrap());

    let relu = ops::body_block(context, 2, location);
    let (i, j) = (relu.argument(0).unwrap().into(), relu.argument(1).unwrap().into());
    let v = relu
        .append_operation(memref::load(c_fragment, &[i, j], location))
        .result(0)
        .unwrap()
        .into();
    let r = relu
        .append_operation(binary("arith.maximumf", v, zero, location))
        .result(0)
        .unwrap()
        .into();
    relu.append_operation(memref::store(r, c_fragment, &[i, j], location));
    kernel_body.append_operation(ops::parallel(context, &[128, 128], relu, location).unwrap());
    kernel_body.append_operation(ops::copy(context, c_fragment, &[], c, &[m0, n0], location).unwrap());

    body.append_operation(ops::kernel(context, &[c32, c32], 128, kernel_body, location).unwrap());
    body.append_operation(func::r#return(&[], location));
    let region = Region::new();
    region.append_block(body);
    module.body().append_operation(func::func(
        context,
        StringAttribute::new(context, "gemm_relu"),
        TypeAttribute::new(FunctionType::new(context, &[global; 3], &[]).into()),
        region,
        &[],
        location,
    ));
    module
}

#[test]
fn builders_reproduce_the_contract_example() {
    let (context, diagnostics) = test_context();
    let built = build_gemm_relu(&context);
    assert!(built.as_operation().verify(), "diagnostics: {:?}", diagnostics.borrow());
    let source = std::fs::read_to_string(repo_root().join("examples/gemm_relu.mlir")).unwrap();
    let parsed = Module::parse(&context, &source).expect("the example parses");
    assert_eq!(parsed.as_operation().to_string(), built.as_operation().to_string());
}

#[test]
fn pass_runs_on_built_ir() {
    let (context, diagnostics) = test_context();
    let mut module = build_gemm_relu(&context);
    let before = module.as_operation().to_string();
    let manager = PassManager::new(&context);
    manager.add_pass(tile_passes::create_canonicalize_pass());
    manager.run(&mut module).expect("tile-canonicalize succeeds");
    assert!(diagnostics.borrow().is_empty(), "{:?}", diagnostics.borrow());
    // Nothing in the example is dead: the pass must leave it as it was.
    assert_eq!(before, module.as_operation().to_string());
}

#[test]
fn pass_erases_a_dead_fill_built_in_rust() {
    let (context, _) = test_context();
    let location = Location::unknown(&context);
    let f32 = Type::float32(&context);
    let mut module = Module::new(location);
    let body = Block::new(&[(Type::index(&context), location)]);
    let n = body.argument(0).unwrap().into();
    let zero = body
        .append_operation(arith::constant(
            &context,
            FloatAttribute::new(&context, f32, 0.0).into(),
            location,
        ))
        .result(0)
        .unwrap()
        .into();
    let kernel_body = ops::body_block(&context, 1, location);
    let tile = kernel_body
        .append_operation(ops::alloc_shared(ops::shared_type(&context, &[8, 8], f32), location).unwrap())
        .result(0)
        .unwrap()
        .into();
    kernel_body.append_operation(ops::fill(tile, zero, location).unwrap());
    kernel_body.append_operation(ops::fill(tile, zero, location).unwrap());
    let scratch = kernel_body
        .append_operation(ops::alloc_fragment(ops::fragment_type(&context, &[8], f32), location).unwrap())
        .result(0)
        .unwrap()
        .into();
    kernel_body
        .append_operation(ops::reduce(&context, ops::ReductionKind::Sum, tile, scratch, 1, false, location).unwrap());
    kernel_body
        .append_operation(ops::scan(&context, ops::ReductionKind::Max, [tile, tile], 0, true, location).unwrap());
    body.append_operation(ops::kernel(&context, &[n], 32, kernel_body, location).unwrap());
    body.append_operation(func::r#return(&[], location));
    let region = Region::new();
    region.append_block(body);
    module.body().append_operation(func::func(
        &context,
        StringAttribute::new(&context, "dead_fill"),
        TypeAttribute::new(FunctionType::new(&context, &[Type::index(&context)], &[]).into()),
        region,
        &[],
        location,
    ));
    assert!(module.as_operation().verify());
    let manager = PassManager::new(&context);
    manager.add_pass(tile_passes::create_canonicalize_pass());
    manager.run(&mut module).unwrap();
    let printed = module.as_operation().to_string();
    assert_eq!(printed.matches("tile.fill").count(), 1, "{printed}");
    assert!(printed.contains("tile.reduce <sum>"), "{printed}");
    assert!(
        printed.contains("tile.scan <max>") && printed.contains("dim(0) {exclusive}"),
        "{printed}"
    );
}

#[test]
fn verifier_failures_are_diagnostics() {
    let (context, diagnostics) = test_context();
    let location = Location::new(&context, "kernel.mlir", 7, 3);
    let module = Module::new(location);
    let body = Block::new(&[(Type::index(&context), location)]);
    let n = body.argument(0).unwrap().into();
    body.append_operation(ops::kernel(&context, &[n], 100, ops::body_block(&context, 1, location), location).unwrap());
    body.append_operation(func::r#return(&[], location));
    let region = Region::new();
    region.append_block(body);
    module.body().append_operation(func::func(
        &context,
        StringAttribute::new(&context, "bad"),
        TypeAttribute::new(FunctionType::new(&context, &[Type::index(&context)], &[]).into()),
        region,
        &[],
        location,
    ));
    assert!(!module.as_operation().verify());
    let diagnostics = diagnostics.borrow();
    assert!(
        diagnostics.iter().any(|message| message.contains(
            "'tile.kernel' op expects threads to be a positive multiple of 32 and at most 1024, but got 100"
        )),
        "{diagnostics:?}"
    );
}

#[test]
fn builders_reject_mismatched_bodies() {
    let (context, _) = test_context();
    let location = Location::unknown(&context);
    let error = ops::parallel(&context, &[16, 16], ops::body_block(&context, 1, location), location).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid argument: tile.parallel expects a body with 2 index arguments, but got 1"
    );
}

#[test]
fn a_compilation_that_succeeds_reports_no_error() {
    // Every example and test program for sm_90a (the target with the most lowering passes): where
    // `tile-compile` writes kernels, nothing it prints is an error (a conversion pattern that fails
    // and is retried by a later pass still prints its diagnostic).
    let bin = common::build_tools(&["tile-compile"]);
    let out = tempfile::tempdir().unwrap();
    let root = repo_root();
    let mut programs: Vec<std::path::PathBuf> = ["examples", "test/programs"]
        .iter()
        .flat_map(|folder| std::fs::read_dir(root.join(folder)).unwrap().flatten())
        .map(|entry| entry.path())
        .filter(|path| path.extension().is_some_and(|extension| extension == "mlir"))
        .collect();
    programs.sort();
    assert!(programs.len() > 40);
    for program in programs {
        let output = std::process::Command::new(bin.join("tile-compile"))
            .arg(&program)
            .args(["--target", "sm_90a", "-o"])
            .arg(out.path())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&output.stderr);
        if output.status.success() {
            assert!(
                !stderr.contains("error"),
                "{}: compiled, but reported: {stderr}",
                program.display()
            );
        }
    }
}

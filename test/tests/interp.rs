//! The reference interpreter (`tile-interp`) against the CPU reference lowering: every program in
//! `test/programs/` and small versions of the examples run through both on the same seeded random
//! inputs (uniform in [-1, 1), never zeros) and must agree element by element, within a few units
//! in the last place of the output's element type. The two share no code, so agreement checks both.

mod common;

use tile_dialect::element::Element;
use tile_run::{CpuProgram, InterpProgram, buffer::Buffer, buffer::Random, buffers, context, host_functions};

/// The largest difference allowed between the two, relative to max(1, |expected|): both accumulate
/// in f32 in the same order, so they differ by the rounding of transcendental functions, which can
/// move an output by one unit in its last place.
fn tolerance(element: Element) -> f64 {
    match element {
        Element::F32 => 1e-5,
        Element::F16 => 2f64.powi(-9),
        Element::BF16 => 2f64.powi(-6),
        Element::F8E4M3FN => 2f64.powi(-2),
        Element::F8E5M2 => 2f64.powi(-1),
        Element::I8 | Element::I32 | Element::I4 => 0.0,
        // Only copied, never computed.
        Element::F4E2M1FN => 0.0,
    }
}

/// Runs every host function of `source` (named `name` in messages) on the interpreter and on the CPU
/// reference with `seed`, and compares every output.
fn agree(name: &str, source: &str, seed: u64, dynamic_size: usize) {
    let context = context();
    let module = melior::ir::Module::parse(&context, source).unwrap_or_else(|| panic!("{name} parses"));
    agree_with(name, &module, &cpu_reference(&context, source), seed, dynamic_size);
}

/// `source` compiled by the CPU reference.
fn cpu_reference(context: &melior::Context, source: &str) -> CpuProgram {
    let mut module = melior::ir::Module::parse(context, source).unwrap();
    CpuProgram::compile(context, &mut module).expect("lowers for the CPU")
}

/// Runs `passes` (a pipeline on the module) over `source`, the interpreter on what they wrote and
/// the CPU reference on `source` itself: a rewrite in tile IR checked against the program it
/// rewrote.
fn agree_after(name: &str, source: &str, passes: &str, seed: u64, dynamic_size: usize) {
    let context = context();
    let module = rewritten(&context, name, source, passes);
    agree_with(name, &module, &cpu_reference(&context, source), seed, dynamic_size);
}

/// `source` (named `name` in messages) as `passes` rewrite it.
fn rewritten<'c>(context: &'c melior::Context, name: &str, source: &str, passes: &str) -> melior::ir::Module<'c> {
    let mut module = melior::ir::Module::parse(context, source).unwrap_or_else(|| panic!("{name} parses"));
    let manager =
        tile_dialect::driver::pass_manager(context, passes).unwrap_or_else(|error| panic!("{name}: {passes}: {error}"));
    manager
        .run(&mut module)
        .unwrap_or_else(|error| panic!("{name}: {passes} fails: {error}"));
    module
}

/// Runs every host function of `interpreted` on the interpreter and on `cpu` (the CPU reference of
/// the program it is or was rewritten from), with `seed`, and compares every output.
fn agree_with(name: &str, interpreted: &melior::ir::Module, cpu: &CpuProgram, seed: u64, dynamic_size: usize) {
    agree_on(name, interpreted, cpu, seed, dynamic_size, &|_| {});
}

/// [`agree_with`] on the random inputs as `set` changes them (inputs a program needs valid: a
/// varlen kernel's offsets).
fn agree_on(
    name: &str,
    interpreted: &melior::ir::Module,
    cpu: &CpuProgram,
    seed: u64,
    dynamic_size: usize,
    set: &dyn Fn(&mut Vec<Buffer>),
) {
    let functions = host_functions(interpreted).unwrap();
    let interpreter = InterpProgram::new(interpreted);
    for function in &functions {
        let mut inputs = buffers(function, &mut Random::new(seed), dynamic_size);
        for (argument, buffer) in function.arguments.iter().zip(&inputs) {
            if argument.input {
                // (A tensor without elements holds none.)
                let zero = buffer.len() > 0 && (0..buffer.len()).all(|i| buffer.get(i) == 0.0);
                assert!(!zero, "{name}: zero input");
            }
        }
        set(&mut inputs);
        let (mut interpreted, mut compiled) = (inputs.clone(), inputs);
        interpreter
            .run(&function.name, &mut interpreted)
            .unwrap_or_else(|error| panic!("{name}: {}", error.diagnostic()));
        cpu.run(&function.name, &mut compiled).unwrap();
        for (index, argument) in function.arguments.iter().enumerate().filter(|(_, a)| a.output) {
            compare(
                name,
                index,
                &interpreted[index],
                &compiled[index],
                tolerance(argument.element),
            );
        }
    }
}

fn compare(name: &str, argument: usize, interpreted: &Buffer, compiled: &Buffer, tolerance: f64) {
    let columns = *compiled.shape.last().unwrap_or(&1);
    let mut nonzero = 0;
    for index in 0..compiled.len() {
        let (got, expected) = (interpreted.get(index), compiled.get(index));
        nonzero += (expected != 0.0) as usize;
        // Equal infinities (an exclusive scan's first maximum) agree.
        let close = got == expected
            || (got.is_nan() && expected.is_nan())
            || (got - expected).abs() <= tolerance * expected.abs().max(1.0);
        assert!(
            close,
            "{name} %arg{argument} at [{}, {}]: interpreter {got}, CPU reference {expected}",
            index / columns,
            index % columns
        );
    }
    assert!(nonzero > 0, "{name} %arg{argument}: an all-zero output checks nothing");
}

fn program(file: &str) -> String {
    std::fs::read_to_string(common::repo_root().join(file)).unwrap()
}

/// Returns `source` with each (from, to) replacement made, each of which must apply.
fn shrink(source: &str, replacements: &[(&str, &str)]) -> String {
    replacements.iter().fold(source.to_string(), |text, (from, to)| {
        assert!(text.contains(from), "{from} is not in the example any more");
        text.replace(from, to)
    })
}

/// The programs of `test/programs`, in name order (their place gives each its seed).
fn test_programs() -> Vec<std::path::PathBuf> {
    let folder = common::repo_root().join("test/programs");
    let mut files: Vec<_> = std::fs::read_dir(&folder)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .collect();
    files.sort();
    assert!(files.len() >= 7);
    files
}

/// Runs `check` on every test program (its index, which seeds its inputs, and its path) on as
/// many threads as the machine has cores, taking the programs in turn: a few programs take most
/// of the time, and one thread a test left the other core idle behind them.
fn for_each_test_program(check: impl Fn(u64, &std::path::Path) + Sync) {
    let programs = test_programs();
    let next = std::sync::atomic::AtomicUsize::new(0);
    let workers = std::thread::available_parallelism().map_or(1, |count| count.get());
    std::thread::scope(|scope| {
        for _ in 0..workers {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some(file) = programs.get(index) else { break };
                    check(index as u64, file);
                }
            });
        }
    });
}

#[test]
fn test_programs_agree_with_the_cpu_reference() {
    for_each_test_program(|index, file| {
        let source = std::fs::read_to_string(file).unwrap();
        // Dynamic sizes (gemm_dynamic_small) of 97: not a multiple of any tile.
        agree(&file.display().to_string(), &source, 40 + index, 97);
    });
}

#[test]
fn test_programs_agree_with_the_cpu_reference_after_each_targets_loop_decisions() {
    // sm_90a's rings (TMA-filled, producer warpgroups, persistent kernels, loops split across
    // clusters) and sm_80's (cp.async groups), run as tile IR (gfx942's threads fill a single
    // buffer: its loops stay as written).
    for_each_test_program(|index, file| {
        let context = context();
        let program = std::fs::read_to_string(file).unwrap();
        let cpu = cpu_reference(&context, &program);
        for chip in ["sm_90a", "sm_80"] {
            let name = format!("{} ({chip})", file.display());
            let source = format!("module attributes {{tile.target = \"{chip}\"}} {{\n{program}\n}}");
            // The generated programs' check runs the same passes (for sm_90a).
            let module = rewritten(&context, &name, &source, tile_tests::generate::check::DECISIONS);
            agree_with(&name, &module, &cpu, 40 + index, 97);
        }
    });
}

#[test]
fn the_gemm_relu_example_on_ragged_300x300_agrees() {
    // The contract's program on 300^3 tensors: 3x3 blocks of 128x128, 10 steps of 32, every tile
    // at the ends clipped.
    let source = shrink(
        &program("examples/gemm_relu.mlir"),
        &[
            ("4096", "300"),
            (
                "%c0 = arith.constant 0 : index",
                "%c0 = arith.constant 0 : index\n  %c3 = arith.constant 3 : index\n  %c10 = arith.constant 10 : index",
            ),
            ("grid(%c32, %c32)", "grid(%c3, %c3)"),
            ("%c0 to %c128", "%c0 to %c10"),
        ],
    );
    agree("gemm_relu", &source, 3, 0);
}

#[test]
fn the_128x256_tile_examples_on_ragged_300x300_agree() {
    // f16, bf16 and transpose_b with 256 threads and 128x256x64 tiles: 2x3 blocks, 5 steps.
    for file in ["gemm_256_threads", "gemm_bf16", "gemm_transpose_b"] {
        let source = shrink(
            &program(&format!("examples/{file}.mlir")),
            &[
                ("4096", "300"),
                (
                    "%ktiles = arith.constant 64 : index",
                    "%ktiles = arith.constant 5 : index",
                ),
                ("%gx = arith.constant 16 : index", "%gx = arith.constant 2 : index"),
                ("%gy = arith.constant 32 : index", "%gy = arith.constant 3 : index"),
            ],
        );
        agree(file, &source, 5, 0);
    }
}

#[test]
fn the_ragged_gemm_example_on_smaller_ragged_sizes_agrees() {
    // 200x150 times 150x300 on 128x128x64 tiles: 3x2 blocks, 3 steps.
    let source = shrink(
        &program("examples/gemm_ragged_relu.mlir"),
        &[
            ("1000", "200"),
            ("704", "150"),
            ("1504", "300"),
            (
                "%ktiles = arith.constant 11 : index",
                "%ktiles = arith.constant 3 : index",
            ),
            ("%gx = arith.constant 12 : index", "%gx = arith.constant 3 : index"),
            ("%gy = arith.constant 8 : index", "%gy = arith.constant 2 : index"),
        ],
    );
    agree("gemm_ragged_relu", &source, 6, 0);
}

#[test]
fn the_dynamic_gemm_example_agrees_on_two_sizes() {
    let source = program("examples/gemm_dynamic.mlir");
    agree("gemm_dynamic (96)", &source, 7, 96);
    agree("gemm_dynamic (200)", &source, 8, 200);
}

#[test]
fn the_softmax_example_on_64_rows_agrees() {
    let source = shrink(
        &program("examples/softmax.mlir"),
        &[
            ("4096x1024", "64x1024"),
            (
                "%blocks = arith.constant 1024 : index",
                "%blocks = arith.constant 16 : index",
            ),
        ],
    );
    agree("softmax", &source, 9, 0);
}

#[test]
fn ring_ends_attention_agrees_after_the_loop_decisions() {
    // tools/gen/attention.py test-ring-ends: the ping-pong kernel whose first K and last V come
    // through the ring; sm_90a's decisions give its loop a producer warpgroup, which also issues
    // the extra step's copies (K past the sequence, V's block clamped at 0).
    let context = context();
    let name = "attention_ring_ends (sm_90a)";
    let (module, cpu) = attention_with_producer(&context, "test-ring-ends", name);
    agree_with(name, &module, &cpu, 17, 0);
}

/// A GEMM kernel whose sizes are known at run time, asking for a persistent kernel, on tensors of
/// types `a`, `b` and `c`; its ring filled by a producer warpgroup (sm_90a's choice) or, with
/// `threads_fill`, by the block's threads.
fn persistent_gemm(a: &str, b: &str, c: &str, threads_fill: bool) -> String {
    let producer = if threads_fill { r#", producer = "none""# } else { "" };
    run_time_gemm(
        "persistent_gemm",
        [a, b, c],
        &format!("persistent = true{producer}"),
        false,
    )
}

/// The GEMM kernel `@name` whose sizes are known at run time, on tensors of types `a`, `b` and
/// `c`, in 64x128 tiles of 64 steps whose loop's `tile.schedule` is `schedule`: its accumulator
/// filled with 0.5, or (`bias_after`) with zero and 0.5 added in the epilogue.
fn run_time_gemm(name: &str, [a, b, c]: [&str; 3], schedule: &str, bias_after: bool) -> String {
    let fill = if bias_after { "%zero" } else { "%bias" };
    let epilogue = if bias_after {
        r#"
    tile.parallel (%i, %j) in (64, 128) {
      %v = memref.load %Cf[%i, %j] : memref<64x128xf32, #tile.fragment>
      %w = arith.addf %v, %bias : f32
      memref.store %w, %Cf[%i, %j] : memref<64x128xf32, #tile.fragment>
    }"#
    } else {
        ""
    };
    format!(
        r#"module attributes {{tile.target = "sm_90a"}} {{
func.func @{name}(%A: {a}, %B: {b}, %C: {c}) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %bias = arith.constant 0.5 : f32
  %m = memref.dim %A, %c0 : {a}
  %k = memref.dim %A, %c1 : {a}
  %n = memref.dim %B, %c1 : {b}
  %gx = arith.ceildivui %n, %c128 : index
  %gy = arith.ceildivui %m, %c64 : index
  %ktiles = arith.ceildivui %k, %c64 : index
  tile.kernel grid(%gx, %gy) threads(128) (%bx, %by) {{
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.fill %Cf, {fill} : memref<64x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %ktiles stages(3) attributes {{tile.schedule = {{{schedule}}}}} {{
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : {a}, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : {b}, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }}{epilogue}
    tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, {c}
  }}
  return
}}
}}"#
    )
}

/// The passes that write a persistent kernel and its ring in tile IR (sm_90a).
const PERSISTENT_PASSES: &str =
    "builtin.module(tile-infer-layouts, tile-persistent-kernels, tile-plan-pipelines, tile-expand-pipelines)";

#[test]
fn a_persistent_gemm_of_run_time_sizes_agrees_with_its_program() {
    for threads_fill in [false, true] {
        let ring = if threads_fill { "threads" } else { "producer" };
        // All sizes from the tensors: 1 x 1 to 3 x 4 tiles of 2 to 4 steps (one block a tile).
        let source = persistent_gemm("memref<?x?xf16>", "memref<?x?xf16>", "memref<?x?xf16>", threads_fill);
        for (seed, size) in [(21, 65), (22, 200)] {
            agree_after(
                &format!("persistent_gemm ({size}, {ring})"),
                &source,
                PERSISTENT_PASSES,
                seed,
                size,
            );
        }
        // 10 rows of 2 tiles: a group of 8 rows, then one of 2.
        let tall = persistent_gemm(
            "memref<?x64xf16>",
            "memref<64x256xf16>",
            "memref<?x256xf16>",
            threads_fill,
        );
        agree_after(
            &format!("persistent_gemm (640x256x64, {ring})"),
            &tall,
            PERSISTENT_PASSES,
            27,
            640,
        );
        // 135 tiles of one row on the H200's 132 blocks: the first three walk two tiles each.
        let wide = persistent_gemm(
            "memref<64x64xf16>",
            "memref<64x?xf16>",
            "memref<64x?xf16>",
            threads_fill,
        );
        agree_after(
            &format!("persistent_gemm (64x17280x64, {ring})"),
            &wide,
            PERSISTENT_PASSES,
            23,
            135 * 128,
        );
        // The same 135 tiles with K known at run time (130: three steps): the producer carries
        // a tile's offsets from step to step and computes the next tile's after its last step.
        let wide_run_time_k = persistent_gemm(
            "memref<64x?xf16>",
            "memref<?x17280xf16>",
            "memref<64x17280xf16>",
            threads_fill,
        );
        agree_after(
            &format!("persistent_gemm (64x17280x130, {ring})"),
            &wide_run_time_k,
            PERSISTENT_PASSES,
            28,
            130,
        );
        // K of 0, 1 and 130 elements: no steps (each tile is filled and written out by a loop of
        // its own), one step, three steps.
        let deep = persistent_gemm(
            "memref<128x?xf16>",
            "memref<?x256xf16>",
            "memref<128x256xf16>",
            threads_fill,
        );
        for (seed, size) in [(24, 0), (25, 1), (26, 130)] {
            agree_after(
                &format!("persistent_gemm (K = {size}, {ring})"),
                &deep,
                PERSISTENT_PASSES,
                seed,
                size,
            );
        }
    }
}

/// `tools/gen/attention.py MODE`'s program as sm_90a's decisions rewrite it (checked to give it a
/// producer warpgroup), and the CPU reference of the program as written.
fn attention_with_producer<'c>(
    context: &'c melior::Context,
    mode: &str,
    name: &str,
) -> (melior::ir::Module<'c>, CpuProgram) {
    let output = std::process::Command::new("python3")
        .arg(common::repo_root().join("tools/gen/attention.py"))
        .arg(mode)
        .output()
        .expect("python3 runs");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    let program = String::from_utf8(output.stdout).unwrap();
    let source = format!("module attributes {{tile.target = \"sm_90a\"}} {{\n{program}\n}}");
    let module = rewritten(context, name, &source, tile_tests::generate::check::DECISIONS);
    assert!(
        tile_dialect::ops::find_ops(module.as_operation(), "tile.producer").len() == 1,
        "{name}: no producer warpgroup"
    );
    (module, cpu_reference(context, &program))
}

#[test]
fn varlen_attention_on_offsets_agrees_after_the_loop_decisions_with_a_producer() {
    // tools/gen/attention.py test-varlen-offsets: the kernel reads the sequences' offsets from a
    // table at its top level, which its producer warpgroup reads too (sm_90a's decisions give it
    // one); run on offsets set here: an empty sequence, a ragged one, one of whole blocks, and
    // offsets no launcher should pass (below 0, past the packed tokens), which must still read
    // and write inside the tensors. (Decreasing offsets overlap sequences, whose blocks then race
    // on rows of O: the interpreter says so.)
    let context = context();
    let name = "attention_varlen_offsets_small (sm_90a)";
    let (module, cpu) = attention_with_producer(&context, "test-varlen-offsets", name);
    for offsets in [[0, 37, 37, 297], [0, 130, 260, 400], [0, 1, 65, 65], [-40, 37, 37, 520]] {
        agree_on(name, &module, &cpu, 7, 0, &|inputs: &mut Vec<Buffer>| {
            for (index, offset) in offsets.iter().enumerate() {
                inputs[3].set(index, *offset as f64);
            }
        });
    }
}

#[test]
fn fp8_attention_agrees_after_the_loop_decisions_with_a_producer() {
    // tools/gen/attention.py test-fp8-producer: a ring of 2 that leaves room for a second block by
    // its shared memory, but not by its registers, so sm_90a's decisions give it a producer.
    let context = context();
    let name = "attention_fp8_producer_small (sm_90a)";
    let (module, cpu) = attention_with_producer(&context, "test-fp8-producer", name);
    agree_with(name, &module, &cpu, 11, 0);
}

#[test]
fn ping_pong_attention_agrees_after_the_loop_decisions() {
    // tools/gen/attention.py test-pingpong: the loop asks for ping-pong warpgroups, which sm_90a's
    // decisions record on the loop they write (the barriers themselves are the lowering's).
    let context = context();
    let name = "attention_pingpong_small (sm_90a)";
    let (module, cpu) = attention_with_producer(&context, "test-pingpong", name);
    assert!(
        tile_dialect::ops::find_ops(module.as_operation(), "scf.for")
            .iter()
            .any(|looped| melior::ir::operation::OperationLike::attribute(looped, "tile.pingpong").is_ok()),
        "{name}: no loop marked for ping-pong"
    );
    agree_with(name, &module, &cpu, 13, 0);
}

/// A GEMM kernel whose sizes are known at run time (a zero fill, the epilogue adding 0.5) asking
/// for its K loop split across `splits` blocks of a cluster.
fn split_gemm(splits: i64) -> String {
    let dynamic = "memref<?x?xf16>";
    run_time_gemm(
        "split_gemm",
        [dynamic, dynamic, "memref<?x?xf32>"],
        &format!("split = {splits}"),
        true,
    )
}

#[test]
fn a_gemm_of_run_time_sizes_split_across_a_cluster_agrees_with_its_program() {
    // sm_90a's decisions split the loop of steps known at run time: each block runs its part of
    // ceil(steps / S) steps, the last parts shorter or empty (2 steps in 4 parts: 1, 1, 0, 0).
    for splits in [2, 4] {
        let source = split_gemm(splits);
        let context = context();
        let name = format!("split_gemm (split {splits})");
        let module = rewritten(&context, &name, &source, tile_tests::generate::check::DECISIONS);
        assert_eq!(
            tile_dialect::ops::find_ops(module.as_operation(), "tile.split_sum").len(),
            1,
            "{name}: the loop is not split"
        );
        let cpu = cpu_reference(&context, &source);
        for (seed, size) in [(31, 65), (32, 200), (33, 320)] {
            agree_with(&format!("{name}, sizes {size}"), &module, &cpu, seed, size);
        }
    }
}

#[test]
fn a_static_gemm_split_in_uneven_parts_agrees_with_its_program() {
    // 5 steps of K that no split divides: parts of ceil(5 / S), 3 and 2 in two, 2, 2, 1 and 0 in
    // four (the last block adds zeros); a 70x200 output of 2 x 2 tiles, the epilogue adding 0.5.
    for splits in [2, 4] {
        let source = format!(
            r#"module attributes {{tile.target = "sm_90a"}} {{
func.func @uneven_split(%A: memref<70x320xf16>, %B: memref<320x200xf16>, %C: memref<70x200xf32>) {{
  %c0 = arith.constant 0 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %c64 = arith.constant 64 : index
  %c128 = arith.constant 128 : index
  %zero = arith.constant 0.0 : f32
  %bias = arith.constant 0.5 : f32
  tile.kernel grid(%c2, %c2) threads(128) (%bx, %by) {{
    %As = tile.alloc_shared : memref<64x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x128xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<64x128xf32, #tile.fragment>
    tile.fill %Cf, %zero : memref<64x128xf32, #tile.fragment>
    %m0 = arith.muli %by, %c64 : index
    %n0 = arith.muli %bx, %c128 : index
    tile.pipelined %kt = %c0 to %c5 stages(3) attributes {{tile.schedule = {{split = {splits}}}}} {{
      %k0 = arith.muli %kt, %c64 : index
      tile.copy %A[%m0, %k0], %As : memref<70x320xf16>, memref<64x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<320x200xf16>, memref<64x128xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<64x64xf16, #gpu.address_space<workgroup>>, memref<64x128xf16, #gpu.address_space<workgroup>>, memref<64x128xf32, #tile.fragment>
    }}
    tile.parallel (%i, %j) in (64, 128) {{
      %v = memref.load %Cf[%i, %j] : memref<64x128xf32, #tile.fragment>
      %w = arith.addf %v, %bias : f32
      memref.store %w, %Cf[%i, %j] : memref<64x128xf32, #tile.fragment>
    }}
    tile.copy %Cf, %C[%m0, %n0] : memref<64x128xf32, #tile.fragment>, memref<70x200xf32>
  }}
  return
}}
}}"#
        );
        let context = context();
        let name = format!("uneven_split (split {splits})");
        let module = rewritten(&context, &name, &source, tile_tests::generate::check::DECISIONS);
        assert_eq!(
            tile_dialect::ops::find_ops(module.as_operation(), "tile.split_sum").len(),
            1,
            "{name}: the loop is not split"
        );
        agree_with(&name, &module, &cpu_reference(&context, &source), 41, 0);
    }
}

#[test]
fn a_matmul_whose_last_rows_run_apart_agrees_after_the_decisions() {
    // 136 rows in sm_90a's balanced tiles of 128 leave 8, whose 90 tiles would make a second wave
    // of 180 on 132 multiprocessors: the decisions give the first 128 rows one kernel and the last
    // 8 the narrow tiling's (64x128 from row 128 on, clipped at C's last row), against the CPU
    // reference.
    let source = r#"module attributes {tile.target = "sm_90a"} {
func.func @row_tail(%A: memref<136x64xf16>, %B: memref<64x17152xf16>, %C: memref<136x17152xf32>) {
  tile.matmul %A, %B, %C : memref<136x64xf16>, memref<64x17152xf16>, memref<136x17152xf32>
  return
}
}"#;
    let context = context();
    let name = "row_tail (sm_90a)";
    let module = rewritten(&context, name, source, tile_tests::generate::check::DECISIONS);
    let kernels = tile_dialect::ops::find_ops(module.as_operation(), "tile.kernel");
    assert_eq!(kernels.len(), 2, "{name}: the last rows do not run apart");
    let threads: Vec<i64> = kernels
        .iter()
        .map(|kernel| tile_dialect::ops::integer_attribute(kernel, "threads").unwrap())
        .collect();
    assert_eq!(threads, [256, 128], "{name}: the balanced tiling, then the narrow one");
    agree_with(name, &module, &cpu_reference(&context, source), 43, 0);
}

#[test]
fn the_balanced_128x192_tiling_agrees_after_the_loop_decisions() {
    // sm_90a's balanced tiling of tile.matmul (128x192x64 on two warpgroups, a ring of 4) on
    // ragged 300x424x192, one tile a block and persistent (a walk over its 9 tiles), after sm_90a's
    // loop decisions (the ring, a producer warpgroup), against the CPU reference.
    for schedule in ["", " attributes {tile.schedule = {persistent = true}}"] {
        let source = format!(
            r#"module attributes {{tile.target = "sm_90a"}} {{
func.func @gemm_128x192(%A: memref<300x192xf16>, %B: memref<192x424xf16>, %C: memref<300x424xf16>) {{
  %c0 = arith.constant 0 : index
  %cbk = arith.constant 64 : index
  %cbm = arith.constant 128 : index
  %cbn = arith.constant 192 : index
  %ktiles = arith.constant 3 : index
  %gx = arith.constant 3 : index
  %gy = arith.constant 3 : index
  %zero = arith.constant 0.0 : f32
  %start = arith.constant 0.0 : f32
  tile.kernel grid(%gx, %gy) threads(256) (%bx, %by) {{
    %As = tile.alloc_shared : memref<128x64xf16, #gpu.address_space<workgroup>>
    %Bs = tile.alloc_shared : memref<64x192xf16, #gpu.address_space<workgroup>>
    %Cf = tile.alloc_fragment : memref<128x192xf32, #tile.fragment>
    tile.fill %Cf, %start : memref<128x192xf32, #tile.fragment>
    %m0 = arith.muli %by, %cbm : index
    %n0 = arith.muli %bx, %cbn : index
    tile.pipelined %kt = %c0 to %ktiles stages(4){schedule} {{
      %k0 = arith.muli %kt, %cbk : index
      tile.copy %A[%m0, %k0], %As : memref<300x192xf16>, memref<128x64xf16, #gpu.address_space<workgroup>>
      tile.copy %B[%k0, %n0], %Bs : memref<192x424xf16>, memref<64x192xf16, #gpu.address_space<workgroup>>
      tile.gemm %As, %Bs, %Cf : memref<128x64xf16, #gpu.address_space<workgroup>>,
          memref<64x192xf16, #gpu.address_space<workgroup>>, memref<128x192xf32, #tile.fragment>
    }}
    tile.copy %Cf, %C[%m0, %n0] : memref<128x192xf32, #tile.fragment>, memref<300x424xf16>
  }}
  return
}}
}}"#
        );
        agree_after("gemm_128x192", &source, tile_tests::generate::check::DECISIONS, 9, 0);
    }
}

#[test]
fn a_grouped_gemm_whose_producer_runs_the_group_search_agrees() {
    // test/programs/grouped_gemm_tiles_small.mlir asking sm_90a for a producer warpgroup: the copies
    // read the group and rows that a loop over the group sizes at the kernel's top finds, which
    // the producer's thread runs too; against the CPU reference, on random sizes (empty groups,
    // groups of fewer rows than a tile, row tiles past the last group).
    let context = context();
    let name = "grouped_gemm_tiles_small (sm_90a, producer)";
    let program =
        std::fs::read_to_string(common::repo_root().join("test/programs/grouped_gemm_tiles_small.mlir")).unwrap();
    let asked = program.replace(
        "stages(2) {",
        // A ring of 8 makes the block run alone on a multiprocessor, which a producer needs.
        "stages(8) attributes {tile.schedule = {producer = \"warpgroup\"}} {",
    );
    assert_ne!(asked, program, "the loop to ask a producer of");
    let source = format!("module attributes {{tile.target = \"sm_90a\"}} {{\n{asked}\n}}");
    let module = rewritten(&context, name, &source, tile_tests::generate::check::DECISIONS);
    assert_eq!(
        tile_dialect::ops::find_ops(module.as_operation(), "tile.producer").len(),
        1,
        "{name}: no producer warpgroup"
    );
    let cpu = cpu_reference(&context, &program);
    for seed in [21, 22, 23] {
        agree_with(name, &module, &cpu, seed, 0);
    }
}

//! Execution on Vulkan (Debian's lavapipe in CI): the SPIR-V lowering of each test program runs on
//! seeded random inputs and must match the CPU reference element by element: within the output
//! type's tolerance, or where an element is beyond it, within the error bound the interpreter
//! gives it from the magnitudes of its terms (as `tile-run --check` judges: a sum of f16-rounded
//! terms whose rounding follows the last bit of an `exp2`).

mod common;

use tile_run::{
    CpuProgram, InterpProgram, Vulkan, VulkanProgram, Workgroups, buffer::Random, buffers, compare, compare_bounded,
    context, host_functions, tolerance,
};

/// Runs `file` (relative to the repository root) on Vulkan and on the CPU reference and compares.
fn check_on_vulkan(file: &str, seed: u64) {
    check_on_vulkan_sized(file, seed, 0);
}

/// [`check_on_vulkan`] with every dynamic size of the host arguments' tensors `dynamic`.
fn check_on_vulkan_sized(file: &str, seed: u64, dynamic: usize) {
    let path = common::repo_root().join(file);
    let path = path.to_str().unwrap();
    let context = context();
    let device = Vulkan::new().expect("a Vulkan device (CI installs mesa-vulkan-drivers: lavapipe)");
    let mut gpu_module = tile_dialect::driver::parse_file(&context, path).unwrap();
    let functions = host_functions(&gpu_module).unwrap();
    let gpu = VulkanProgram::compile(&context, &mut gpu_module, "spirv").expect("lowers to SPIR-V");
    let mut cpu_module = tile_dialect::driver::parse_file(&context, path).unwrap();
    let cpu = CpuProgram::compile(&context, &mut cpu_module).unwrap();
    for function in &functions {
        let inputs = buffers(function, &mut Random::new(seed), dynamic);
        let (mut on_gpu, mut on_cpu) = (inputs.clone(), inputs.clone());
        gpu.run(&device, &function.name, &mut on_gpu).expect("runs on Vulkan");
        cpu.run(&function.name, &mut on_cpu).unwrap();
        let over_tolerance = function.arguments.iter().enumerate().any(|(index, argument)| {
            argument.output
                && !compare(&on_gpu[index], &on_cpu[index], tolerance(argument.element))
                    .1
                    .is_empty()
        });
        let bounds = over_tolerance.then(|| {
            let interpreted = tile_dialect::driver::parse_file(&context, path).unwrap();
            let mut scratch = inputs.clone();
            InterpProgram::new(&interpreted)
                .run_bounded(&function.name, &mut scratch)
                .expect("the interpreter runs it")
        });
        for (index, argument) in function.arguments.iter().enumerate().filter(|(_, a)| a.output) {
            let errors: &[f64] = bounds.as_ref().map_or(&[], |bounds| &bounds[index]);
            let (worst, mismatches) =
                compare_bounded(&on_gpu[index], &on_cpu[index], tolerance(argument.element), errors);
            assert!(
                mismatches.is_empty(),
                "{file} %arg{index}: worst {worst:e}, first mismatches {mismatches:?}"
            );
            assert!(
                (0..on_gpu[index].len()).all(|i| !on_gpu[index].get(i).is_nan()),
                "{file}: unwritten elements"
            );
        }
    }
}

#[test]
fn matmuls_in_the_tiling_the_spirv_target_chooses_match_the_reference() {
    // Sizes of 97 (no tile divides them) and 200 (more than one tile along each dimension).
    for (seed, dynamic) in [(61, 97), (62, 200)] {
        check_on_vulkan_sized("test/programs/matmul_classes.mlir", seed, dynamic);
    }
    check_on_vulkan_sized("test/programs/matmul_f8.mlir", 63, 70);
}

#[test]
fn ragged_gemm_with_relu_matches_the_reference() {
    check_on_vulkan("test/programs/gemm_ragged_relu.mlir", 21);
}

#[test]
fn gemm_with_a_k_tile_of_no_small_divisor_stays_under_lavapipes_loop_cap() {
    // K = 65 in chunks of 1 ran past the 65535 loop trips lavapipe allows an invocation: wrong sums.
    check_on_vulkan("test/programs/gemm_i8_odd_k.mlir", 43);
}

#[test]
fn gemm_with_a_private_accumulator_matches_the_reference() {
    check_on_vulkan("test/programs/gemm_bias_fill.mlir", 25);
}

#[test]
fn multi_head_gemm_on_4d_tensors_matches_the_reference() {
    check_on_vulkan("test/programs/multi_head_scores.mlir", 33);
}

#[test]
fn batched_gemm_with_a_3d_a_matches_the_reference() {
    check_on_vulkan("test/programs/batched_gemm_relu.mlir", 36);
}

#[test]
fn gemm_with_bias_and_residual_epilogue_matches_the_reference() {
    check_on_vulkan("test/programs/gemm_bias_residual.mlir", 38);
}

#[test]
fn gemm_with_epilogue_loads_of_other_tensors_matches_the_reference() {
    check_on_vulkan("test/programs/gemm_epilogue_reads.mlir", 40);
}

#[test]
fn nd_copies_match_the_reference() {
    check_on_vulkan("test/programs/nd_copy_scale.mlir", 34);
}

#[test]
fn attention_with_a_register_a_operand_matches_the_reference() {
    check_on_vulkan("test/programs/attention_small.mlir", 42);
}

#[test]
fn flash_attention_on_4d_tensors_matches_the_reference() {
    check_on_vulkan("test/programs/attention_4d.mlir", 48);
    check_on_vulkan("test/programs/attention_4d_causal.mlir", 49);
    check_on_vulkan("test/programs/attention_lse_small.mlir", 50);
}

#[test]
fn attention_reading_one_kv_tile_as_keys_and_values_matches_the_reference() {
    check_on_vulkan("test/programs/shared_kv_attention.mlir", 51);
    check_on_vulkan("test/programs/shared_p_attention.mlir", 52);
}

#[test]
fn block_sparse_attention_reading_its_key_blocks_from_a_table_matches_the_reference() {
    check_on_vulkan("test/programs/block_sparse_attention_small.mlir", 53);
}

#[test]
fn row_softmax_of_a_64x128_tile_in_registers_matches_the_reference() {
    check_on_vulkan("test/programs/row_softmax_64x128.mlir", 44);
}

#[test]
fn row_softmax_matches_the_reference() {
    check_on_vulkan("test/programs/row_softmax.mlir", 22);
}

#[test]
fn softmax_example_matches_the_reference() {
    check_on_vulkan("examples/softmax.mlir", 24);
}

#[test]
fn ragged_gemm_example_matches_the_reference() {
    // 1000x1504x704 in 11 steps of 128x128x64: more loop iterations per invocation than lavapipe's
    // 65535 unless the K loop's chunks unroll (see cpu::compute::lower_gemm).
    check_on_vulkan("examples/gemm_ragged_relu.mlir", 26);
}

#[test]
fn gemm_relu_example_corner_tiles_match_dot_products() {
    // The 4096^3 example would take lavapipe about 20 minutes whole: run the first and the last of
    // its 32x32 workgroups, check each of their elements against a float64 dot product with the
    // ReLU, and check that nothing else was written.
    let path = common::repo_root().join("examples/gemm_relu.mlir");
    let context = context();
    let device = Vulkan::new().expect("a Vulkan device (lavapipe in CI)");
    let mut module = tile_dialect::driver::parse_file(&context, path.to_str().unwrap()).unwrap();
    let function = host_functions(&module).unwrap().remove(0);
    let gpu = VulkanProgram::compile(&context, &mut module, "spirv").expect("lowers to SPIR-V");
    let mut data = buffers(&function, &mut Random::new(27), 0);
    let (n, tile) = (4096usize, 128usize);
    let corners = [(0usize, 0usize), (31, 31)];
    for (bx, by) in corners {
        let workgroups = Workgroups {
            base: [bx as u32, by as u32, 0],
            count: [1, 1, 1],
        };
        gpu.run_workgroups(&device, &function.name, &mut data, Some(workgroups))
            .expect("runs on Vulkan");
    }
    let (a, b, c) = (&data[0], &data[1], &data[2]);
    for (bx, by) in corners {
        let rows: Vec<Vec<f64>> = (by * tile..(by + 1) * tile)
            .map(|i| (0..n).map(|k| a.get(i * n + k)).collect())
            .collect();
        let columns: Vec<Vec<f64>> = (bx * tile..(bx + 1) * tile)
            .map(|j| (0..n).map(|k| b.get(k * n + j)).collect())
            .collect();
        for (di, row) in rows.iter().enumerate() {
            for (dj, column) in columns.iter().enumerate() {
                let dot: f64 = row.iter().zip(column).map(|(x, y)| x * y).sum();
                let expected = dot.max(0.0);
                let got = c.get((by * tile + di) * n + bx * tile + dj);
                assert!(
                    (got - expected).abs() <= 4e-3 * expected.abs().max(1.0),
                    "block ({bx}, {by}) element ({di}, {dj}): vulkan {got}, float64 {expected}"
                );
            }
        }
    }
    let written = (0..c.len()).filter(|&index| !c.get(index).is_nan()).count();
    assert_eq!(
        written,
        corners.len() * tile * tile,
        "elements outside the two tiles were written"
    );
}

#[test]
fn gemm_with_a_row_softmax_epilogue_matches_the_reference() {
    check_on_vulkan("test/programs/gemm_row_softmax.mlir", 28);
}

#[test]
fn reductions_match_the_reference() {
    check_on_vulkan("test/programs/reduce_kinds.mlir", 23);
}

#[test]
fn bf16_gemms_run_as_integers_on_plain_spirv() {
    check_on_vulkan("test/programs/gemm_transpose_b_bf16.mlir", 54);
}

/// The diagnostics of compiling `program` for `target`, and whether it compiled.
fn compile_diagnostics(program: &str, target: &str) -> (bool, Vec<String>) {
    let path = common::repo_root().join(program);
    let context = context();
    let diagnostics = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = diagnostics.clone();
    context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut().push(diagnostic.to_string());
        true
    });
    let mut module = tile_dialect::driver::parse_file(&context, path.to_str().unwrap()).unwrap();
    let compiled = VulkanProgram::compile(&context, &mut module, target).is_ok();
    let diagnostics = diagnostics.borrow().clone();
    (compiled, diagnostics)
}

#[test]
fn bf16_gemms_leave_cooperative_matrices_with_a_warning() {
    // Cooperative matrices take f16 here: a bf16 gemm runs on the threads, and says so.
    let (compiled, diagnostics) = compile_diagnostics("test/programs/gemm_transpose_b_bf16.mlir", "spirv-coopmat");
    assert!(compiled, "{diagnostics:?}");
    assert!(
        diagnostics.iter().any(|d| d.contains(
            "multiplies bf16 by bf16 into f32; cooperative matrices on spirv-coopmat take f16 x f16 -> f32; it runs without cooperative matrices"
        )),
        "{diagnostics:?}"
    );
}

#[test]
fn eight_bit_floats_are_rejected_on_cooperative_matrices_with_a_message() {
    let (compiled, diagnostics) = compile_diagnostics("test/programs/blockscaled_fp8_gemm_small.mlir", "spirv-coopmat");
    assert!(!compiled);
    assert!(
        diagnostics
            .iter()
            .any(|d| d
                .contains("uses f8E4M3FN, which spirv-coopmat does not lower yet; use f16 or f32, or target spirv")),
        "{diagnostics:?}"
    );
}

#[test]
fn every_math_function_matches_the_reference() {
    // erf, atan2, cbrt, exp2, powf of negative numbers, ... reach SPIR-V through
    // tile-math-to-spirv; the CPU reference calls libm.
    check_on_vulkan("test/programs/math_functions.mlir", 27);
}

#[test]
fn math_functions_on_f16_match_the_reference() {
    // f16 math ops are computed in f32 on SPIR-V (tile-math-to-spirv), and on the CPU.
    check_on_vulkan("test/programs/math_functions_f16.mlir", 28);
}

#[test]
fn integer_atomics_of_several_workgroups_match_the_reference() {
    check_on_vulkan("test/programs/atomic_counts_i32.mlir", 50);
}

#[test]
fn four_bit_weights_packed_two_to_a_byte_match_the_reference() {
    check_on_vulkan("test/programs/dequant_gemm_w4.mlir", 52);
}

#[test]
fn bf16_held_as_integers_matches_the_reference() {
    check_on_vulkan("test/programs/bf16_values.mlir", 53);
}

#[test]
fn f8_held_as_bytes_matches_the_reference() {
    check_on_vulkan("test/programs/f8_values.mlir", 54);
}

#[test]
fn saturating_copies_into_8_bit_floats_match_the_reference() {
    check_on_vulkan("test/programs/f8_saturate.mlir", 61);
}

#[test]
fn tiles_across_middle_dimensions_match_the_reference() {
    check_on_vulkan("test/programs/head_tiles.mlir", 55);
}

#[test]
fn mamba2_steps_match_the_reference() {
    check_on_vulkan("test/programs/mamba2_chunk_scan_small.mlir", 56);
    check_on_vulkan("test/programs/mamba2_chunk_state_small.mlir", 57);
    check_on_vulkan("test/programs/mamba2_state_passing_small.mlir", 58);
}

#[test]
fn scans_of_every_kind_match_the_reference() {
    check_on_vulkan("test/programs/scan_kinds.mlir", 59);
}

#[test]
fn scans_of_fragments_in_registers_match_the_reference() {
    check_on_vulkan("test/programs/scan_registers.mlir", 60);
}

#[test]
fn flash_decoding_splits_and_combine_match_the_reference() {
    check_on_vulkan("test/programs/flash_decoding_small.mlir", 61);
}

#[test]
fn block_scaled_fp8_gemm_matches_the_reference() {
    check_on_vulkan("test/programs/blockscaled_fp8_gemm_small.mlir", 62);
}

#[test]
fn block_scaled_fp8_gemm_with_its_scales_in_shared_tiles_matches_the_reference() {
    // The activation scales copied into a shared tile each step, the weight scales once.
    check_on_vulkan("test/programs/blockscaled_fp8_gemm_shared_scales_small.mlir", 64);
}

#[test]
fn tensors_of_dynamic_shape_bound_as_runtime_arrays_match_the_reference() {
    // A size that clips the last tiles, and a multiple of them.
    check_on_vulkan_sized("test/programs/gemm_dynamic_small.mlir", 59, 150);
    check_on_vulkan_sized("test/programs/gemm_dynamic_small.mlir", 60, 64);
}

#[test]
fn rounding_integer_divisions_inside_kernels_match_the_reference() {
    check_on_vulkan("test/programs/integer_divisions.mlir", 61);
}

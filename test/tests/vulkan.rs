//! Execution on Vulkan (Debian's lavapipe in CI): the SPIR-V lowering of each test program runs on
//! seeded random inputs and must match the CPU reference element by element.

mod common;

use tile_run::{
    CpuProgram, VulkanProgram, buffer::Random, buffers, compare, context, host_functions,
    tolerance, Vulkan,
};

/// Runs `file` (relative to the repository root) on Vulkan and on the CPU reference and compares.
fn check_on_vulkan(file: &str, seed: u64) {
    let path = common::repo_root().join(file);
    let path = path.to_str().unwrap();
    let context = context();
    let device =
        Vulkan::new().expect("a Vulkan device (CI installs mesa-vulkan-drivers: lavapipe)");
    let mut gpu_module = tile_dialect::driver::parse_file(&context, path).unwrap();
    let functions = host_functions(&gpu_module).unwrap();
    let gpu = VulkanProgram::compile(&context, &mut gpu_module, "spirv").expect("lowers to SPIR-V");
    let mut cpu_module = tile_dialect::driver::parse_file(&context, path).unwrap();
    let cpu = CpuProgram::compile(&context, &mut cpu_module).unwrap();
    for function in &functions {
        let inputs = buffers(function, &mut Random::new(seed), 0);
        let (mut on_gpu, mut on_cpu) = (inputs.clone(), inputs);
        gpu.run(&device, &function.name, &mut on_gpu)
            .expect("runs on Vulkan");
        cpu.run(&function.name, &mut on_cpu).unwrap();
        for (index, argument) in function
            .arguments
            .iter()
            .enumerate()
            .filter(|(_, a)| a.output)
        {
            let (worst, mismatches) =
                compare(&on_gpu[index], &on_cpu[index], tolerance(argument.element));
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
fn ragged_gemm_with_relu_matches_the_reference() {
    check_on_vulkan("test/programs/gemm_ragged_relu.mlir", 21);
}

#[test]
fn gemm_with_a_private_accumulator_matches_the_reference() {
    check_on_vulkan("test/programs/gemm_bias_fill.mlir", 25);
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
fn reductions_match_the_reference() {
    check_on_vulkan("test/programs/reduce_kinds.mlir", 23);
}

#[test]
fn bf16_is_rejected_with_a_message() {
    let path = common::repo_root().join("test/programs/gemm_transpose_b_bf16.mlir");
    let context = context();
    let diagnostics = std::rc::Rc::new(std::cell::RefCell::new(Vec::<String>::new()));
    let sink = diagnostics.clone();
    context.attach_diagnostic_handler(move |diagnostic| {
        sink.borrow_mut().push(diagnostic.to_string());
        true
    });
    let mut module = tile_dialect::driver::parse_file(&context, path.to_str().unwrap()).unwrap();
    assert!(VulkanProgram::compile(&context, &mut module, "spirv").is_err());
    let diagnostics = diagnostics.borrow();
    assert!(
        diagnostics
            .iter()
            .any(|d| d.contains("uses bf16, which the SPIR-V lowering does not support")),
        "{diagnostics:?}"
    );
}

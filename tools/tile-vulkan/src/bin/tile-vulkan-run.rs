//! `tile-vulkan-run KERNEL.json [--seed N] [--repeat N] [--out DIR] [--dynamic-size N]`: runs one
//! kernel that `tile-compile --target spirv|spirv-coopmat` wrote (the manifest, and the `.spv`
//! beside it) on the first Vulkan device, with no MLIR: inputs seeded uniform in [-1, 1), outputs
//! pre-filled with NaN, every dynamic size of a tensor N (default 256), the grid and the sizes the
//! kernel reads computed from them.
//! Writes every buffer after the run to `DIR/binding<N>.bin` (raw, row-major) and prints a JSON
//! line: the device, the bindings, and with `--repeat N` the mean seconds per dispatch over N
//! back-to-back dispatches. The checking is the caller's (bench/vulkan.py compares with torch).

use half::{bf16, f16};
use std::{path::PathBuf, process::ExitCode};
use tile_vulkan::{SpirvKernel, Vulkan, spirv_words};

const USAGE: &str = "usage: tile-vulkan-run KERNEL.json [--seed N] [--repeat N] [--out DIR] [--dynamic-size N]";

/// The host arguments' shapes, as the bindings give them with every dynamic size set.
struct Shapes(Vec<(usize, Vec<usize>)>);

impl tile_manifest::HostArguments for Shapes {
    fn size(&self, argument: usize, dim: usize) -> Option<i64> {
        let (_, shape) = self.0.iter().find(|(bound, _)| *bound == argument)?;
        shape.get(dim).map(|size| *size as i64)
    }

    /// Each tensor is bound at the start of a buffer of its own (offset 0), which the device's
    /// memory alignment (at least 16 bytes on every device) keeps aligned.
    fn address(&self, argument: usize) -> Option<i64> {
        self.0.iter().any(|(bound, _)| *bound == argument).then_some(0)
    }
}

/// A xorshift64* stream of uniform values in [-1, 1).
struct Random(u64);

impl Random {
    fn next(&mut self) -> f64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        let bits = self.0.wrapping_mul(0x2545_f491_4f6c_dd1d) >> 11;
        bits as f64 / (1u64 << 53) as f64 * 2.0 - 1.0
    }
}

fn buffer(element: &str, len: usize, mut value: impl FnMut() -> f64) -> Result<Vec<u8>, String> {
    Ok(match element {
        "f16" => (0..len).flat_map(|_| f16::from_f64(value()).to_le_bytes()).collect(),
        "bf16" => (0..len).flat_map(|_| bf16::from_f64(value()).to_le_bytes()).collect(),
        "f32" => (0..len).flat_map(|_| (value() as f32).to_le_bytes()).collect(),
        other => {
            return Err(format!(
                "element type {other} is not supported by tile-vulkan-run (f16, bf16, f32)"
            ));
        }
    })
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut manifest, mut seed, mut repeat, mut out, mut dynamic) = (None, 1u64, 0u32, PathBuf::from("."), 256usize);
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--seed" => seed = value("--seed")?.parse().map_err(|_| "--seed takes a number")?,
            "--repeat" => repeat = value("--repeat")?.parse().map_err(|_| "--repeat takes a number")?,
            "--out" => out = PathBuf::from(value("--out")?),
            "--dynamic-size" => {
                dynamic = value("--dynamic-size")?
                    .parse()
                    .map_err(|_| "--dynamic-size takes a number")?
            }
            "-h" | "--help" => return Err(USAGE.into()),
            _ if arg.starts_with('-') => return Err(format!("unknown option {arg}\n{USAGE}")),
            _ => manifest = Some(PathBuf::from(arg)),
        }
    }
    let manifest = manifest.ok_or(USAGE)?;
    let read = |path: &PathBuf| std::fs::read(path).map_err(|error| format!("{}: {error}", path.display()));
    let text = String::from_utf8(read(&manifest)?).map_err(|_| "the manifest is not UTF-8")?;
    let spirv = spirv_words(&read(&manifest.with_extension("spv"))?)?;
    let kernel = SpirvKernel::from_manifest(&text, spirv)?;
    let shape = |binding: &tile_vulkan::Binding| -> Vec<usize> {
        binding.shape.iter().map(|size| size.unwrap_or(dynamic)).collect()
    };
    let shapes = Shapes(
        kernel
            .bindings
            .iter()
            .filter_map(|binding| Some((binding.host_argument?, shape(binding))))
            .collect(),
    );
    let kernel = kernel.with_grid(&shapes)?;
    let values = kernel.values(&shapes)?;
    let device = Vulkan::new()?;
    let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut buffers = kernel
        .bindings
        .iter()
        .zip(values)
        .map(|(binding, value)| {
            let len = shape(binding).iter().product();
            match value {
                Some(bytes) => Ok(bytes),
                None if binding.written => buffer(&binding.element, len, || f64::NAN),
                None => buffer(&binding.element, len, || random.next()),
            }
        })
        .collect::<Result<Vec<_>, _>>()?;
    let mut views: Vec<&mut [u8]> = buffers.iter_mut().map(Vec::as_mut_slice).collect();
    let seconds = device.run(&kernel, &mut views, repeat)?;
    std::fs::create_dir_all(&out).map_err(|error| format!("{}: {error}", out.display()))?;
    let mut described = Vec::new();
    for (index, (binding, bytes)) in kernel.bindings.iter().zip(&buffers).enumerate() {
        let path = out.join(format!("binding{index}.bin"));
        std::fs::write(&path, bytes).map_err(|error| format!("{}: {error}", path.display()))?;
        described.push(format!(
            "{{\"file\": \"{}\", \"shape\": {:?}, \"element\": \"{}\", \"written\": {}}}",
            path.display(),
            shape(binding),
            binding.element,
            binding.written
        ));
    }
    println!(
        "{{\"device\": \"{}\", \"entry\": \"{}\", \"subgroup_size\": {}, \"max_shared_bytes\": {}, \"seconds\": {}, \"bindings\": [{}]}}",
        device.name,
        kernel.entry,
        device.subgroup_size,
        device.max_shared_bytes,
        seconds.map_or("null".into(), |s| format!("{s:e}")),
        described.join(", ")
    );
    Ok(())
}

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}

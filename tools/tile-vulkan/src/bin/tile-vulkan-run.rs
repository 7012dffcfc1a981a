//! `tile-vulkan-run KERNEL.json [--seed N] [--repeat N] [--out DIR]`: runs one kernel that
//! `tile-compile --target spirv|spirv-coopmat` wrote (the manifest, and the `.spv` beside it) on the
//! first Vulkan device, with no MLIR: inputs seeded uniform in [-1, 1), outputs pre-filled with NaN.
//! Writes every buffer after the run to `DIR/binding<N>.bin` (raw, row-major) and prints a JSON
//! line: the device, the bindings, and with `--repeat N` the mean seconds per dispatch over N
//! back-to-back dispatches. The checking is the caller's (bench/vulkan.py compares with torch).

use half::f16;
use std::{path::PathBuf, process::ExitCode};
use tile_vulkan::{SpirvKernel, Vulkan, spirv_words};

const USAGE: &str = "usage: tile-vulkan-run KERNEL.json [--seed N] [--repeat N] [--out DIR]";

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
        "f32" => (0..len).flat_map(|_| (value() as f32).to_le_bytes()).collect(),
        other => {
            return Err(format!(
                "element type {other} is not supported by tile-vulkan-run (f16, f32)"
            ));
        }
    })
}

fn run() -> Result<(), String> {
    let mut args = std::env::args().skip(1);
    let (mut manifest, mut seed, mut repeat, mut out) = (None, 1u64, 0u32, PathBuf::from("."));
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or(format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--seed" => seed = value("--seed")?.parse().map_err(|_| "--seed takes a number")?,
            "--repeat" => repeat = value("--repeat")?.parse().map_err(|_| "--repeat takes a number")?,
            "--out" => out = PathBuf::from(value("--out")?),
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
    let device = Vulkan::new()?;
    let mut random = Random(seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1);
    let mut buffers = kernel
        .bindings
        .iter()
        .map(|binding| {
            let len = binding.shape.iter().product();
            if binding.written {
                buffer(&binding.element, len, || f64::NAN)
            } else {
                buffer(&binding.element, len, || random.next())
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
            binding.shape,
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

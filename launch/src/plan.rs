//! From a manifest and the host arguments to everything a launch passes the driver, checking each
//! argument the manifest names: the whole launch decided without a GPU.
//!
//! Calling conventions (what the compiler's kernels take, in order):
//! - sm_90a tensor-core kernels (`params`): per `tensor_map` parameter a pointer to the encoded
//!   `CUtensorMap` in device memory; per `scalar` an `i64`.
//! - plain- and registers-strategy kernels (`bindings`): per binding an MLIR memref descriptor
//!   spread over parameters: allocated pointer, aligned pointer, offset, sizes, strides (`i64`s);
//!   then, for a registers kernel whose copies run on TMA, its `params` (tensor maps).

use crate::{
    Error, Result,
    args::{Arg, Host, Tensor},
    tensor_map::{TensorMapParams, tensor_map_params},
};
use tile_manifest::{Manifest, ParamKind};

/// One kernel parameter, before the driver sees it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Param {
    /// A tensor map, to encode and copy to the device; the kernel takes its device address.
    TensorMap(TensorMapParams),
    /// A device address.
    Pointer(u64),
    /// A 64-bit integer.
    I64(i64),
}

/// Everything a launch passes the driver.
#[derive(Clone, Debug, PartialEq)]
pub struct LaunchPlan {
    /// Whether the kernel runs for these arguments: where the host function launches it under a
    /// condition (its manifest's `when`), a launch where it does not hold launches nothing.
    pub runs: bool,
    /// Blocks per dimension (zeros where the kernel does not run).
    pub grid: [u32; 3],
    /// Threads per block.
    pub block: [u32; 3],
    /// Dynamic shared memory in bytes.
    pub dynamic_shared_bytes: u32,
    /// The kernel's parameters, in order.
    pub params: Vec<Param>,
    /// For each parameter, the host argument whose device address it holds (tensor maps and
    /// memref pointers), `None` for the values that do not depend on an address: what a
    /// [`crate::PreparedLaunch`] refreshes when the same signature is launched on other tensors.
    pub sources: Vec<Option<usize>>,
    /// The checks of argument data the launch makes first (the manifest's `checks`), each with
    /// what reading its entries needs.
    pub checks: Vec<DataCheck>,
}

/// A check of one host tensor's entries before a launch: where they are and how they are read.
#[derive(Clone, Debug, PartialEq)]
pub struct DataCheck {
    /// The host argument.
    pub argument: usize,
    /// Its entries.
    pub count: usize,
    /// Bytes an entry (4 for i32, 8 for i64).
    pub entry_bytes: usize,
    /// The size of the dimension it partitions, for these arguments.
    pub within: i64,
    /// The rule.
    pub check: tile_manifest::Check,
}

impl DataCheck {
    /// Reads the entries from their bytes (little-endian, as the device stores them) and checks
    /// them.
    pub fn check_bytes(&self, bytes: &[u8]) -> Result<()> {
        let entries: Vec<i64> = bytes
            .chunks_exact(self.entry_bytes)
            .map(|entry| match *entry {
                [a, b, c, d] => i64::from(i32::from_le_bytes([a, b, c, d])),
                [a, b, c, d, e, f, g, h] => i64::from_le_bytes([a, b, c, d, e, f, g, h]),
                _ => 0, // entries are 4 or 8 bytes (data_checks)
            })
            .collect();
        Ok(self.check.check_within(&entries, self.within)?)
    }
}

/// The data checks of `manifest` for `args`: each checked argument is a contiguous 1-D i32 or i64
/// tensor.
fn data_checks(manifest: &Manifest, args: &[Arg]) -> Result<Vec<DataCheck>> {
    let entry = &manifest.entry;
    manifest
        .checks
        .iter()
        .flatten()
        .map(|check| {
            let name = format!("argument {} ({} of {entry})", check.argument, check.partition.word());
            let tensor = match args.get(check.argument) {
                Some(Arg::Tensor(tensor)) => tensor,
                _ => return Err(Error::Argument(format!("{name}: expects a tensor"))),
            };
            let entry_bytes = match tensor.element.as_str() {
                "i32" => 4,
                "i64" => 8,
                other => {
                    return Err(Error::Argument(format!(
                        "{name}: expects element type i32 or i64, but got {other}"
                    )));
                }
            };
            if tensor.shape.len() != 1 || !tensor.is_contiguous() {
                return Err(Error::Argument(format!(
                    "{name}: expects a contiguous 1-D tensor, but got shape {:?} and strides {:?}",
                    tensor.shape, tensor.strides
                )));
            }
            Ok(DataCheck {
                argument: check.argument,
                count: tensor.shape[0].max(0) as usize,
                entry_bytes,
                within: check.within.evaluate(&Host(args))?,
                check: check.clone(),
            })
        })
        .collect()
}

/// Returns the tensor argument `argument` as the kernel parameter `role` wants it (element type,
/// rank, static sizes), or an error naming it.
fn tensor_argument<'a>(
    args: &'a [Arg],
    argument: i64,
    role: &str,
    entry: &str,
    element: &str,
    shape: &[Option<i64>],
) -> Result<&'a Tensor> {
    let name = format!("argument {argument} ({role} of {entry})");
    let tensor = match usize::try_from(argument).ok().and_then(|index| args.get(index)) {
        Some(Arg::Tensor(tensor)) => tensor,
        Some(Arg::Scalar(_)) => {
            return Err(Error::Argument(format!("{name}: expects a tensor, but got an integer")));
        }
        None => {
            return Err(Error::Argument(format!(
                "{name}: expects a tensor, but got only {} argument(s)",
                args.len()
            )));
        }
    };
    if tensor.element != element {
        return Err(Error::Argument(format!(
            "{name}: expects element type {element}, but got {}",
            tensor.element
        )));
    }
    if tensor.shape.len() != shape.len() || tensor.strides.len() != shape.len() {
        return Err(Error::Argument(format!(
            "{name}: expects {} dimensions, but got {} (with {} strides)",
            shape.len(),
            tensor.shape.len(),
            tensor.strides.len()
        )));
    }
    let show = |sizes: &mut dyn Iterator<Item = String>| sizes.collect::<Vec<_>>().join("x");
    let matches = shape
        .iter()
        .zip(&tensor.shape)
        .all(|(expected, size)| expected.is_none_or(|expected| expected == *size));
    if !matches || tensor.shape.iter().any(|size| *size < 0) {
        return Err(Error::Argument(format!(
            "{name}: expects shape {}, but got {}",
            show(
                &mut shape
                    .iter()
                    .map(|size| size.map_or("?".into(), |size| size.to_string()))
            ),
            show(&mut tensor.shape.iter().map(i64::to_string))
        )));
    }
    Ok(tensor)
}

/// Returns the MLIR memref descriptor of tensor argument `argument` spread over parameters
/// (allocated and aligned pointer, offset, sizes, strides), after checking it like
/// [`tensor_argument`] and that it is row-major contiguous: the kernel's memref types have the
/// identity layout, so it indexes rows by their sizes.
fn memref_descriptor(
    args: &[Arg],
    argument: i64,
    role: &str,
    entry: &str,
    element: &str,
    shape: &[Option<i64>],
) -> Result<Vec<Param>> {
    let tensor = tensor_argument(args, argument, role, entry, element, shape)?;
    if !tensor.is_contiguous() {
        return Err(Error::Argument(format!(
            "argument {argument} ({role} of {entry}): expects a row-major contiguous tensor, but got strides {:?}",
            tensor.strides
        )));
    }
    let mut params = vec![
        Param::Pointer(tensor.address),
        Param::Pointer(tensor.address),
        Param::I64(0),
    ];
    params.extend(
        tensor
            .shape
            .iter()
            .chain(&tensor.strides)
            .map(|value| Param::I64(*value)),
    );
    Ok(params)
}

/// Checks the host arguments `args` against `manifest` and returns the launch, or the first
/// mismatch, naming the argument. Only CUDA calling conventions are planned (sm_90a manifests).
pub fn plan_launch(manifest: &Manifest, args: &[Arg]) -> Result<LaunchPlan> {
    if !manifest.target.starts_with("sm_") {
        return Err(Error::Unsupported(format!(
            "{}: a kernel compiled for {} is not launched through CUDA",
            manifest.entry, manifest.target
        )));
    }
    let entry = &manifest.entry;
    let mut params = Vec::new();
    let mut sources = Vec::new();
    let source = |argument: i64| usize::try_from(argument).ok();
    // A registers-strategy kernel takes its bindings' descriptors first, then the tensor maps
    // of its TMA copies (`params`); a tensor-core kernel has params only.
    for binding in manifest.bindings.iter().flatten() {
        let role = format!("binding {}", binding.binding);
        let descriptor = memref_descriptor(
            args,
            binding.host_argument,
            &role,
            entry,
            &binding.element,
            &binding.shape,
        )?;
        sources.extend(descriptor_sources(&descriptor, source(binding.host_argument)));
        params.extend(descriptor);
    }
    if let Some(kernel_params) = &manifest.params {
        for param in kernel_params {
            match &param.kind {
                ParamKind::TensorMap {
                    host_argument,
                    shape,
                    element,
                    box_,
                    swizzle,
                    ..
                } => {
                    let tensor = tensor_argument(args, *host_argument, &param.role, entry, element, shape)?;
                    let name = format!("argument {host_argument} ({} of {entry})", param.role);
                    params.push(Param::TensorMap(tensor_map_params(&name, tensor, box_, *swizzle)?));
                    sources.push(source(*host_argument));
                }
                ParamKind::Scalar { value, .. } => {
                    params.push(Param::I64(value.evaluate(&Host(args))?));
                    sources.push(None);
                }
                ParamKind::Memref {
                    host_argument,
                    shape: Some(shape),
                    element: Some(element),
                    ..
                } => {
                    let descriptor = memref_descriptor(args, *host_argument, &param.role, entry, element, shape)?;
                    sources.extend(descriptor_sources(&descriptor, source(*host_argument)));
                    params.extend(descriptor);
                }
                ParamKind::Memref { .. } => {
                    return Err(Error::Unsupported(format!(
                        "{entry}: a memref parameter without its shape and element type"
                    )));
                }
            }
        }
    }
    let dynamic_shared_bytes = manifest.dynamic_shared_bytes.unwrap_or(0);
    // A grid is computed only where the kernel runs (the other branch's may not be one), or may
    // run for other tensors of these shapes (a condition on their addresses).
    let runs = manifest.runs(&Host(args))?;
    let grid = if runs {
        manifest.evaluate_grid(&Host(args))?
    } else if manifest.when.as_ref().is_some_and(tile_manifest::Expr::reads_addresses) {
        manifest.evaluate_grid(&Host(args)).unwrap_or([0; 3])
    } else {
        [0; 3]
    };
    Ok(LaunchPlan {
        runs,
        grid,
        block: manifest.threads(),
        dynamic_shared_bytes: u32::try_from(dynamic_shared_bytes)
            .map_err(|_| Error::Unsupported(format!("{entry}: {dynamic_shared_bytes} bytes of shared memory")))?,
        params,
        sources,
        checks: data_checks(manifest, args)?,
    })
}

/// The sources of a memref descriptor's parameters: its two pointers hold the argument's address.
fn descriptor_sources(descriptor: &[Param], argument: Option<usize>) -> impl Iterator<Item = Option<usize>> + '_ {
    descriptor.iter().map(move |param| match param {
        Param::Pointer(_) => argument,
        _ => None,
    })
}

#[cfg(test)]
mod tests;

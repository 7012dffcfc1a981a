//! The CUDA driver boundary (the only module besides [`crate::capi`] with `unsafe`): loading a
//! kernel's PTX into the current context, encoding tensor maps, launching on a stream.
//!
//! The driver library is loaded at first use (`cudarc`'s dynamic loading); where it is missing,
//! [`Kernel::load`] returns [`Error::Cuda`] instead of panicking.

use crate::{
    Error, Result,
    args::{Arg, Host},
    plan::{DataCheck, Param, plan_launch},
    tensor_map::{DataType, Swizzle, TensorMapParams},
};
use cudarc::driver::sys;
use std::{ffi::c_void, path::Path, sync::Arc};
use tile_manifest::{Manifest, ParamKind};

fn check(result: sys::CUresult, what: &str) -> Result<()> {
    if result == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes a pointer to a static string or leaves it null.
    let name = unsafe {
        if sys::cuGetErrorString(result, &mut text) == sys::CUresult::CUDA_SUCCESS && !text.is_null() {
            std::ffi::CStr::from_ptr(text).to_string_lossy().into_owned()
        } else {
            format!("{result:?}")
        }
    };
    Err(Error::Cuda(format!("{what}: {name}")))
}

/// Returns whether the CUDA driver library can be loaded on this machine.
pub fn driver_present() -> bool {
    // SAFETY: only tries to open the library.
    unsafe { sys::is_culib_present() }
}

/// Makes sure a context is current on this thread (the primary context of device 0 when none
/// is), and returns the chip of its device as the compiler names it (`sm_90a` for 9.0) and the
/// device's ordinal.
fn current_chip() -> Result<(String, i32)> {
    if !driver_present() {
        return Err(Error::Cuda("the CUDA driver (libcuda.so) is not installed".into()));
    }
    // SAFETY: plain driver calls with out-pointers to locals.
    unsafe {
        check(sys::cuInit(0), "cuInit")?;
        let mut context: sys::CUcontext = std::ptr::null_mut();
        check(sys::cuCtxGetCurrent(&mut context), "cuCtxGetCurrent")?;
        if context.is_null() {
            let mut device: sys::CUdevice = 0;
            check(sys::cuDeviceGet(&mut device, 0), "cuDeviceGet")?;
            check(
                sys::cuDevicePrimaryCtxRetain(&mut context, device),
                "cuDevicePrimaryCtxRetain",
            )?;
            check(sys::cuCtxSetCurrent(context), "cuCtxSetCurrent")?;
        }
        let mut device: sys::CUdevice = 0;
        check(sys::cuCtxGetDevice(&mut device), "cuCtxGetDevice")?;
        let (mut major, mut minor) = (0, 0);
        use sys::CUdevice_attribute::{
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR as MAJOR,
            CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR as MINOR,
        };
        check(
            sys::cuDeviceGetAttribute(&mut major, MAJOR, device),
            "cuDeviceGetAttribute",
        )?;
        check(
            sys::cuDeviceGetAttribute(&mut minor, MINOR, device),
            "cuDeviceGetAttribute",
        )?;
        Ok((chip_name(major, minor), device))
    }
}

/// Returns the compiler's name of compute capability `major.minor`: the architecture-specific
/// `a` variant for 9.0 (what `sm_90a` code needs), `sm_XY` otherwise.
pub fn chip_name(major: i32, minor: i32) -> String {
    if (major, minor) == (9, 0) {
        "sm_90a".into()
    } else {
        format!("sm_{major}{minor}")
    }
}

/// The CUDA objects of a loaded kernel, shared by the kernel and its prepared launches (the
/// module stays loaded until the last of them is dropped).
struct Loaded {
    context: sys::CUcontext,
    module: sys::CUmodule,
    function: sys::CUfunction,
}

// SAFETY: driver handles may be used from any thread; `Loaded` is never mutated after loading.
unsafe impl Send for Loaded {}
// SAFETY: as above.
unsafe impl Sync for Loaded {}

impl Drop for Loaded {
    fn drop(&mut self) {
        // SAFETY: the module was loaded by `Kernel::load` and is unloaded once, by its last owner.
        let _ = unsafe { sys::cuModuleUnload(self.module) };
    }
}

/// A kernel loaded into the current CUDA context, ready to launch.
pub struct Kernel {
    manifest: Manifest,
    /// `None` for a dry-run kernel ([`Kernel::dry_run`]).
    loaded: Option<Arc<Loaded>>,
    device: i32,
}

impl Kernel {
    /// Loads the kernel from its PTX `code` and manifest JSON into the current context (device 0's
    /// primary context when none is current); refuses a manifest of another schema, compiler
    /// version or chip before loading anything.
    pub fn load(code: &[u8], manifest: &str) -> Result<Kernel> {
        let manifest = Manifest::from_json(manifest)?;
        refuse_other_targets(&manifest)?;
        let (chip, device) = current_chip()?;
        manifest.check_loadable(&chip)?;
        let mut image = code.to_vec();
        image.push(0);
        let entry = std::ffi::CString::new(manifest.entry.clone())
            .map_err(|_| Error::Unsupported("an entry name with NUL".into()))?;
        let mut module: sys::CUmodule = std::ptr::null_mut();
        let mut context: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: `image` is NUL-terminated PTX; the out-pointers are locals. `Loaded` owns the
        // module from here on, so a failure below unloads it.
        unsafe {
            check(sys::cuCtxGetCurrent(&mut context), "cuCtxGetCurrent")?;
            check(
                sys::cuModuleLoadData(&mut module, image.as_ptr().cast()),
                "cuModuleLoadData",
            )?;
            let mut loaded = Loaded {
                context,
                module,
                function: std::ptr::null_mut(),
            };
            check(
                sys::cuModuleGetFunction(&mut loaded.function, module, entry.as_ptr()),
                "cuModuleGetFunction",
            )?;
            let shared = manifest.dynamic_shared_bytes.unwrap_or(0);
            // The default limit (48 KiB) counts the kernel's static shared memory too (a byte
            // for the dynamic array's symbol): raise it for any dynamic shared memory.
            if shared > 0 {
                use sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX_SHARED;
                check(
                    sys::cuFuncSetAttribute(loaded.function, MAX_SHARED, shared as i32),
                    "cuFuncSetAttribute",
                )?;
            }
            Ok(Kernel {
                manifest,
                loaded: Some(Arc::new(loaded)),
                device,
            })
        }
    }

    /// A kernel that is never loaded: its launches check and plan every argument as a real
    /// launch on CUDA device `device` does and prepare the kernel parameters, then skip every
    /// driver call (no tensor map is encoded, nothing is launched). For testing argument
    /// handling and measuring the host-side cost of a launch on a machine without a GPU. The
    /// manifest is refused as [`Kernel::load`] refuses it, its own chip standing for the device's.
    pub fn dry_run(manifest: &str, device: i32) -> Result<Kernel> {
        let manifest = Manifest::from_json(manifest)?;
        refuse_other_targets(&manifest)?;
        manifest.check_loadable(&manifest.target.clone())?;
        Ok(Kernel {
            manifest,
            loaded: None,
            device,
        })
    }

    /// Loads `<prefix>.ptx` and `<prefix>.json`, as `tile-compile` writes them.
    pub fn load_files(prefix: &Path) -> Result<Kernel> {
        let read = |extension: &str| {
            let path = prefix.with_extension(extension);
            std::fs::read(&path).map_err(|error| Error::Unsupported(format!("{}: {error}", path.display())))
        };
        let manifest =
            String::from_utf8(read("json")?).map_err(|_| Error::Unsupported("a manifest that is not UTF-8".into()))?;
        Kernel::load(&read("ptx")?, &manifest)
    }

    /// Returns the kernel's manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Returns the ordinal of the CUDA device the kernel was loaded on: tensors on another device
    /// are not its arguments.
    pub fn device(&self) -> i32 {
        self.device
    }

    /// Checks `args` against the manifest and prepares launches of this argument signature
    /// (element types, sizes, strides, integer values): grid, block and every kernel parameter
    /// but the tensors' addresses, which [`PreparedLaunch::launch`] takes.
    pub fn prepare(&self, args: &[Arg]) -> Result<PreparedLaunch> {
        let plan = plan_launch(&self.manifest, args)?;
        // The plan's tensor maps are the manifest's tensor_map parameters, in order.
        let mut roles = self
            .manifest
            .params
            .iter()
            .flatten()
            .filter(|param| matches!(param.kind, ParamKind::TensorMap { .. }))
            .map(|param| format!("{} of {}", param.role, self.manifest.entry));
        let slots = plan
            .params
            .into_iter()
            .zip(plan.sources)
            .map(|(param, source)| match (param, source) {
                (Param::TensorMap(params), source) => Slot::TensorMap {
                    // Every tensor map has its argument (a negative one was refused).
                    argument: source.unwrap_or(usize::MAX),
                    params,
                    role: roles.next().unwrap_or_default(),
                },
                (Param::Pointer(_), Some(argument)) => Slot::Address(argument),
                (Param::Pointer(address), None) => Slot::Value(address),
                (Param::I64(value), _) => Slot::Value(value as u64),
            })
            .collect();
        Ok(PreparedLaunch {
            loaded: self.loaded.clone(),
            entry: self.manifest.entry.clone(),
            arguments: args.len(),
            runs: plan.runs,
            condition: self
                .manifest
                .when
                .clone()
                .filter(tile_manifest::Expr::reads_addresses)
                .map(|when| (when, args.to_vec())),
            grid: plan.grid,
            block: plan.block,
            dynamic_shared_bytes: plan.dynamic_shared_bytes,
            slots,
            checks: plan.checks,
        })
    }

    /// Checks `args` against the manifest and launches the kernel on `stream` (a `CUstream`; null
    /// for the default stream). Returns once the launch is queued.
    pub fn launch(&self, args: &[Arg], stream: *mut c_void) -> Result<()> {
        let addresses: Vec<u64> = args
            .iter()
            .map(|arg| match arg {
                Arg::Tensor(tensor) => tensor.address,
                Arg::Scalar(_) => 0,
            })
            .collect();
        self.prepare(args)?.launch(&addresses, stream)
    }
}

fn refuse_other_targets(manifest: &Manifest) -> Result<()> {
    if !manifest.target.starts_with("sm_") {
        return Err(Error::Unsupported(format!(
            "{}: a kernel compiled for {} is not launched through CUDA",
            manifest.entry, manifest.target
        )));
    }
    Ok(())
}

/// One kernel parameter of a prepared launch.
enum Slot {
    /// A value fixed by the signature (a size, a stride, a scalar).
    Value(u64),
    /// The address of host argument `.0`.
    Address(usize),
    /// A tensor map over host argument `argument`, encoded at each launch with its address.
    TensorMap {
        argument: usize,
        params: TensorMapParams,
        role: String,
    },
}

/// A launch of one kernel with one argument signature, checked against the manifest once
/// ([`Kernel::prepare`]): each [`PreparedLaunch::launch`] takes only the arguments' addresses
/// and a stream. It keeps the kernel's module loaded.
pub struct PreparedLaunch {
    loaded: Option<Arc<Loaded>>,
    entry: String,
    arguments: usize,
    runs: bool,
    /// A launch condition that reads the tensors' addresses (a kernel specialized on their
    /// alignment), with the arguments it was prepared for: evaluated again at each launch.
    condition: Option<(tile_manifest::Expr, Vec<Arg>)>,
    grid: [u32; 3],
    block: [u32; 3],
    dynamic_shared_bytes: u32,
    slots: Vec<Slot>,
    checks: Vec<DataCheck>,
}

impl PreparedLaunch {
    /// Returns the number of host arguments of the signature (the length `launch` takes).
    pub fn arguments(&self) -> usize {
        self.arguments
    }

    /// Returns the grid the signature launches (zeros where the kernel does not run).
    pub fn grid(&self) -> [u32; 3] {
        self.grid
    }

    /// Returns whether the kernel runs for the signature (its launch's condition holds, or it has
    /// none) on the tensors it was prepared with; a launch where it does not launches nothing. A
    /// condition on the tensors' addresses is evaluated again at each launch.
    pub fn runs(&self) -> bool {
        self.runs
    }

    /// Returns whether the kernel runs on the tensors at `addresses` (see [`Self::runs`]).
    pub fn runs_at(&self, addresses: &[u64]) -> Result<bool> {
        Ok(match &self.condition {
            Some((when, args)) => when.evaluate(&Host(&crate::args::at_addresses(args, addresses)))? != 0,
            None => self.runs,
        })
    }

    /// Launches the kernel on `stream` (a `CUstream`, null for the default stream) with
    /// `addresses[i]` the device address of host argument `i` (ignored for integers), every other
    /// property of the arguments being those the launch was prepared with. Tensor-map addresses
    /// are checked (16-byte alignment); the kernel must be launched in the context it was loaded
    /// in (made current if the thread has none).
    pub fn launch(&self, addresses: &[u64], stream: *mut c_void) -> Result<()> {
        if addresses.len() != self.arguments {
            return Err(Error::Argument(format!(
                "{}: the launch was prepared for {} argument(s), but got {}",
                self.entry,
                self.arguments,
                addresses.len()
            )));
        }
        if !self.runs_at(addresses)? {
            return Ok(());
        }
        let stream: sys::CUstream = stream.cast();
        let mut values: Vec<u64> = Vec::with_capacity(self.slots.len());
        let mut maps: Vec<sys::CUtensorMap> = Vec::new();
        for slot in &self.slots {
            values.push(match slot {
                Slot::Value(value) => *value,
                Slot::Address(argument) => addresses[*argument],
                Slot::TensorMap { argument, params, role } => {
                    let address = addresses.get(*argument).copied().unwrap_or(params.address);
                    if !address.is_multiple_of(16) {
                        return Err(Error::Argument(format!(
                            "argument {argument} ({role}): expects a 16-byte aligned address, but got {address:#x}"
                        )));
                    }
                    if self.loaded.is_some() {
                        maps.push(encode(&TensorMapParams {
                            address,
                            ..params.clone()
                        })?);
                    }
                    0 // the map's device address, below
                }
            });
        }
        let Some(loaded) = &self.loaded else {
            return Ok(()); // a dry run: checked and prepared, nothing to launch
        };
        make_current(loaded.context)?;
        for check in &self.checks {
            check_on_device(check, addresses[check.argument], stream)?;
        }
        let mut device_maps: sys::CUdeviceptr = 0;
        let result = (|| {
            if !maps.is_empty() {
                let bytes = size_of_val(&maps[..]);
                // SAFETY: a stream-ordered allocation of `maps.len()` 128-byte maps (each 64-byte
                // aligned, as the driver allocates at least 256-byte aligned), filled from `maps`
                // (the copy from pageable memory is staged before the call returns) and freed
                // after the launch on the same stream.
                unsafe {
                    check(sys::cuMemAllocAsync(&mut device_maps, bytes, stream), "cuMemAllocAsync")?;
                    check(
                        sys::cuMemcpyHtoDAsync_v2(device_maps, maps.as_ptr().cast(), bytes, stream),
                        "cuMemcpyHtoDAsync",
                    )?;
                }
                let mut next = device_maps;
                for (slot, value) in self.slots.iter().zip(values.iter_mut()) {
                    if matches!(slot, Slot::TensorMap { .. }) {
                        *value = next;
                        next += size_of::<sys::CUtensorMap>() as u64;
                    }
                }
            }
            let mut pointers: Vec<*mut c_void> = values.iter_mut().map(|value| (value as *mut u64).cast()).collect();
            let [gx, gy, gz] = self.grid;
            let [bx, by, bz] = self.block;
            // SAFETY: every parameter is 8 bytes (a pointer or an i64), in the order the kernel
            // declares them (see `plan`); `pointers` outlives the call.
            unsafe {
                check(
                    sys::cuLaunchKernel(
                        loaded.function,
                        gx,
                        gy,
                        gz,
                        bx,
                        by,
                        bz,
                        self.dynamic_shared_bytes,
                        stream,
                        pointers.as_mut_ptr(),
                        std::ptr::null_mut(),
                    ),
                    "cuLaunchKernel",
                )
            }
        })();
        if device_maps != 0 {
            // SAFETY: freed in stream order, after the launch that reads it.
            let _ = unsafe { sys::cuMemFreeAsync(device_maps, stream) };
        }
        result
    }
}

/// Reads the entries of a checked argument at `address` in the order of `stream` (after whatever
/// the stream queued writes them) and checks them: a launch whose arguments break what the kernel
/// relies on is refused before it is queued. The read waits for the stream. A stream being
/// captured into a CUDA graph cannot be read or waited for (and a replay reads whatever the
/// entries hold then): there the check is skipped, and the first such launch says so on stderr.
fn check_on_device(data: &DataCheck, address: u64, stream: sys::CUstream) -> Result<()> {
    let mut capturing = sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE;
    // SAFETY: `capturing` is written by the call.
    unsafe { check(sys::cuStreamIsCapturing(stream, &mut capturing), "cuStreamIsCapturing")? };
    if capturing != sys::CUstreamCaptureStatus::CU_STREAM_CAPTURE_STATUS_NONE {
        static SKIPPED: std::sync::Once = std::sync::Once::new();
        SKIPPED.call_once(|| {
            eprintln!(
                "tile-launch: warning: argument {} ({}) is not checked: the stream is being captured into a graph",
                data.argument,
                data.check.partition.word()
            )
        });
        return Ok(());
    }
    let mut bytes = vec![0u8; data.count * data.entry_bytes];
    if !bytes.is_empty() {
        // SAFETY: `bytes` holds the `count` entries the launch was prepared with, which the
        // argument's tensor holds at `address` (a contiguous 1-D tensor, `plan::data_checks`);
        // the stream is synchronized before `bytes` is read.
        unsafe {
            check(
                sys::cuMemcpyDtoHAsync_v2(bytes.as_mut_ptr().cast(), address, bytes.len(), stream),
                "cuMemcpyDtoHAsync",
            )?;
            check(sys::cuStreamSynchronize(stream), "cuStreamSynchronize")?;
        }
    }
    data.check_bytes(&bytes)
}

/// Makes `context` current on this thread if none is; refuses to launch while another is.
fn make_current(context: sys::CUcontext) -> Result<()> {
    let mut current: sys::CUcontext = std::ptr::null_mut();
    // SAFETY: plain driver calls with an out-pointer to a local.
    unsafe {
        check(sys::cuCtxGetCurrent(&mut current), "cuCtxGetCurrent")?;
        if current.is_null() {
            check(sys::cuCtxSetCurrent(context), "cuCtxSetCurrent")?;
        } else if current != context {
            return Err(Error::Cuda(
                "the current CUDA context is not the one the kernel was loaded in (another device's?): make the kernel's device current".into(),
            ));
        }
    }
    Ok(())
}

/// Encodes a tensor map on the host.
fn encode(params: &TensorMapParams) -> Result<sys::CUtensorMap> {
    use sys::{
        CUtensorMapDataType as T, CUtensorMapFloatOOBfill as Oob, CUtensorMapInterleave as Interleave,
        CUtensorMapL2promotion as L2, CUtensorMapSwizzle as S,
    };
    let data_type = match params.data_type {
        DataType::UInt8 => T::CU_TENSOR_MAP_DATA_TYPE_UINT8,
        DataType::Int32 => T::CU_TENSOR_MAP_DATA_TYPE_INT32,
        DataType::Float16 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
        DataType::Float32 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT32,
        DataType::Float64 => T::CU_TENSOR_MAP_DATA_TYPE_FLOAT64,
        DataType::BFloat16 => T::CU_TENSOR_MAP_DATA_TYPE_BFLOAT16,
    };
    let swizzle = match params.swizzle {
        Swizzle::None => S::CU_TENSOR_MAP_SWIZZLE_NONE,
        Swizzle::Bytes32 => S::CU_TENSOR_MAP_SWIZZLE_32B,
        Swizzle::Bytes64 => S::CU_TENSOR_MAP_SWIZZLE_64B,
        Swizzle::Bytes128 => S::CU_TENSOR_MAP_SWIZZLE_128B,
    };
    let mut map = sys::CUtensorMap { opaque: [0; 16] };
    // SAFETY: the arrays have the rank's lengths (and one stride fewer); the address is the
    // caller's device tensor, which the driver only records.
    unsafe {
        check(
            sys::cuTensorMapEncodeTiled(
                &mut map,
                data_type,
                params.rank(),
                params.address as *mut c_void,
                params.global_dim.as_ptr(),
                params.global_strides.as_ptr(),
                params.box_dim.as_ptr(),
                params.element_strides.as_ptr(),
                Interleave::CU_TENSOR_MAP_INTERLEAVE_NONE,
                swizzle,
                L2::CU_TENSOR_MAP_L2_PROMOTION_L2_128B,
                Oob::CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE,
            ),
            "cuTensorMapEncodeTiled",
        )?;
    }
    Ok(map)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chips_are_named_as_the_compiler_names_them() {
        assert_eq!(chip_name(9, 0), "sm_90a");
        assert_eq!(chip_name(8, 0), "sm_80");
        assert_eq!(chip_name(10, 0), "sm_100");
    }

    #[test]
    fn other_targets_are_refused_before_the_driver_is_touched() {
        let manifest = format!(
            r#"{{"version": 1, "compiler": "{}", "entry": "k", "target": "spirv", "grid": [1, 1, 1]}}"#,
            tile_manifest::COMPILER_VERSION
        );
        let error = Kernel::load(b"", &manifest).err().unwrap();
        assert_eq!(
            error.to_string(),
            "k: a kernel compiled for spirv is not launched through CUDA"
        );
        let error = Kernel::load(b"", r#"{"entry": "k"}"#).err().unwrap();
        assert!(error.to_string().contains("has no version"), "{error}");
    }

    #[test]
    fn a_prepared_launch_takes_the_addresses_of_its_signature() {
        let manifest = format!(
            r#"{{"version": 1, "compiler": "{}", "entry": "k", "target": "sm_90a", "workgroup_size": [128, 1, 1], "grid": [{{"argument": 1}}, 1, 1], "bindings": [{{"set": 0, "binding": 0, "host_argument": 0, "shape": [null], "element": "f32", "written": true}}]}}"#,
            tile_manifest::COMPILER_VERSION
        );
        let kernel = Kernel::dry_run(&manifest, 2).unwrap();
        assert_eq!(kernel.device(), 2);
        let args = [
            Arg::Tensor(crate::Tensor::contiguous(0x100, "f32", &[300])),
            Arg::Scalar(3),
        ];
        let prepared = kernel.prepare(&args).unwrap();
        assert_eq!((prepared.arguments(), prepared.grid()), (2, [3, 1, 1]));
        prepared.launch(&[0x200, 0], std::ptr::null_mut()).unwrap();
        let error = prepared.launch(&[0x200], std::ptr::null_mut()).unwrap_err();
        assert_eq!(
            error.to_string(),
            "k: the launch was prepared for 2 argument(s), but got 1"
        );
        kernel.launch(&args, std::ptr::null_mut()).unwrap();
        let wrong = [Arg::Tensor(crate::Tensor::contiguous(0x100, "f16", &[300]))];
        assert!(kernel.prepare(&wrong).is_err());
    }

    #[test]
    fn a_condition_on_addresses_is_evaluated_at_each_launch_of_a_prepared_signature() {
        // The aligned twin of a kernel: launched where argument 0 starts on a 16-byte boundary.
        let manifest = format!(
            r#"{{"version": 2, "compiler": "{}", "entry": "k", "target": "sm_90a", "workgroup_size": [128, 1, 1], "grid": [{{"argument": 1}}, 1, 1], "when": {{"op": "arith.cmpi eq", "args": [{{"op": "arith.remui", "args": [{{"address": 0}}, 16]}}, 0]}}, "bindings": [{{"set": 0, "binding": 0, "host_argument": 0, "shape": [null], "element": "f16", "written": true}}]}}"#,
            tile_manifest::COMPILER_VERSION
        );
        let kernel = Kernel::dry_run(&manifest, 0).unwrap();
        let args = [
            Arg::Tensor(crate::Tensor::contiguous(0x102, "f16", &[300])),
            Arg::Scalar(3),
        ];
        // Prepared on a misaligned tensor, it still has its grid for the aligned ones.
        let prepared = kernel.prepare(&args).unwrap();
        assert!(!prepared.runs());
        assert_eq!(prepared.grid(), [3, 1, 1]);
        assert!(prepared.runs_at(&[0x200, 0]).unwrap());
        assert!(!prepared.runs_at(&[0x208, 0]).unwrap());
        prepared.launch(&[0x200, 0], std::ptr::null_mut()).unwrap();
    }

    #[test]
    fn a_machine_without_cuda_gets_an_error_not_a_panic() {
        if driver_present() {
            return;
        }
        let manifest = format!(
            r#"{{"version": 1, "compiler": "{}", "entry": "k", "target": "sm_90a", "grid": [1, 1, 1]}}"#,
            tile_manifest::COMPILER_VERSION
        );
        let error = Kernel::load(b"", &manifest).err().unwrap();
        assert_eq!(error.to_string(), "CUDA: the CUDA driver (libcuda.so) is not installed");
    }
}

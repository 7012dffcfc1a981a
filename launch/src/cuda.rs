//! The CUDA driver boundary (the only module besides [`crate::capi`] with `unsafe`): loading a
//! kernel's PTX into the current context, encoding tensor maps, launching on a stream.
//!
//! The driver library is loaded at first use (`cudarc`'s dynamic loading); where it is missing,
//! [`Kernel::load`] returns [`Error::Cuda`] instead of panicking.

use crate::{
    Error, Result,
    args::Arg,
    plan::{Param, plan_launch},
    tensor_map::{DataType, Swizzle, TensorMapParams},
};
use cudarc::driver::sys;
use std::{ffi::c_void, path::Path};
use tile_manifest::Manifest;

fn check(result: sys::CUresult, what: &str) -> Result<()> {
    if result == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let mut text: *const std::ffi::c_char = std::ptr::null();
    // SAFETY: cuGetErrorString writes a pointer to a static string or leaves it null.
    let name = unsafe {
        if sys::cuGetErrorString(result, &mut text) == sys::CUresult::CUDA_SUCCESS
            && !text.is_null()
        {
            std::ffi::CStr::from_ptr(text)
                .to_string_lossy()
                .into_owned()
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
/// is), and returns the chip of its device as the compiler names it (`sm_90a` for 9.0).
fn current_chip() -> Result<String> {
    if !driver_present() {
        return Err(Error::Cuda(
            "the CUDA driver (libcuda.so) is not installed".into(),
        ));
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
        Ok(chip_name(major, minor))
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

/// A kernel loaded into the current CUDA context, ready to launch.
pub struct Kernel {
    manifest: Manifest,
    module: sys::CUmodule,
    function: sys::CUfunction,
}

impl Kernel {
    /// Loads the kernel from its PTX `code` and manifest JSON into the current context (device 0's
    /// primary context when none is current); refuses a manifest of another schema, compiler
    /// version or chip before loading anything.
    pub fn load(code: &[u8], manifest: &str) -> Result<Kernel> {
        let manifest = Manifest::from_json(manifest)?;
        if !manifest.target.starts_with("sm_") {
            return Err(Error::Unsupported(format!(
                "{}: a kernel compiled for {} is not launched through CUDA",
                manifest.entry, manifest.target
            )));
        }
        manifest.check_loadable(&current_chip()?)?;
        let mut image = code.to_vec();
        image.push(0);
        let entry = std::ffi::CString::new(manifest.entry.clone())
            .map_err(|_| Error::Unsupported("an entry name with NUL".into()))?;
        let mut module: sys::CUmodule = std::ptr::null_mut();
        // SAFETY: `image` is NUL-terminated PTX; the out-pointers are locals. The kernel owns the
        // module from here on, so a failure below unloads it.
        unsafe {
            check(
                sys::cuModuleLoadData(&mut module, image.as_ptr().cast()),
                "cuModuleLoadData",
            )?;
            let mut kernel = Kernel {
                manifest,
                module,
                function: std::ptr::null_mut(),
            };
            check(
                sys::cuModuleGetFunction(&mut kernel.function, module, entry.as_ptr()),
                "cuModuleGetFunction",
            )?;
            let shared = kernel.manifest.dynamic_shared_bytes.unwrap_or(0);
            if shared > 48 * 1024 {
                use sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES as MAX_SHARED;
                check(
                    sys::cuFuncSetAttribute(kernel.function, MAX_SHARED, shared as i32),
                    "cuFuncSetAttribute",
                )?;
            }
            Ok(kernel)
        }
    }

    /// Loads `<prefix>.ptx` and `<prefix>.json`, as `tile-compile` writes them.
    pub fn load_files(prefix: &Path) -> Result<Kernel> {
        let read = |extension: &str| {
            let path = prefix.with_extension(extension);
            std::fs::read(&path)
                .map_err(|error| Error::Unsupported(format!("{}: {error}", path.display())))
        };
        let manifest = String::from_utf8(read("json")?)
            .map_err(|_| Error::Unsupported("a manifest that is not UTF-8".into()))?;
        Kernel::load(&read("ptx")?, &manifest)
    }

    /// Returns the kernel's manifest.
    pub fn manifest(&self) -> &Manifest {
        &self.manifest
    }

    /// Checks `args` against the manifest and launches the kernel on `stream` (a `CUstream`; null
    /// for the default stream). Returns once the launch is queued.
    pub fn launch(&self, args: &[Arg], stream: *mut c_void) -> Result<()> {
        let plan = plan_launch(&self.manifest, args)?;
        let stream: sys::CUstream = stream.cast();
        let mut values: Vec<u64> = Vec::with_capacity(plan.params.len());
        let mut maps: Vec<sys::CUdeviceptr> = Vec::new();
        let result = (|| {
            for param in &plan.params {
                values.push(match param {
                    Param::TensorMap(params) => {
                        let map = encode(params)?;
                        let mut device: sys::CUdeviceptr = 0;
                        // SAFETY: a 128-byte stream-ordered allocation, filled from `map` (the copy
                        // from pageable memory is staged before the call returns) and freed after
                        // the launch on the same stream.
                        unsafe {
                            check(
                                sys::cuMemAllocAsync(
                                    &mut device,
                                    size_of::<sys::CUtensorMap>(),
                                    stream,
                                ),
                                "cuMemAllocAsync",
                            )?;
                            maps.push(device);
                            check(
                                sys::cuMemcpyHtoDAsync_v2(
                                    device,
                                    (&raw const map).cast(),
                                    size_of::<sys::CUtensorMap>(),
                                    stream,
                                ),
                                "cuMemcpyHtoDAsync",
                            )?;
                        }
                        device
                    }
                    Param::Pointer(address) => *address,
                    Param::I64(value) => *value as u64,
                });
            }
            let mut pointers: Vec<*mut c_void> = values
                .iter_mut()
                .map(|value| (value as *mut u64).cast())
                .collect();
            let [gx, gy, gz] = plan.grid;
            let [bx, by, bz] = plan.block;
            // SAFETY: every parameter is 8 bytes (a pointer or an i64), in the order the kernel
            // declares them (see `plan`); `pointers` outlives the call.
            unsafe {
                check(
                    sys::cuLaunchKernel(
                        self.function,
                        gx,
                        gy,
                        gz,
                        bx,
                        by,
                        bz,
                        plan.dynamic_shared_bytes,
                        stream,
                        pointers.as_mut_ptr(),
                        std::ptr::null_mut(),
                    ),
                    "cuLaunchKernel",
                )
            }
        })();
        for device in maps {
            // SAFETY: freed in stream order, after the launch that reads it.
            let _ = unsafe { sys::cuMemFreeAsync(device, stream) };
        }
        result
    }
}

impl Drop for Kernel {
    fn drop(&mut self) {
        // SAFETY: the module was loaded by `load` and is unloaded once.
        let _ = unsafe { sys::cuModuleUnload(self.module) };
    }
}

/// Encodes a tensor map on the host.
fn encode(params: &TensorMapParams) -> Result<sys::CUtensorMap> {
    use sys::{
        CUtensorMapDataType as T, CUtensorMapFloatOOBfill as Oob,
        CUtensorMapInterleave as Interleave, CUtensorMapL2promotion as L2, CUtensorMapSwizzle as S,
    };
    let data_type = match params.data_type {
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
    fn a_machine_without_cuda_gets_an_error_not_a_panic() {
        if driver_present() {
            return;
        }
        let manifest = format!(
            r#"{{"version": 1, "compiler": "{}", "entry": "k", "target": "sm_90a", "grid": [1, 1, 1]}}"#,
            tile_manifest::COMPILER_VERSION
        );
        let error = Kernel::load(b"", &manifest).err().unwrap();
        assert_eq!(
            error.to_string(),
            "CUDA: the CUDA driver (libcuda.so) is not installed"
        );
    }
}

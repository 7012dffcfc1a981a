//! The C ABI of `libtile_launch.so`, declared for C and C++ in `launch/include/tile-c/TileLaunch.h`
//! (kept in sync by hand; `launch/tests/c_header.rs` compiles and runs a C program against it and
//! checks that it declares exactly the functions exported here, with the same argument layout).
//! The Python package (`python/tile`) calls it through ctypes.
//!
//! Two ways to launch: `tileLaunchRun` checks and launches in one call; `tileLaunchPrepare` checks
//! one argument signature (element types, sizes, strides, integer values) once and returns a
//! prepared launch, after which `tileLaunchPreparedRun` takes only the tensors' addresses and a
//! stream (the launchers' fast path for repeated launches).
//!
//! Functions that can fail return null or non-zero and write a NUL-terminated message into
//! `error` (truncated to `capacity`), except `tileLaunchPreparedRun`, whose message
//! `tileLaunchLastError` returns. Panics are caught and reported the same way.

use crate::{Arg, Error, Kernel, PreparedLaunch, Tensor, plan_launch};
use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_void};

/// `TileLaunchArg::kind` of a device tensor.
pub const TILE_LAUNCH_TENSOR: i32 = 0;
/// `TileLaunchArg::kind` of an integer.
pub const TILE_LAUNCH_INTEGER: i32 = 1;

/// One host argument, as C passes it (`TileLaunchArg` in the header).
#[repr(C)]
pub struct TileLaunchArg {
    /// [`TILE_LAUNCH_TENSOR`] or [`TILE_LAUNCH_INTEGER`].
    pub kind: i32,
    /// Tensors: the element type (`f16`, `bf16`, `f32`, ...), NUL-terminated.
    pub element: *const c_char,
    /// Tensors: the device address.
    pub address: u64,
    /// Tensors: the number of dimensions.
    pub rank: i32,
    /// Tensors: `rank` sizes, outermost first.
    pub shape: *const i64,
    /// Tensors: `rank` strides in elements, outermost first.
    pub strides: *const i64,
    /// Integers: the value.
    pub value: i64,
}

/// Writes `message` into the caller's buffer.
///
/// # Safety
///
/// `error` must be null or point to `capacity` writable bytes.
unsafe fn report(message: &str, error: *mut c_char, capacity: usize) {
    if error.is_null() || capacity == 0 {
        return;
    }
    let bytes = message.as_bytes();
    let length = bytes.len().min(capacity - 1);
    unsafe {
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), error.cast::<u8>(), length);
        *error.add(length) = 0;
    }
}

/// Reads the caller's arguments.
///
/// # Safety
///
/// `args` must point to `count` arguments whose pointers are valid for their `rank`.
unsafe fn read_args(args: *const TileLaunchArg, count: usize) -> Result<Vec<Arg>, Error> {
    if count == 0 {
        return Ok(Vec::new());
    }
    let args = unsafe { std::slice::from_raw_parts(args, count) };
    args.iter()
        .enumerate()
        .map(|(index, arg)| match arg.kind {
            TILE_LAUNCH_TENSOR => {
                let rank = usize::try_from(arg.rank)
                    .map_err(|_| Error::Argument(format!("argument {index}: a negative rank")))?;
                let (shape, strides) = if rank == 0 {
                    (Vec::new(), Vec::new())
                } else {
                    unsafe {
                        (
                            std::slice::from_raw_parts(arg.shape, rank).to_vec(),
                            std::slice::from_raw_parts(arg.strides, rank).to_vec(),
                        )
                    }
                };
                let element = if arg.element.is_null() {
                    String::new()
                } else {
                    unsafe { CStr::from_ptr(arg.element) }.to_string_lossy().into_owned()
                };
                Ok(Arg::Tensor(Tensor {
                    address: arg.address,
                    element,
                    shape,
                    strides,
                }))
            }
            TILE_LAUNCH_INTEGER => Ok(Arg::Scalar(arg.value)),
            other => Err(Error::Argument(format!("argument {index}: an unknown kind {other}"))),
        })
        .collect()
}

fn guarded<T>(body: impl FnOnce() -> Result<T, Error>) -> Result<T, String> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(body)) {
        Ok(result) => result.map_err(|error| error.to_string()),
        Err(_) => Err("internal error: the launcher panicked".into()),
    }
}

/// Loads a kernel from its PTX and manifest JSON; null with a message in `error` on failure.
///
/// # Safety
///
/// `code` must point to `length` bytes, `manifest` to a NUL-terminated string, `error` to
/// `capacity` writable bytes (or be null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchLoad(
    code: *const u8,
    length: usize,
    manifest: *const c_char,
    error: *mut c_char,
    capacity: usize,
) -> *mut c_void {
    let code = if length == 0 {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(code, length) }
    };
    let manifest = unsafe { CStr::from_ptr(manifest) }.to_string_lossy().into_owned();
    match guarded(|| Kernel::load(code, &manifest)) {
        Ok(kernel) => Box::into_raw(Box::new(kernel)).cast(),
        Err(message) => {
            unsafe { report(&message, error, capacity) };
            std::ptr::null_mut()
        }
    }
}

/// A kernel that checks, plans and prepares its launches as one loaded on CUDA device `device`
/// would, but calls no driver function (nothing is loaded or launched): for tests and host-side
/// measurements on machines without a GPU. Null with a message in `error` for a manifest that
/// `tileLaunchLoad` refuses (another schema, compiler version or target).
///
/// # Safety
///
/// `manifest` must be a NUL-terminated string, `error` point to `capacity` writable bytes (or be
/// null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchLoadDryRun(
    manifest: *const c_char,
    device: i32,
    error: *mut c_char,
    capacity: usize,
) -> *mut c_void {
    let manifest = unsafe { CStr::from_ptr(manifest) }.to_string_lossy().into_owned();
    match guarded(|| Kernel::dry_run(&manifest, device)) {
        Ok(kernel) => Box::into_raw(Box::new(kernel)).cast(),
        Err(message) => {
            unsafe { report(&message, error, capacity) };
            std::ptr::null_mut()
        }
    }
}

/// Returns the ordinal of the CUDA device `kernel` was loaded on (its arguments must live there).
///
/// # Safety
///
/// `kernel` must come from `tileLaunchLoad` or `tileLaunchLoadDryRun`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchGetDevice(kernel: *const c_void) -> i32 {
    unsafe { &*kernel.cast::<Kernel>() }.device()
}

/// Checks `args` against `kernel`'s manifest and returns a launch prepared for their signature
/// (everything but the tensors' addresses), or null with a message in `error`. It stays valid
/// after `tileLaunchDestroy(kernel)`; free it with `tileLaunchPreparedDestroy`.
///
/// # Safety
///
/// `kernel` must come from `tileLaunchLoad` or `tileLaunchLoadDryRun`; `args` must point to
/// `count` valid arguments; `error` to `capacity` writable bytes (or be null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchPrepare(
    kernel: *const c_void,
    args: *const TileLaunchArg,
    count: usize,
    error: *mut c_char,
    capacity: usize,
) -> *mut c_void {
    let kernel = unsafe { &*kernel.cast::<Kernel>() };
    let result = guarded(|| {
        let args = unsafe { read_args(args, count) }?;
        kernel.prepare(&args)
    });
    match result {
        Ok(prepared) => Box::into_raw(Box::new(prepared)).cast(),
        Err(message) => {
            unsafe { report(&message, error, capacity) };
            std::ptr::null_mut()
        }
    }
}

thread_local! {
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

/// Launches `prepared` on `stream` (a `CUstream`, null for the default stream) with
/// `addresses[i]` the device address of host argument `i` (one entry per argument it was prepared
/// with; integers' entries are ignored), the arguments having the signature it was prepared with:
/// the caller compares signatures. 0 on success; otherwise `tileLaunchLastError` says why.
///
/// # Safety
///
/// `prepared` must come from `tileLaunchPrepare`; `addresses` must point to as many `uint64_t`
/// as the arguments it was prepared with.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchPreparedRun(
    prepared: *const c_void,
    addresses: *const u64,
    stream: *mut c_void,
) -> i32 {
    let prepared = unsafe { &*prepared.cast::<PreparedLaunch>() };
    let addresses = if prepared.arguments() == 0 {
        &[][..]
    } else {
        unsafe { std::slice::from_raw_parts(addresses, prepared.arguments()) }
    };
    match guarded(|| prepared.launch(addresses, stream)) {
        Ok(()) => 0,
        Err(message) => {
            let message = CString::new(message.replace('\0', " ")).unwrap_or_default();
            LAST_ERROR.with(|last| *last.borrow_mut() = message);
            1
        }
    }
}

/// Returns the message of the calling thread's last failed `tileLaunchPreparedRun` (empty if
/// none), valid until its next failure.
#[unsafe(no_mangle)]
pub extern "C" fn tileLaunchLastError() -> *const c_char {
    LAST_ERROR.with(|last| last.borrow().as_ptr())
}

/// Frees a launch from `tileLaunchPrepare` (null is ignored).
///
/// # Safety
///
/// `prepared` must be null or come from `tileLaunchPrepare`, and not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchPreparedDestroy(prepared: *mut c_void) {
    if !prepared.is_null() {
        drop(unsafe { Box::from_raw(prepared.cast::<PreparedLaunch>()) });
    }
}

/// Checks `args` and launches `kernel` on `stream` (a `CUstream`, null for the default stream);
/// 0 on success.
///
/// # Safety
///
/// `kernel` must come from `tileLaunchLoad` or `tileLaunchLoadDryRun`; `args` must point to
/// `count` valid arguments;
/// `error` to `capacity` writable bytes (or be null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchRun(
    kernel: *mut c_void,
    args: *const TileLaunchArg,
    count: usize,
    stream: *mut c_void,
    error: *mut c_char,
    capacity: usize,
) -> i32 {
    let kernel = unsafe { &*kernel.cast::<Kernel>() };
    let result = guarded(|| {
        let args = unsafe { read_args(args, count) }?;
        kernel.launch(&args, stream)
    });
    match result {
        Ok(()) => 0,
        Err(message) => {
            unsafe { report(&message, error, capacity) };
            1
        }
    }
}

/// Checks `args` against `manifest` as a launch would, without a GPU; 0 when they match.
///
/// # Safety
///
/// `manifest` must be a NUL-terminated string; `args` must point to `count` valid arguments;
/// `error` to `capacity` writable bytes (or be null).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchCheck(
    manifest: *const c_char,
    args: *const TileLaunchArg,
    count: usize,
    error: *mut c_char,
    capacity: usize,
) -> i32 {
    let manifest = unsafe { CStr::from_ptr(manifest) }.to_string_lossy().into_owned();
    let result = guarded(|| {
        let manifest = tile_manifest::Manifest::from_json(&manifest)?;
        let args = unsafe { read_args(args, count) }?;
        plan_launch(&manifest, &args).map(|_| ())
    });
    match result {
        Ok(()) => 0,
        Err(message) => {
            unsafe { report(&message, error, capacity) };
            1
        }
    }
}

/// Frees a kernel from `tileLaunchLoad` or `tileLaunchLoadDryRun` (null is ignored); its module is
/// unloaded once its prepared launches are freed too.
///
/// # Safety
///
/// `kernel` must be null or come from `tileLaunchLoad` or `tileLaunchLoadDryRun`, and not be used
/// afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn tileLaunchDestroy(kernel: *mut c_void) {
    if !kernel.is_null() {
        drop(unsafe { Box::from_raw(kernel.cast::<Kernel>()) });
    }
}

/// Returns the compiler version whose manifests this launcher accepts.
#[unsafe(no_mangle)]
pub extern "C" fn tileLaunchCompilerVersion() -> *const c_char {
    static VERSION: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    VERSION.as_ptr().cast()
}

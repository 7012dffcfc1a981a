//! The C ABI of `libtile_launch.so`, which the Python package (`python/tile`) calls through ctypes:
//!
//! ```c
//! typedef struct {
//!   int32_t kind;            // 0: a device tensor, 1: an integer
//!   const char *element;     // tensors: "f16", "bf16", "f32", ...
//!   uint64_t address;        // tensors: device address
//!   int32_t rank;            // tensors: number of dimensions
//!   const int64_t *shape;    // tensors: sizes, outermost first
//!   const int64_t *strides;  // tensors: strides in elements
//!   int64_t value;           // integers
//! } TileLaunchArg;
//! void *tileLaunchLoad(const uint8_t *code, size_t length, const char *manifest, char *error, size_t capacity);
//! int tileLaunchRun(void *kernel, const TileLaunchArg *args, size_t count, void *stream, char *error, size_t capacity);
//! int tileLaunchCheck(const char *manifest, const TileLaunchArg *args, size_t count, char *error, size_t capacity);
//! void tileLaunchDestroy(void *kernel);
//! const char *tileLaunchCompilerVersion(void);
//! ```
//!
//! Functions that can fail return null or non-zero and write a NUL-terminated message into
//! `error` (truncated to `capacity`). Panics are caught and reported the same way.

use crate::{Arg, Error, Kernel, Tensor, plan_launch};
use std::ffi::{CStr, c_char, c_void};

/// One host argument, as C passes it (see the module documentation).
#[repr(C)]
pub struct TileLaunchArg {
    kind: i32,
    element: *const c_char,
    address: u64,
    rank: i32,
    shape: *const i64,
    strides: *const i64,
    value: i64,
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
            0 => {
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
                    unsafe { CStr::from_ptr(arg.element) }
                        .to_string_lossy()
                        .into_owned()
                };
                Ok(Arg::Tensor(Tensor {
                    address: arg.address,
                    element,
                    shape,
                    strides,
                }))
            }
            1 => Ok(Arg::Scalar(arg.value)),
            other => Err(Error::Argument(format!(
                "argument {index}: an unknown kind {other}"
            ))),
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
    let manifest = unsafe { CStr::from_ptr(manifest) }
        .to_string_lossy()
        .into_owned();
    match guarded(|| Kernel::load(code, &manifest)) {
        Ok(kernel) => Box::into_raw(Box::new(kernel)).cast(),
        Err(message) => {
            unsafe { report(&message, error, capacity) };
            std::ptr::null_mut()
        }
    }
}

/// Checks `args` and launches `kernel` on `stream` (a `CUstream`, null for the default stream);
/// 0 on success.
///
/// # Safety
///
/// `kernel` must come from `tileLaunchLoad`; `args` must point to `count` valid arguments;
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
    let manifest = unsafe { CStr::from_ptr(manifest) }
        .to_string_lossy()
        .into_owned();
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

/// Unloads a kernel from `tileLaunchLoad` (null is ignored).
///
/// # Safety
///
/// `kernel` must be null or come from `tileLaunchLoad`, and not be used afterwards.
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

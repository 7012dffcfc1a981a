//! The `tile-opt` driver: MLIR's `MlirOptMain` with every upstream dialect and pass plus ours.

use crate::ffi;
use std::ffi::{CString, c_char};

/// Runs `MlirOptMain` on `args` (the program name first) and returns the process exit code. Register
/// the Rust passes (see [`crate::register_pass`]) before calling it.
pub fn opt_main(args: impl IntoIterator<Item = String>) -> i32 {
    crate::install_hooks();
    let owned: Vec<CString> = args
        .into_iter()
        .map(|arg| CString::new(arg.replace('\0', "")).unwrap_or_default())
        .collect();
    let mut argv: Vec<*mut c_char> = owned
        .iter()
        .map(|arg| arg.as_ptr() as *mut c_char)
        .collect();
    argv.push(std::ptr::null_mut());
    unsafe { ffi::tileShimOptMain(owned.len() as i32, argv.as_mut_ptr()) }
}

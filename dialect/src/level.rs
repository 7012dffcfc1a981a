//! Memory levels: where a tile buffer lives, read off its memref memory space.
//!
//! | level    | memory space                                  |
//! |----------|-----------------------------------------------|
//! | global   | none, or `#gpu.address_space<global>`         |
//! | shared   | `#gpu.address_space<workgroup>`               |
//! | fragment | `#tile.fragment`                              |

use crate::ffi;
use melior::ir::{Type, TypeLike};
use std::fmt;

/// Where a buffer lives.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryLevel {
    /// Device memory, visible to every block.
    Global,
    /// The shared memory (SRAM) of one block.
    Shared,
    /// Registers spread over the threads of one block.
    Fragment,
}

impl fmt::Display for MemoryLevel {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        formatter.write_str(match self {
            Self::Global => "global memory",
            Self::Shared => "shared memory",
            Self::Fragment => "a fragment",
        })
    }
}

/// Whether a memref type is in a thread's private memory (`#gpu.address_space<private>`, SPIR-V's
/// `Function` storage class): the per-thread arrays the lowerings make of fragments. No tile lives
/// there, so it is no [`MemoryLevel`].
pub fn is_private(r#type: Type) -> bool {
    unsafe { ffi::tileShimIsPrivateMemory(r#type.to_raw()) }
}

/// Whether a memory space is a SPIR-V storage class (the SPIR-V lowering's memory spaces), asked of
/// the attribute's dialect rather than of its printed form.
pub fn is_spirv_storage_class(space: melior::ir::Attribute) -> bool {
    use melior::ir::attribute::AttributeLike;
    unsafe {
        let dialect = mlir_sys::mlirAttributeGetDialect(space.to_raw());
        let namespace = mlir_sys::mlirDialectGetNamespace(dialect);
        std::slice::from_raw_parts(namespace.data as *const u8, namespace.length) == b"spirv"
    }
}

/// Returns the memory level of a memref type, or `None` for a non-memref type or a memory space that
/// is none of the three levels.
pub fn memory_level(r#type: Type) -> Option<MemoryLevel> {
    match unsafe { ffi::tileShimMemoryLevel(r#type.to_raw()) } {
        0 => Some(MemoryLevel::Global),
        1 => Some(MemoryLevel::Shared),
        2 => Some(MemoryLevel::Fragment),
        _ => None,
    }
}

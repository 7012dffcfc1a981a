//! What every GPU lowering of the GEMM family shares: reading a `tile.kernel` into a [`plan::GemmPlan`]
//! and recomputing the program's index and epilogue arithmetic inside an emitted kernel
//! ([`outline`]), and running the epilogue on a thread's accumulator registers ([`epilogue`]). The
//! targets differ only in the kernel they render from the plan.

pub mod epilogue;
pub mod host;
pub mod install;
pub mod launch;
pub mod outline;
pub mod plan;
pub mod text;
pub mod types;

//! Helpers the integration tests and `tile-fuzz` share.

pub mod fuzz;

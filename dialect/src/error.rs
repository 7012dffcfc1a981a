//! The error type of the dialect crate.

use std::fmt;

/// What can go wrong when building or checking tile IR from Rust.
#[derive(Debug)]
pub enum Error {
    /// melior refused an operation, type or attribute.
    Melior(melior::Error),
    /// Built IR does not verify; holds the diagnostics MLIR reported.
    Verification(String),
    /// A builder was given arguments that cannot make a valid op.
    InvalidArgument(String),
    /// Upstream rewrite patterns applied from Rust did not converge.
    Rewrite(String),
}

/// The result type of the dialect crate.
pub type Result<T> = std::result::Result<T, Error>;

impl fmt::Display for Error {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::Melior(error) => write!(formatter, "mlir: {error}"),
            Self::Verification(message) => write!(formatter, "verification failed: {message}"),
            Self::InvalidArgument(message) => write!(formatter, "invalid argument: {message}"),
            Self::Rewrite(message) => write!(formatter, "rewrite failed: {message}"),
        }
    }
}

impl std::error::Error for Error {}

impl From<melior::Error> for Error {
    fn from(error: melior::Error) -> Self {
        Self::Melior(error)
    }
}

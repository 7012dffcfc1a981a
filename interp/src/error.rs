//! The interpreter's one error type.
//!
//! Every error raised while decoding or running an op carries the op's name and its source location
//! (`file:line:col`, as diagnostics print it), so a caller can report it the way MLIR reports an
//! op's error: `file:line:col: error: 'tile.copy' op ...`.

use std::fmt;

/// Where an error happened: the op and its location.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Site {
    /// The op's name (`tile.copy`, `memref.load`, ...).
    pub op: String,
    /// The op's location, `file:line:col` when it has one.
    pub location: String,
}

/// An access outside a buffer: what [`Error::OutOfBounds`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OutOfBounds {
    /// The op.
    pub site: Site,
    /// `read` or `write`.
    pub access: &'static str,
    /// The index, one number per dimension.
    pub index: Vec<i64>,
    /// The buffer's type as written, and its runtime shape.
    pub buffer: String,
    /// The grid block that ran the op, when inside a kernel.
    pub block: Option<Vec<i64>>,
}

/// A read of a tile element that nothing wrote: what [`Error::UndefinedRead`] reports.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UndefinedRead {
    /// The reading op.
    pub site: Site,
    /// What the op reads there (`its accumulator`, `its source`, ...), empty for a plain load.
    pub role: &'static str,
    /// The index, one number per dimension of the buffer.
    pub index: Vec<i64>,
    /// The buffer's type as written, and its runtime shape.
    pub buffer: String,
    /// The op that allocated the buffer.
    pub origin: Site,
    /// The grid block that ran the op, when inside a kernel.
    pub block: Option<Vec<i64>>,
}

/// Why the interpreter cannot decode or run a program.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Error {
    /// The module has no host function of this name with a body.
    NoFunction(String),
    /// The host buffers do not fit the function's arguments (count, element type or shape).
    Arguments(String),
    /// An op the interpreter does not implement.
    Unsupported(Site),
    /// An op the interpreter implements, with an operand, attribute or type it does not.
    UnsupportedForm(Site, String),
    /// A load, store or copy outside a buffer (and outside the clipping rule of `tile.copy`).
    OutOfBounds(Box<OutOfBounds>),
    /// A read of an element of a tile (or any allocation) that nothing wrote since it was
    /// allocated: its value is undefined on every target.
    UndefinedRead(Box<UndefinedRead>),
    /// An operation whose result is undefined in MLIR (division by zero, a conversion out of range,
    /// a non-positive loop step): the interpreter stops rather than pick a value.
    Undefined(Site, String),
}

/// The interpreter's result type.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// Returns the op and location of an error raised at an op.
    pub fn site(&self) -> Option<&Site> {
        match self {
            Self::Unsupported(site) | Self::UnsupportedForm(site, _) | Self::Undefined(site, _) => Some(site),
            Self::OutOfBounds(details) => Some(&details.site),
            Self::UndefinedRead(details) => Some(&details.site),
            Self::NoFunction(_) | Self::Arguments(_) => None,
        }
    }

    /// Returns the error as a compiler prints it: `location: error: message`.
    pub fn diagnostic(&self) -> String {
        match self.site() {
            Some(site) => format!("{}: error: {self}", site.location),
            None => format!("error: {self}"),
        }
    }

    /// Returns true for undefined behaviour of the program itself (an access out of bounds, a
    /// read of an element nothing wrote, an operation MLIR leaves undefined), as opposed to an op
    /// the interpreter does not implement or a call it cannot take.
    pub fn is_undefined_behaviour(&self) -> bool {
        matches!(
            self,
            Self::OutOfBounds(_) | Self::UndefinedRead(_) | Self::Undefined(..)
        )
    }
}

fn indices(index: &[i64]) -> String {
    let text: Vec<String> = index.iter().map(i64::to_string).collect();
    format!("[{}]", text.join(", "))
}

impl fmt::Display for Error {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        match self {
            Self::NoFunction(name) => write!(formatter, "no host function @{name} with a body"),
            Self::Arguments(message) => formatter.write_str(message),
            Self::Unsupported(site) => {
                write!(formatter, "'{}' op is not supported by the interpreter", site.op)
            }
            Self::UnsupportedForm(site, what) => {
                write!(formatter, "'{}' op {what} is not supported by the interpreter", site.op)
            }
            Self::OutOfBounds(details) => {
                let OutOfBounds {
                    site,
                    access,
                    index,
                    buffer,
                    block,
                } = &**details;
                write!(
                    formatter,
                    "'{}' op {access}s index {} out of bounds of {buffer}",
                    site.op,
                    indices(index)
                )?;
                if let Some(block) = block {
                    write!(formatter, " (in block {})", indices(block))?;
                }
                Ok(())
            }
            Self::UndefinedRead(details) => {
                let UndefinedRead {
                    site,
                    role,
                    index,
                    buffer,
                    origin,
                    block,
                } = &**details;
                write!(
                    formatter,
                    "'{}' op reads undefined element {} of ",
                    site.op,
                    indices(index)
                )?;
                if !role.is_empty() {
                    write!(formatter, "{role} ")?;
                }
                write!(
                    formatter,
                    "{buffer}: nothing wrote it since '{}' at {} allocated it",
                    origin.op, origin.location
                )?;
                if let Some(block) = block {
                    write!(formatter, " (in block {})", indices(block))?;
                }
                Ok(())
            }
            Self::Undefined(site, message) => write!(formatter, "'{}' op {message}", site.op),
        }
    }
}

impl std::error::Error for Error {}

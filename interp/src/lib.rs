//! `tile-interp`: a reference interpreter of tile IR, an oracle independent of the lowerings.
//!
//! It executes a host `func.func` of a parsed, verified module directly from the documented
//! semantics of its ops (`docs/contract.md`, `docs/TileDialect.md`), sharing no code with
//! `convert-tile-to-cpu` or the GPU lowerings, so that comparing it with them can catch a bug they
//! share:
//!
//! ```text
//!   Module --decode.rs--> ir.rs: owned op tree --exec.rs: Machine--> host buffers, written in place
//!            (unsupported ops are         (slots, types,    arith.rs: scalar ops
//!             located errors here)         locations)       tile.rs:  copy, gemm, reduce
//!                                                           memory.rs: bounds-checked buffers
//! ```
//!
//! Invariants:
//! - no op runs unless the whole function decoded: an op the interpreter does not implement is an
//!   [`Error::Unsupported`] naming the op and its location, before anything runs;
//! - values are kept exactly in their types ([`scalar`]): f16, bf16 and the 8-bit floats round to nearest
//!   even on every result and store, integers wrap at their width;
//! - every access is bounds-checked; outside a buffer (and outside the clipping rule of
//!   `tile.copy` on global buffers) is an [`Error::OutOfBounds`] with the op, the index and the
//!   grid block, never undefined behaviour; so is every operation MLIR leaves undefined;
//! - every read of a tile or other allocation is checked against the elements written since it was
//!   allocated (one bit per element): a read of an element nothing wrote (a `memref.load`, a copy's
//!   source, a gemm's operands and accumulator, a reduction's source and, without `clear`, its
//!   result) is an [`Error::UndefinedRead`] with the op, the buffer, its allocation and the index;
//!   host buffers are defined;
//! - the blocks of a kernel and the iterations of a `tile.parallel` run one after another, but a
//!   program whose result depends on their order (one reads or overwrites what another changed)
//!   is a race, an [`Error::Undefined`] at the op ([`race`]);
//! - the host buffers are the function's memref arguments, row-major, elements as f64 exact in
//!   their element type ([`Tensor`]); they are written in place.

#![deny(missing_docs)]

mod arith;
pub mod bound;
pub mod decode;
mod error;
pub mod exec;
pub mod ir;
pub mod memory;
pub mod print;
pub mod race;
pub mod scalar;
mod tile;

pub use error::{Error, OutOfBounds, Result, Site, UndefinedRead};

use decode::Decoder;
use exec::Machine;
use ir::Function;
use melior::ir::{BlockLike, Module, RegionLike, operation::OperationLike};
use memory::Buf;
use scalar::Val;

/// A host buffer: a dense row-major array handed to a host function as a memref argument.
#[derive(Clone, Debug, PartialEq)]
pub struct Tensor {
    /// Sizes, one per dimension.
    pub shape: Vec<usize>,
    /// Elements in row-major order, each exact in the argument's element type.
    pub data: Vec<f64>,
}

/// A decoded module: every host function with a body, or why it cannot be interpreted.
pub struct Program {
    functions: Vec<(String, Result<Function>)>,
}

impl Program {
    /// Decodes every `func.func` with a body at the top of `module`.
    pub fn new(module: &Module) -> Self {
        let mut functions = Vec::new();
        let mut next = module.body().first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op.name().as_string_ref().as_str() != Ok("func.func")
                || op.region(0).ok().and_then(|region| region.first_block()).is_none()
            {
                continue;
            }
            let name = tile_dialect::ops::string_attribute(&op, "sym_name").unwrap_or_default();
            functions.push((name, Decoder::function(op)));
        }
        Self { functions }
    }

    /// Returns the decoded function `name`, or why it cannot run.
    fn function(&self, name: &str) -> Result<&Function> {
        match self.functions.iter().find(|(candidate, _)| candidate == name) {
            Some((_, Ok(function))) => Ok(function),
            Some((_, Err(error))) => Err(error.clone()),
            None => Err(Error::NoFunction(name.into())),
        }
    }

    /// Runs the host function `name` on `tensors` (one per argument, in order), writing its outputs
    /// in place. The tensors keep whatever the run wrote before an error.
    pub fn run(&self, name: &str, tensors: &mut [Tensor]) -> Result<()> {
        self.run_bounded(name, tensors).map(drop)
    }

    /// Like [`Program::run`], and returns the error bound of every element of every tensor
    /// ([`bound`]: how far a correct target may be from the exact result, given the magnitudes of
    /// the terms that produced it; 0 for inputs and integers; NaN or infinite where none is known).
    pub fn run_bounded(&self, name: &str, tensors: &mut [Tensor]) -> Result<Vec<Vec<f64>>> {
        let function = self.function(name)?;
        if tensors.len() != function.arguments.len() {
            return Err(Error::Arguments(format!(
                "@{name} takes {} buffers, but got {}",
                function.arguments.len(),
                tensors.len()
            )));
        }
        let mut machine = Machine {
            frame: vec![Val::Unset; function.slots],
            buffers: Vec::new(),
            block: None,
            slots: std::collections::HashMap::new(),
            scopes: Vec::new(),
            barriers: 0,
            arrivals: std::collections::HashMap::new(),
            producer: None,
            producing: false,
            partials: std::collections::HashMap::new(),
        };
        for (index, (r#type, tensor)) in function.arguments.iter().zip(tensors.iter()).enumerate() {
            let fits = tensor.shape.len() == r#type.shape.len()
                && r#type
                    .shape
                    .iter()
                    .zip(&tensor.shape)
                    .all(|(want, got)| want.is_none_or(|want| want == *got))
                && tensor.data.len() == tensor.shape.iter().product::<usize>();
            if !fits {
                return Err(Error::Arguments(format!(
                    "@{name}: argument {index} is {}, but got a buffer of sizes {:?}",
                    r#type.text, tensor.shape
                )));
            }
        }
        for (r#type, tensor) in function.arguments.iter().zip(tensors.iter_mut()) {
            let data = std::mem::take(&mut tensor.data);
            machine.buffers.push(Buf::global(r#type, tensor.shape.clone(), data));
        }
        let arguments: Vec<Val> = (0..tensors.len()).map(Val::M).collect();
        let result = machine.run(&function.body, &arguments);
        let mut bounds = Vec::new();
        for (tensor, buffer) in tensors.iter_mut().zip(machine.buffers.iter_mut()) {
            tensor.data = std::mem::take(&mut buffer.data);
            bounds.push(std::mem::take(&mut buffer.bound));
        }
        result.map(|_| bounds)
    }
}

#[cfg(test)]
mod tests;

//! The host arguments of a launch, as the caller describes them: tensors already on the device
//! (address, element type, sizes, strides) and integers, in the order of the tile program's host
//! function.

/// A device tensor.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Tensor {
    /// Its device address.
    pub address: u64,
    /// Its element type, as MLIR writes it (`f16`, `bf16`, `f32`, `f64`, `i8`, `i32`, `i64`).
    pub element: String,
    /// Its sizes, outermost first.
    pub shape: Vec<i64>,
    /// Its strides in elements, outermost first.
    pub strides: Vec<i64>,
}

impl Tensor {
    /// Creates a row-major contiguous tensor at `address`.
    pub fn contiguous(address: u64, element: &str, shape: &[i64]) -> Self {
        let mut strides = vec![1; shape.len()];
        for dim in (0..shape.len().saturating_sub(1)).rev() {
            strides[dim] = strides[dim + 1] * shape[dim + 1];
        }
        Tensor {
            address,
            element: element.to_owned(),
            shape: shape.to_vec(),
            strides,
        }
    }

    /// Returns whether the tensor is row-major contiguous (size-1 dimensions may have any stride).
    pub fn is_contiguous(&self) -> bool {
        let mut expected = 1;
        for (size, stride) in self.shape.iter().zip(&self.strides).rev() {
            if *size != 1 && *stride != expected {
                return false;
            }
            expected *= size;
        }
        true
    }
}

/// One host argument.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Arg {
    /// A device tensor.
    Tensor(Tensor),
    /// An integer (an `index` or integer argument of the host function).
    Scalar(i64),
}

/// The host arguments seen by manifest expressions: tensor sizes, scalar values and addresses.
pub(crate) struct Host<'a>(pub &'a [Arg]);

impl tile_manifest::HostArguments for Host<'_> {
    fn size(&self, argument: usize, dim: usize) -> Option<i64> {
        match self.0.get(argument)? {
            Arg::Tensor(tensor) => tensor.shape.get(dim).copied(),
            Arg::Scalar(_) => None,
        }
    }

    fn scalar(&self, argument: usize) -> Option<i64> {
        match self.0.get(argument)? {
            Arg::Scalar(value) => Some(*value),
            Arg::Tensor(_) => None,
        }
    }

    fn address(&self, argument: usize) -> Option<i64> {
        match self.0.get(argument)? {
            Arg::Tensor(tensor) => i64::try_from(tensor.address).ok(),
            Arg::Scalar(_) => None,
        }
    }
}

/// `args` with the tensors at `addresses` (one per argument; ignored for integers).
pub(crate) fn at_addresses(args: &[Arg], addresses: &[u64]) -> Vec<Arg> {
    args.iter()
        .zip(addresses)
        .map(|(arg, address)| match arg {
            Arg::Tensor(tensor) => Arg::Tensor(Tensor {
                address: *address,
                ..tensor.clone()
            }),
            scalar => scalar.clone(),
        })
        .collect()
}

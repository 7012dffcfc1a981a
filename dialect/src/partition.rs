//! Partition arguments: a host function's 1-D integer tensor that splits one dimension of another
//! of its tensors into consecutive parts (the sequences of a packed variable-length batch, the
//! expert groups of a grouped GEMM). Kernels read it on the device, where a wrong one makes blocks
//! race on overlapping parts or skip work, and the compiler cannot see its values; so the program
//! declares it, each kernel's manifest carries the check, and `tile-launch` (and the C API and
//! Python package over it) makes it before each launch; `tile-run` fills such an argument with a
//! random valid partition. The declarations:
//!
//! - `{tile.offsets = array<i64: T, D>}`: cumulative offsets into dimension `D` of argument `T`
//!   (part `i` is `[offsets[i], offsets[i + 1])`): at least two, within `[0, size]`, never
//!   decreasing;
//! - `{tile.sizes = array<i64: T, D>}`: the parts' sizes, consecutive from 0: at least one, none
//!   below 0, summing to at most the size.
//!
//! The rules themselves are [`tile_manifest::Partition::check`], which the launchers share.

use crate::positions::{BlockAt, OperationAt};
use melior::ir::{
    BlockLike, ValueLike,
    attribute::{ArrayAttribute, DenseI64ArrayAttribute, DictionaryAttribute},
    operation::{OperationLike, OperationRef},
    r#type::{IntegerType, ShapedTypeLike},
};
pub use tile_manifest::Partition;

/// The attribute that declares each kind of partition argument.
pub fn attribute_name(partition: Partition) -> &'static str {
    match partition {
        Partition::Offsets => "tile.offsets",
        Partition::Sizes => "tile.sizes",
    }
}

/// One declared partition argument of a host function.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartitionArgument {
    /// The argument holding the entries.
    pub argument: usize,
    /// What its entries are.
    pub partition: Partition,
    /// The argument whose dimension it partitions.
    pub tensor: usize,
    /// That dimension.
    pub dim: usize,
}

/// The attributes of each argument of `function` (a `func.func`), empty where it has none.
fn argument_attributes<'c>(function: &OperationRef<'c, '_>, count: usize) -> Vec<Option<DictionaryAttribute<'c>>> {
    let array = function
        .attribute("arg_attrs")
        .ok()
        .and_then(|attribute| ArrayAttribute::try_from(attribute).ok());
    (0..count)
        .map(|index| {
            array
                .and_then(|array| array.element(index).ok())
                .and_then(|attribute| DictionaryAttribute::try_from(attribute).ok())
        })
        .collect()
}

/// The declared partition arguments of `function`, each as written (see [`verify`] for what
/// makes one valid); none where it has no body.
pub fn declared(function: OperationRef) -> Result<Vec<PartitionArgument>, String> {
    let Some(entry) = function.body() else {
        return Ok(Vec::new());
    };
    let count = entry.argument_count();
    let mut found = Vec::new();
    for (argument, attributes) in argument_attributes(&function, count).into_iter().enumerate() {
        let Some(attributes) = attributes else { continue };
        for index in 0..attributes.len() {
            let Ok((name, _)) = attributes.element(index) else {
                continue;
            };
            let name = name.as_string_ref();
            let name = name.as_str().unwrap_or_default();
            if name.starts_with("tile.") && name != "tile.offsets" && name != "tile.sizes" {
                return Err(format!(
                    "argument {argument}: expects tile.offsets or tile.sizes (the attributes of host function \
                     arguments), but got {name}"
                ));
            }
        }
        for partition in [Partition::Offsets, Partition::Sizes] {
            let name = attribute_name(partition);
            let Some(value) = attributes.element_by_name(name) else {
                continue;
            };
            let pair = DenseI64ArrayAttribute::try_from(value)
                .ok()
                .filter(|array| array.len() == 2)
                .and_then(|array| Some((array.element(0).ok()?, array.element(1).ok()?)))
                .ok_or_else(|| {
                    format!(
                        "argument {argument}: expects {name} to be array<i64: T, D> (it partitions dimension D of \
                         argument T), but got {}",
                        value
                    )
                })?;
            let (tensor, dim) = (
                usize::try_from(pair.0)
                    .map_err(|_| format!("argument {argument}: {name} names argument {}", pair.0))?,
                usize::try_from(pair.1)
                    .map_err(|_| format!("argument {argument}: {name} names dimension {}", pair.1))?,
            );
            if found.iter().any(|other: &PartitionArgument| other.argument == argument) {
                return Err(format!(
                    "argument {argument}: expects one of tile.offsets and tile.sizes, but it has both"
                ));
            }
            found.push(PartitionArgument {
                argument,
                partition,
                tensor,
                dim,
            });
        }
    }
    Ok(found)
}

/// Checks the partition arguments of `function`: each is a 1-D memref of i32 or i64 whose static
/// entry count allows a part, and names a dimension of another memref argument.
pub fn verify(function: OperationRef) -> Result<(), String> {
    let arguments = declared(function)?;
    let Some(entry) = function.body() else {
        return Ok(());
    };
    for declared in &arguments {
        let name = attribute_name(declared.partition);
        let argument = declared.argument;
        let memref = entry
            .argument_at(argument)
            .and_then(|value| crate::ops::as_memref(value.r#type()));
        let entries = memref.filter(|memref| memref.rank() == 1);
        let Some(entries) = entries.filter(|memref| {
            IntegerType::try_from(memref.element()).is_ok_and(|integer| matches!(integer.width(), 32 | 64))
        }) else {
            return Err(format!(
                "argument {argument}: expects {name} on a 1-D memref of i32 or i64 (the entries a launcher checks), but \
                 it is on {}",
                entry
                    .argument_at(argument)
                    .map(|value| value.r#type().to_string())
                    .unwrap_or_default()
            ));
        };
        let (least, entries_text) = match declared.partition {
            Partition::Offsets => (2, "2 entries"),
            Partition::Sizes => (1, "an entry"),
        };
        if let Some(Some(count)) = crate::ops::static_sizes(entries).first()
            && *count < least
        {
            return Err(format!(
                "argument {argument}: expects {name} to hold at least {entries_text} (one part), but its memref \
                 holds {count}"
            ));
        }
        let partitioned = (declared.tensor != argument)
            .then(|| entry.argument_at(declared.tensor))
            .flatten()
            .and_then(|value| crate::ops::as_memref(value.r#type()));
        match partitioned {
            Some(tensor) if declared.dim < tensor.rank() => {}
            Some(tensor) => {
                return Err(format!(
                    "argument {argument}: {name} partitions dimension {} of argument {}, which has {} dimension(s)",
                    declared.dim,
                    declared.tensor,
                    tensor.rank()
                ));
            }
            None => {
                return Err(format!(
                    "argument {argument}: expects {name} to name another memref argument of the function (of {}), \
                     but it names argument {}",
                    entry.argument_count(),
                    declared.tensor
                ));
            }
        }
    }
    Ok(())
}

/// The launch checks of the kernels of the host function around `op` (a `tile.kernel`): one per
/// partition argument of that function, for every kernel it launches (each kernel's launch is
/// checked on its own).
pub fn launch_checks(op: OperationRef) -> Vec<tile_manifest::Check> {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        if crate::ops::op_name(&current) == "func.func" {
            return declared(current)
                .unwrap_or_default()
                .into_iter()
                .map(|declared| tile_manifest::Check {
                    argument: declared.argument,
                    partition: declared.partition,
                    within: tile_manifest::Expr::Dim {
                        dim: [declared.tensor, declared.dim],
                    },
                })
                .collect();
        }
        parent = current.parent_operation();
    }
    Vec::new()
}

//! A module split into parts that MLIR's pass manager lowers and compiles side by side.
//!
//! ```text
//! builtin.module attributes {A} { f0  f1  g  f2 ... }         the program (f1 calls g)
//!   ──split──▶ builtin.module {                               the container
//!                builtin.module attributes {A, tile.kernel_offset = 0} { f0 }
//!                builtin.module attributes {A, tile.kernel_offset = 1} { f1  g }
//!                builtin.module attributes {A, tile.kernel_offset = 2} { f2 ... } }
//!   ──builtin.module(builtin.module(passes))──▶ each part on a thread of the context's pool
//!   ──merge──▶ the program's module again, holding every part's ops in order
//! ```
//!
//! A part is a run of consecutive top-level ops closed under symbol references: an op and every
//! top-level symbol it refers to (a call, a launch of a `gpu.module`) are in the same part, so each
//! part verifies and lowers on its own. Kernels keep the numbers they have in the whole program
//! (their symbols are named after them) through `tile.kernel_offset`; the kernel modules of a part
//! are therefore the ones the whole module would have had, compiled by the same passes in the same
//! order, and their code is the same. The parts are contiguous and kept in order, so kernels come
//! out in program order. Passes over the container's parts run in parallel, with MLIR ordering
//! their diagnostics as a serial run would.

use melior::{
    Context,
    ir::{
        Attribute, AttributeLike, BlockLike, Location, Module, RegionLike,
        attribute::IntegerAttribute,
        operation::{OperationLike, OperationMutLike, OperationRef, WalkOrder, WalkResult},
        r#type::IntegerType,
    },
};
use mlir_sys::MlirAttribute;
use std::collections::{HashMap, HashSet};
use tile_conversions::kernels::KERNEL_OFFSET_ATTRIBUTE;

/// Parts made per thread of the context's pool: several, so that a part of large kernels does
/// not leave the other threads idle at the end, and few, since each part pays every pass's fixed
/// cost once.
const PARTS_PER_THREAD: usize = 4;

/// Returns the text of a string reference.
fn text(string: mlir_sys::MlirStringRef) -> String {
    let bytes = unsafe { std::slice::from_raw_parts(string.data as *const u8, string.length) };
    String::from_utf8_lossy(bytes).into_owned()
}

/// Adds to `roots` the root symbol of every symbol reference in `attribute` (in arrays and
/// dictionaries too).
fn symbol_roots(attribute: MlirAttribute, roots: &mut Vec<String>) {
    unsafe {
        if mlir_sys::mlirAttributeIsASymbolRef(attribute) {
            roots.push(text(mlir_sys::mlirSymbolRefAttrGetRootReference(attribute)));
        } else if mlir_sys::mlirAttributeIsAArray(attribute) {
            for index in 0..mlir_sys::mlirArrayAttrGetNumElements(attribute) {
                symbol_roots(mlir_sys::mlirArrayAttrGetElement(attribute, index), roots);
            }
        } else if mlir_sys::mlirAttributeIsADictionary(attribute) {
            for index in 0..mlir_sys::mlirDictionaryAttrGetNumElements(attribute) {
                let element = mlir_sys::mlirDictionaryAttrGetElement(attribute, index);
                symbol_roots(element.attribute, roots);
            }
        }
    }
}

/// The symbol `op` defines, if any.
fn symbol_name(op: &OperationRef) -> Option<String> {
    tile_dialect::ops::string_attribute(op, "sym_name")
}

/// Returns the top-level ops of `module`'s body, in order.
fn top_level_ops<'c, 'a>(module: &'a Module<'c>) -> Vec<OperationRef<'c, 'a>> {
    let mut ops = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        ops.push(op);
    }
    ops
}

/// Groups `ops` into runs of consecutive ops closed under symbol references: returns where each
/// run ends (exclusive).
fn closed_runs(ops: &[OperationRef]) -> Vec<usize> {
    let index_of: HashMap<String, usize> = ops
        .iter()
        .enumerate()
        .filter_map(|(index, op)| symbol_name(op).map(|name| (name, index)))
        .collect();
    // The last op each op must share a run with: itself, what it refers to, what refers to it.
    let mut reach: Vec<usize> = (0..ops.len()).collect();
    for (index, op) in ops.iter().enumerate() {
        let mut roots = Vec::new();
        op.walk(WalkOrder::PreOrder, |nested| {
            for position in 0..nested.attribute_count() {
                if let Ok((_, attribute)) = nested.attribute_at(position) {
                    symbol_roots(attribute.to_raw(), &mut roots);
                }
            }
            WalkResult::Advance
        });
        for root in roots {
            if let Some(&target) = index_of.get(&root) {
                let (low, high) = (index.min(target), index.max(target));
                reach[low] = reach[low].max(high);
            }
        }
    }
    let mut ends = Vec::new();
    let mut end = 0;
    for (index, &last) in reach.iter().enumerate() {
        end = end.max(last);
        if index == end {
            ends.push(index + 1);
        }
    }
    ends
}

/// A program split into parts, inside a container module.
pub struct Parts<'c> {
    /// The container: one `builtin.module` per part.
    pub container: Module<'c>,
}

impl<'c> Parts<'c> {
    /// Moves the top-level ops of `module` into parts of a new container (leaving `module`
    /// empty), each part with `module`'s attributes and its kernel offset.
    pub fn split(context: &'c Context, module: &mut Module<'c>) -> Self {
        let ops = top_level_ops(module);
        let ends = closed_runs(&ops);
        let kernels: Vec<usize> = ops
            .iter()
            .map(|op| tile_dialect::ops::find_ops(*op, "tile.kernel").len())
            .collect();
        let threads = unsafe { mlir_sys::mlirContextGetNumThreads(context.to_raw()) } as usize;
        // One thread when the context runs passes on one (multithreading disabled).
        let wanted = if threads > 1 { threads * PARTS_PER_THREAD } else { 1 };
        // Runs gathered into parts of about the same number of kernels, cut at run ends.
        let total: usize = kernels.iter().sum();
        let mut cuts = Vec::new();
        let (mut start, mut held) = (0, 0);
        for &end in &ends {
            held += kernels[start..end].iter().sum::<usize>();
            start = end;
            let part = cuts.len() + 1;
            if part < wanted && held * wanted >= total * part && held > 0 {
                cuts.push(end);
            }
        }
        if cuts.last() != Some(&ops.len()) {
            cuts.push(ops.len());
        }
        let location = Location::unknown(context);
        let container = Module::new(location);
        let attributes: Vec<_> = module
            .as_operation()
            .attributes()
            .filter(|(name, _)| {
                let name = name.as_string_ref().as_str().unwrap_or_default();
                name != "sym_name" && name != "sym_visibility"
            })
            .collect();
        let (mut start, mut offset) = (0, 0);
        for end in cuts {
            let mut part = Module::new(location);
            for (name, attribute) in &attributes {
                part.as_operation_mut()
                    .set_attribute(name.as_string_ref().as_str().unwrap_or_default(), *attribute);
            }
            let offset_attribute: Attribute =
                IntegerAttribute::new(IntegerType::new(context, 64).into(), offset as i64).into();
            part.as_operation_mut()
                .set_attribute(KERNEL_OFFSET_ATTRIBUTE, offset_attribute);
            for op in &ops[start..end] {
                unsafe {
                    mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
                    mlir_sys::mlirBlockAppendOwnedOperation(part.body().to_raw(), op.to_raw());
                }
            }
            offset += kernels[start..end].iter().sum::<usize>();
            start = end;
            unsafe {
                let op = mlir_sys::mlirModuleGetOperation(part.to_raw());
                std::mem::forget(part);
                mlir_sys::mlirBlockAppendOwnedOperation(container.body().to_raw(), op);
            }
        }
        Parts { container }
    }

    /// Returns how many parts there are.
    pub fn count(&self) -> usize {
        top_level_ops(&self.container).len()
    }

    /// Returns `passes` (a comma-separated list) as a pipeline over each part of the container.
    pub fn pipeline(&self, passes: &str) -> String {
        format!("builtin.module(builtin.module({passes}))")
    }

    /// Moves every part's ops back into `module`, in order, with the attributes the passes added
    /// to the parts. A symbol two parts both define (upstream's declarations of runtime functions,
    /// say) is kept once when the definitions print the same, and renamed in the later part
    /// otherwise.
    pub fn merge(self, module: &mut Module<'c>) {
        let mut defined: HashMap<String, mlir_sys::MlirOperation> = HashMap::new();
        for op in top_level_ops(module) {
            if let Some(name) = symbol_name(&op) {
                defined.insert(name, op.to_raw());
            }
        }
        let mut taken: HashSet<String> = defined.keys().cloned().collect();
        for (number, part) in top_level_ops(&self.container).into_iter().enumerate() {
            for (name, attribute) in part.attributes() {
                let name = name.as_string_ref().as_str().unwrap_or_default().to_owned();
                if name != KERNEL_OFFSET_ATTRIBUTE && !module.as_operation().has_attribute(&name) {
                    module.as_operation_mut().set_attribute(&name, attribute);
                }
            }
            let Some(body) = part.first_region().and_then(|region| region.first_block()) else {
                continue;
            };
            let mut next = body.first_operation();
            let mut ops = Vec::new();
            while let Some(op) = next {
                next = op.next_in_block();
                ops.push(op);
            }
            for op in ops {
                if let Some(name) = symbol_name(&op) {
                    if let Some(&first) = defined.get(&name) {
                        let first = unsafe { OperationRef::from_raw(first) };
                        if local_text(first) == local_text(op) {
                            unsafe { mlir_sys::mlirOperationDestroy(op.to_raw()) };
                            continue;
                        }
                        let mut renamed = format!("{name}_part{number}");
                        while taken.contains(&renamed) {
                            renamed.push('_');
                        }
                        rename_symbol(part, op, &name, &renamed);
                        taken.insert(renamed);
                    } else {
                        defined.insert(name.clone(), op.to_raw());
                        taken.insert(name);
                    }
                }
                unsafe {
                    mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
                    mlir_sys::mlirBlockAppendOwnedOperation(module.body().to_raw(), op.to_raw());
                }
            }
        }
    }
}

/// The kernel modules of a split program, each in a unit of its own while the target's passes
/// compile them: every unit is one op for MLIR's threads, with no parallel loop nested inside it
/// (the `gpu.module(...)` nests of the passes find one module). A thread waiting on a nested
/// parallel loop takes whatever task is queued, a whole part at the outer level too, and the other
/// threads then run out of work: with parts holding several kernel modules, one of two threads
/// did nearly all the code generation.
pub struct Units<'c> {
    /// The container: one `builtin.module` per kernel module, in program order.
    pub container: Module<'c>,
    /// Where each unit's ops go back: an empty `builtin.module` in its part, in the place of the
    /// kernel module.
    placeholders: Vec<mlir_sys::MlirOperation>,
}

impl<'c> Parts<'c> {
    /// Moves every `gpu.module` of the parts into a unit of its own (with its part's
    /// attributes), leaving a placeholder where it was.
    pub fn take_kernel_modules(&mut self, context: &'c Context) -> Units<'c> {
        let location = Location::unknown(context);
        let container = Module::new(location);
        let mut placeholders = Vec::new();
        for part in top_level_ops(&self.container) {
            let Some(body) = part.first_region().and_then(|region| region.first_block()) else {
                continue;
            };
            let mut next = body.first_operation();
            let mut kernel_modules = Vec::new();
            while let Some(op) = next {
                next = op.next_in_block();
                if op.name().as_string_ref().as_str() == Ok("gpu.module") {
                    kernel_modules.push(op);
                }
            }
            for kernel_module in kernel_modules {
                let mut unit = Module::new(location);
                for (name, attribute) in part.attributes() {
                    unit.as_operation_mut()
                        .set_attribute(name.as_string_ref().as_str().unwrap_or_default(), attribute);
                }
                unsafe {
                    let empty = Module::new(location);
                    let placeholder = mlir_sys::mlirModuleGetOperation(empty.to_raw());
                    std::mem::forget(empty);
                    mlir_sys::mlirBlockInsertOwnedOperationBefore(body.to_raw(), kernel_module.to_raw(), placeholder);
                    placeholders.push(placeholder);
                    mlir_sys::mlirOperationRemoveFromParent(kernel_module.to_raw());
                    mlir_sys::mlirBlockAppendOwnedOperation(unit.body().to_raw(), kernel_module.to_raw());
                    let unit_op = mlir_sys::mlirModuleGetOperation(unit.to_raw());
                    std::mem::forget(unit);
                    mlir_sys::mlirBlockAppendOwnedOperation(container.body().to_raw(), unit_op);
                }
            }
        }
        Units {
            container,
            placeholders,
        }
    }
}

impl Units<'_> {
    /// Moves what each unit holds now (the kernel module compiled: a `gpu.binary`, or the
    /// `gpu.module` and its `spirv.module`) back into its part, where the kernel module was.
    pub fn put_back(self) {
        for (unit, placeholder) in top_level_ops(&self.container).into_iter().zip(self.placeholders) {
            let Some(body) = unit.first_region().and_then(|region| region.first_block()) else {
                continue;
            };
            let mut next = body.first_operation();
            while let Some(op) = next {
                next = op.next_in_block();
                unsafe {
                    let block = mlir_sys::mlirOperationGetBlock(placeholder);
                    mlir_sys::mlirOperationRemoveFromParent(op.to_raw());
                    mlir_sys::mlirBlockInsertOwnedOperationBefore(block, placeholder, op.to_raw());
                }
            }
            unsafe { mlir_sys::mlirOperationDestroy(placeholder) };
        }
    }
}

/// Returns the text of `op` printed on its own (numbered within it, not from the top of its module:
/// printing a nested op otherwise numbers the whole module first).
pub fn local_text(op: OperationRef) -> String {
    use melior::ir::operation::OperationPrintingFlags;
    op.to_string_with_flags(OperationPrintingFlags::new().use_local_scope())
        .unwrap_or_default()
}

/// Renames the symbol `op` defines in `part` from `from` to `to`, with every use in `part`.
fn rename_symbol(part: OperationRef, op: OperationRef, from: &str, to: &str) {
    use melior::{StringRef, ir::attribute::StringAttribute};
    let context = op.context();
    unsafe {
        mlir_sys::mlirSymbolTableReplaceAllSymbolUses(
            StringRef::new(from).to_raw(),
            StringRef::new(to).to_raw(),
            part.to_raw(),
        );
        let name: Attribute = StringAttribute::new(&context.to_ref(), to).into();
        mlir_sys::mlirOperationSetAttributeByName(op.to_raw(), StringRef::new("sym_name").to_raw(), name.to_raw());
    }
}

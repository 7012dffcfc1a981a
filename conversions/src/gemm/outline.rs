//! Recomputes values of the tile program inside the emitted kernel: the index arithmetic of tile
//! origins and the epilogue bodies are cloned, as real IR, into small private functions that the
//! kernel calls and the `inline` pass folds away.

use melior::{
    Context,
    ir::{
        Block, BlockLike, Location, Module, Region, RegionLike, Type, Value, ValueLike,
        attribute::{StringAttribute, TypeAttribute},
        operation::{OperationLike, OperationMutLike, OperationRef, OperationResult},
        r#type::FunctionType,
    },
};
use std::collections::HashMap;
use tile_dialect::ops::clone_detached;

/// Clones the ops that compute values into one block, remapping operands as it goes.
struct Cloner<'c, 'b> {
    block: &'b Block<'c>,
    map: HashMap<usize, Value<'c, 'b>>,
}

fn key(value: Value) -> usize {
    value.to_raw().ptr as usize
}

impl<'c, 'b> Cloner<'c, 'b> {
    fn value(&mut self, value: Value<'c, '_>) -> Result<Value<'c, 'b>, String> {
        if let Some(mapped) = self.map.get(&key(value)) {
            return Ok(*mapped);
        }
        let Ok(result) = OperationResult::try_from(value) else {
            return Err(format!(
                "cannot recompute {value} inside the kernel: it is a block argument"
            ));
        };
        let owner = result.owner();
        self.op(owner)?;
        self.map
            .get(&key(value))
            .copied()
            .ok_or_else(|| "cloned op lost its result".into())
    }

    fn op(&mut self, op: OperationRef<'c, '_>) -> Result<(), String> {
        if op.region_count() > 0 {
            return Err(format!(
                "cannot recompute the result of {} inside the kernel",
                op.name().as_string_ref().as_str().unwrap_or("?")
            ));
        }
        let operands = op
            .operands()
            .map(|operand| self.value(operand))
            .collect::<Result<Vec<_>, _>>()?;
        let mut copy = clone_detached(op);
        for (index, operand) in operands.into_iter().enumerate() {
            copy.set_operand(index, operand);
        }
        let copy = self.block.append_operation(copy);
        for (original, cloned) in op.results().zip(copy.results()) {
            self.map.insert(key(original.into()), cloned.into());
        }
        Ok(())
    }
}

fn function_text<'c>(
    context: &'c Context,
    name: &str,
    inputs: &[Type<'c>],
    build: impl for<'b> FnOnce(&'b Block<'c>) -> Result<Vec<Value<'c, 'b>>, String>,
) -> Result<String, String> {
    let location = Location::unknown(context);
    let module = Module::new(location);
    let block = Block::new(&inputs.iter().map(|ty| (*ty, location)).collect::<Vec<_>>());
    let results = build(&block)?;
    let result_types: Vec<Type> = results.iter().map(|value| value.r#type()).collect();
    block.append_operation(melior::dialect::func::r#return(&results, location));
    let region = Region::new();
    region.append_block(block);
    let function = melior::dialect::func::func(
        context,
        StringAttribute::new(context, name),
        TypeAttribute::new(FunctionType::new(context, inputs, &result_types).into()),
        region,
        &[(
            melior::ir::Identifier::new(context, "sym_visibility"),
            StringAttribute::new(context, "private").into(),
        )],
        location,
    );
    let function = module.body().append_operation(function);
    Ok(function.to_string())
}

/// Returns the text of `func.func private @name(inputs) -> (roots' types)` computing `roots` from
/// `inputs` (block indices, induction variables) by cloning their defining ops.
pub fn slice_function<'c>(
    context: &'c Context,
    name: &str,
    inputs: &[Value<'c, '_>],
    roots: &[Value<'c, '_>],
) -> Result<String, String> {
    let types: Vec<Type> = inputs.iter().map(|value| value.r#type()).collect();
    function_text(context, name, &types, |block| {
        let mut cloner = Cloner {
            block,
            map: HashMap::new(),
        };
        for (index, input) in inputs.iter().enumerate() {
            cloner.map.insert(
                key(*input),
                block.argument(index).map_err(|e| e.to_string())?.into(),
            );
        }
        roots.iter().map(|root| cloner.value(*root)).collect()
    })
}

/// The other global tensors an epilogue reads (a bias vector, a residual tile) and the block
/// indices its index arithmetic may start from: extra inputs of the epilogue functions.
#[derive(Clone, Copy)]
pub struct EpilogueReads<'r, 'c, 'a> {
    /// The kernel's block indices.
    pub blocks: &'r [Value<'c, 'a>],
    /// The global tensors, in the order the functions take them.
    pub tensors: &'r [Value<'c, 'a>],
}

/// Returns the text of `func.func private @name(%v: f32, %i: index, %j: index, %rows: f32...,
/// params...[, blocks..., tensors...]) -> f32`: the accumulator start `fill` added, then the
/// epilogue loops (in order) applied to one accumulator element `v` at (i, j). Loads of the
/// accumulator read the current value, loads of `rows[r]` (at i) read the row's value; stores
/// replace the current value. With `reads` naming tensors, the function also takes the block
/// indices and those tensors, and a load of one reads it, clipped: an index past the end of its
/// dimension reads zero (the element of a ragged tile that is never stored).
pub fn epilogue_function<'c>(
    context: &'c Context,
    name: &str,
    fill: f64,
    loops: &[OperationRef<'c, '_>],
    rows: &[Value<'c, '_>],
    params: &[Value<'c, '_>],
    reads: EpilogueReads<'_, 'c, '_>,
) -> Result<String, String> {
    let f32 = Type::float32(context);
    let index = Type::index(context);
    let mut inputs = vec![f32, index, index];
    inputs.extend(rows.iter().map(|_| f32));
    inputs.extend(params.iter().map(|param| param.r#type()));
    // Block indices and tensors only where the epilogue reads other tensors: the functions of
    // every other kernel keep their signature.
    let (blocks, tensors) = if reads.tensors.is_empty() { (&[][..], &[][..]) } else { (reads.blocks, reads.tensors) };
    inputs.extend(blocks.iter().map(|block| block.r#type()));
    inputs.extend(tensors.iter().map(|tensor| tensor.r#type()));
    function_text(context, name, &inputs, |block| {
        let mut cloner = Cloner {
            block,
            map: HashMap::new(),
        };
        let extra = params.iter().chain(blocks).chain(tensors);
        for (position, value) in extra.enumerate() {
            cloner.map.insert(
                key(*value),
                block
                    .argument(3 + rows.len() + position)
                    .map_err(|e| e.to_string())?
                    .into(),
            );
        }
        let mut current: Value = block.argument(0).map_err(|e| e.to_string())?.into();
        if fill != 0.0 {
            // The accumulator's start: the kernel summed the products from zero.
            let location = Location::unknown(context);
            let start = block.append_operation(melior::dialect::arith::constant(
                context,
                melior::ir::attribute::FloatAttribute::new(context, f32, fill).into(),
                location,
            ));
            let start = start.result(0).map_err(|e| e.to_string())?.into();
            current = block
                .append_operation(melior::dialect::arith::addf(current, start, location))
                .result(0)
                .map_err(|e| e.to_string())?
                .into();
        }
        for parallel in loops {
            let body = parallel
                .region(0)
                .ok()
                .and_then(|region| region.first_block())
                .ok_or("empty epilogue")?;
            for dim in 0..2 {
                cloner.map.insert(
                    key(body.argument(dim).map_err(|e| e.to_string())?.into()),
                    block.argument(dim + 1).map_err(|e| e.to_string())?.into(),
                );
            }
            let mut next = body.first_operation();
            while let Some(op) = next {
                next = op.next_in_block();
                match op.name().as_string_ref().as_str().unwrap_or_default() {
                    // A load of a reduced row (at i) reads that row's argument; any other load
                    // reads the accumulator element.
                    "memref.load" => {
                        let source = op.operand(0).map_err(|e| e.to_string())?;
                        let loaded = if tensors.contains(&source) {
                            let tensor = cloner.value(source)?;
                            let indices = op
                                .operands()
                                .skip(1)
                                .map(|index| cloner.value(index))
                                .collect::<Result<Vec<_>, _>>()?;
                            clipped_load(context, block, tensor, &indices)?
                        } else {
                            match rows.iter().position(|row| *row == source) {
                                Some(row) => block.argument(3 + row).map_err(|e| e.to_string())?.into(),
                                None => current,
                            }
                        };
                        cloner.map.insert(key(op.result(0).map_err(|e| e.to_string())?.into()), loaded);
                    }
                    "memref.store" => {
                        current = cloner.value(op.operand(0).map_err(|e| e.to_string())?)?
                    }
                    "tile.yield" => {}
                    _ => cloner.op(op)?,
                }
            }
        }
        Ok(vec![current])
    })
}

/// Appends to `block` a load of `tensor` at `indices` that reads zero where an index lies past the end
/// of its dimension: the indices are clamped to 0 there (so that the load stays inside a non-empty
/// tensor) and the loaded value replaced by zero. Straight-line, so that the helpers stay one block.
fn clipped_load<'c, 'b>(
    context: &'c Context,
    block: &'b Block<'c>,
    tensor: Value<'c, 'b>,
    indices: &[Value<'c, 'b>],
) -> Result<Value<'c, 'b>, String> {
    use melior::dialect::{arith, memref};
    use melior::ir::{TypeLike, attribute::{FloatAttribute, IntegerAttribute}};
    let location = Location::unknown(context);
    let index = Type::index(context);
    let first = |op: OperationRef<'c, 'b>| -> Result<Value<'c, 'b>, String> { Ok(op.result(0).map_err(|e| e.to_string())?.into()) };
    let zero_index = first(block.append_operation(arith::constant(context, IntegerAttribute::new(index, 0).into(), location)))?;
    let mut inside: Option<Value> = None;
    let mut clamped = Vec::new();
    for (dim, position) in indices.iter().enumerate() {
        let dim = first(block.append_operation(arith::constant(context, IntegerAttribute::new(index, dim as i64).into(), location)))?;
        let size = first(block.append_operation(memref::dim(tensor, dim, location)))?;
        let fits = first(block.append_operation(arith::cmpi(context, arith::CmpiPredicate::Ult, *position, size, location)))?;
        clamped.push(first(block.append_operation(arith::select(fits, *position, zero_index, location)))?);
        inside = Some(match inside {
            Some(previous) => first(block.append_operation(arith::andi(previous, fits, location)))?,
            None => fits,
        });
    }
    let loaded = first(block.append_operation(memref::load(tensor, &clamped, location)))?;
    let Some(inside) = inside else { return Ok(loaded) };
    let element = loaded.r#type();
    let zero: melior::ir::Attribute = if element.is_integer() {
        IntegerAttribute::new(element, 0).into()
    } else {
        FloatAttribute::new(context, element, 0.0).into()
    };
    let zero = first(block.append_operation(arith::constant(context, zero, location)))?;
    first(block.append_operation(arith::select(inside, loaded, zero, location)))
}

/// Inlines every call of the outlined helper functions in `module` (they are straight-line: one
/// block, no regions) and erases the helpers. Upstream `-inline` leaves calls inside a `gpu.func`
/// body alone, so the kernel would otherwise keep real calls until LLVM.
pub fn inline_helpers<'c>(
    context: &'c Context,
    module: OperationRef<'c, '_>,
    helpers: &[&str],
) -> Result<(), String> {
    use melior::ir::attribute::FlatSymbolRefAttribute;
    let rewriter = melior::IrRewriter::new(context);
    let rewriter = rewriter.as_rewriter_base();
    let functions: HashMap<String, OperationRef> = tile_dialect::ops::find_ops(module, "func.func")
        .into_iter()
        .filter_map(|function| {
            let name = StringAttribute::try_from(function.attribute("sym_name").ok()?)
                .ok()?
                .value()
                .to_owned();
            helpers.contains(&name.as_str()).then_some((name, function))
        })
        .collect();
    for call in tile_dialect::ops::find_ops(module, "func.call") {
        let callee = call
            .attribute("callee")
            .ok()
            .and_then(|attr| FlatSymbolRefAttribute::try_from(attr).ok())
            .map(|attr| attr.value().to_owned());
        let Some(function) = callee.and_then(|name| functions.get(&name).copied()) else {
            continue;
        };
        let body = function
            .region(0)
            .ok()
            .and_then(|region| region.first_block())
            .ok_or("helper without a body")?;
        let caller_block = call.block().ok_or("call outside a block")?;
        let mut map: HashMap<usize, Value> = HashMap::new();
        for (index, operand) in call.operands().enumerate() {
            map.insert(
                key(body.argument(index).map_err(|e| e.to_string())?.into()),
                operand,
            );
        }
        let mut next = body.first_operation();
        while let Some(op) = next {
            next = op.next_in_block();
            if op.name().as_string_ref().as_str() == Ok("func.return") {
                let values: Vec<Value> = op
                    .operands()
                    .map(|value| map.get(&key(value)).copied().unwrap_or(value))
                    .collect();
                rewriter.replace_op_with_values(call, &values);
                break;
            }
            let mut copy = clone_detached(op);
            for (index, operand) in op.operands().enumerate() {
                if let Some(mapped) = map.get(&key(operand)) {
                    copy.set_operand(index, *mapped);
                }
            }
            let copy = caller_block.insert_operation_before(call, copy);
            for (original, cloned) in op.results().zip(copy.results()) {
                map.insert(key(original.into()), cloned.into());
            }
        }
    }
    for function in functions.into_values() {
        rewriter.erase_op(function);
    }
    Ok(())
}

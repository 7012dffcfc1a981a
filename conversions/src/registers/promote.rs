//! Matrix values out of their placeholders: the held cooperative-matrix accumulators
//! (the held rule of the cooperative-matrix family) are written and read through placeholder allocas while the rules
//! run, because the loops around them (`tile.pipelined`) carry no values; once the loops are
//! `scf.for`s, [`promote`] replaces every load of a placeholder by the value last stored to it,
//! adding an iteration argument (and a result) to each `scf.for` whose body touches it:
//!
//! ```text
//! store %m0, %v            scf.for ... iter_args(%x = %m0) {
//! scf.for ... {              %y = compute(%x)
//!   %x = load %v             scf.yield %y
//!   store compute(%x), %v  }
//! }
//! ```
//!
//! Placeholders only ever sit directly in `scf.for` bodies and the kernel's body
//! (the cooperative-matrix rules keep fills and gemms of held accumulators out of other region
//! ops); anything else is an internal error. A load before any store (an accumulator nothing
//! filled) reads a zero matrix.

use crate::cpu::builder::{At, Builder};
use melior::{
    Context,
    ir::{
        Block, BlockLike, BlockRef, Region, RegionLike, Type, Value, ValueLike,
        operation::{OperationLike, OperationRef},
    },
};
use tile_dialect::ops::{nested_ops, op_name};
use tile_dialect::positions::{BlockAt, OperationAt};
use tile_ir::{gpu, match_op, memref, scf};

/// The unit attribute marking a placeholder alloca of one held matrix.
pub const MATRIX_VARIABLE: &str = tile_dialect::decisions::COOPMAT_MATRIX;

/// Replaces the matrix placeholders of `kernel` by values (see the module) and erases them.
pub fn promote<'c>(context: &'c Context, kernel: OperationRef<'c, '_>) -> Result<(), String> {
    let placeholders: Vec<OperationRef> = nested_ops(kernel)
        .into_iter()
        .filter(|op| tile_ir::is(op, memref::AllocaOperation::name) && op.attribute(MATRIX_VARIABLE).is_ok())
        .collect();
    if placeholders.is_empty() {
        return Ok(());
    }
    let variables: Vec<Value> = placeholders
        .iter()
        .map(|op| op.result_at(0).expect("an alloca").into())
        .collect();
    let body = kernel.body().ok_or("a kernel without a body")?;
    let mut promotion = Promotion {
        context,
        variables,
        matrix: None,
    };
    let mut current = vec![None; promotion.variables.len()];
    promotion.block(body, &mut current)?;
    let rewriter = melior::IrRewriter::new(context);
    for placeholder in placeholders {
        rewriter.as_rewriter_base().erase_op(placeholder);
    }
    Ok(())
}

struct Promotion<'c, 'a> {
    context: &'c Context,
    variables: Vec<Value<'c, 'a>>,
    /// The matrix type, from the first access.
    matrix: Option<Type<'c>>,
}

impl<'c, 'a> Promotion<'c, 'a> {
    /// Which variable `op` stores to or loads from, and whether it stores.
    fn access(&self, op: &OperationRef<'c, 'a>) -> Option<(usize, bool)> {
        let (memref, store) = match_op!(op, {
            gpu::SubgroupMmaStoreMatrixOperation => (op.operand_at(1)?, true),
            gpu::SubgroupMmaLoadMatrixOperation => (op.operand_at(0)?, false),
            _ => return None,
        });
        self.variables
            .iter()
            .position(|variable| *variable == memref)
            .map(|index| (index, store))
    }

    /// The variables accessed inside `op`, in order.
    fn touched(&self, op: OperationRef<'c, 'a>) -> Vec<usize> {
        let mut found: Vec<usize> = nested_ops(op)
            .iter()
            .filter_map(|nested| self.access(nested))
            .map(|(index, _)| index)
            .collect();
        found.sort_unstable();
        found.dedup();
        found
    }

    /// A zero matrix before `op` (what an accumulator nothing stored to holds).
    fn zero(&self, op: OperationRef<'c, 'a>) -> Result<Value<'c, 'a>, String> {
        let ty = self.matrix.ok_or("a matrix read before its type is known")?;
        let b = Builder {
            context: self.context,
            location: op.location(),
            threads: None,
        };
        let at = At::before(op);
        let zero = b.constant(at, Type::float32(self.context), 0.0);
        Ok(b.value(
            at,
            gpu::subgroup_mma_constant_matrix(self.context, ty, zero, b.location).into(),
        ))
    }

    /// Promotes the accesses of `block` in order; `current` holds each variable's value on entry
    /// and on exit.
    fn block(&mut self, block: BlockRef<'c, 'a>, current: &mut [Option<Value<'c, 'a>>]) -> Result<(), String> {
        // Collected first: the loop below erases and rebuilds ops of the block.
        let ops: Vec<OperationRef> = std::iter::successors(block.first_operation(), |op| op.next_in_block()).collect();
        let rewriter = melior::IrRewriter::new(self.context);
        let rewriter = rewriter.as_rewriter_base();
        for op in ops {
            if let Some((variable, store)) = self.access(&op) {
                if store {
                    let value = op
                        .operand_at(0)
                        .ok_or_else(|| tile_dialect::positions::missing("operand", 0))?;
                    self.matrix = Some(value.r#type());
                    current[variable] = Some(value);
                } else {
                    self.matrix = Some(
                        op.result_at(0)
                            .ok_or_else(|| tile_dialect::positions::missing("result", 0))?
                            .r#type(),
                    );
                    let value = match current[variable] {
                        Some(value) => value,
                        None => self.zero(op)?,
                    };
                    rewriter.replace_all_uses_with(
                        op.result_at(0)
                            .ok_or_else(|| tile_dialect::positions::missing("result", 0))?
                            .into(),
                        value,
                    );
                }
                rewriter.erase_op(op);
                continue;
            }
            if op.region_count() == 0 {
                continue;
            }
            let touched = self.touched(op);
            if touched.is_empty() {
                continue;
            }
            if !tile_ir::is(&op, scf::ForOperation::name) {
                return Err(format!(
                    "internal error: a held cooperative matrix is used inside '{}', which cannot carry it",
                    op_name(&op)
                ));
            }
            self.for_loop(op, &touched, current)?;
        }
        Ok(())
    }

    /// Rebuilds the `scf.for` `old` with one more iteration argument and result per variable of
    /// `touched`, its body promoted.
    fn for_loop(
        &mut self,
        old: OperationRef<'c, 'a>,
        touched: &[usize],
        current: &mut [Option<Value<'c, 'a>>],
    ) -> Result<(), String> {
        let location = old.location();
        let rewriter = melior::IrRewriter::new(self.context);
        let rewriter = rewriter.as_rewriter_base();
        // The type of a variable first touched here: from the first access inside.
        if self.matrix.is_none() {
            self.matrix = nested_ops(old).iter().find_map(|nested| match self.access(nested)? {
                (_, true) => nested.operand_at(0).map(|value| value.r#type()),
                (_, false) => nested.result_at(0).map(|result| result.r#type()),
            });
        }
        let matrix = self
            .matrix
            .ok_or("internal error: a matrix variable without accesses")?;
        let old_body = old.body().ok_or("an scf.for without a body")?;
        let carried = old.operand_count() - 3;
        let mut inits: Vec<Value> = old.operands().collect();
        for variable in touched {
            inits.push(match current[*variable] {
                Some(value) => value,
                None => self.zero(old)?,
            });
        }
        let mut argument_types: Vec<(Type, melior::ir::Location)> = (0..old_body.argument_count())
            .map(|i| (old_body.argument_at(i).expect("an argument").r#type(), location))
            .collect();
        argument_types.extend(touched.iter().map(|_| (matrix, location)));
        let region = Region::new();
        region.append_block(Block::new(&argument_types));
        let mut result_types: Vec<Type> = old.results().map(|result| result.r#type()).collect();
        result_types.extend(touched.iter().map(|_| matrix));
        let b = Builder {
            context: self.context,
            location,
            threads: None,
        };
        // The old loop's bounds and step, then its carried values and the matrices.
        let new = b.insert(
            At::before(old),
            scf::r#for(
                self.context,
                &result_types,
                inits[0],
                inits[1],
                inits[2],
                &inits[3..],
                region,
                location,
            )
            .into(),
        );
        let body = new.body().expect("the new body");
        let placeholder = body.append_operation(melior::dialect::scf::r#yield(&[], location));
        let old_yield = old_body.terminator().ok_or("an scf.for body without its yield")?;
        let mut yielded: Vec<Value> = old_yield.operands().collect();
        rewriter.erase_op(old_yield);
        let arguments: Vec<Value> = (0..1 + carried)
            .map(|i| body.argument_at(i).expect("an argument").into())
            .collect();
        rewriter.inline_block_before(old_body, placeholder, &arguments);
        let mut inside = current.to_vec();
        for (k, variable) in touched.iter().enumerate() {
            inside[*variable] = Some(body.argument_at(1 + carried + k).expect("a carried matrix").into());
        }
        self.block(body, &mut inside)?;
        yielded.extend(touched.iter().map(|variable| inside[*variable].expect("set above")));
        b.insert(
            At::before(placeholder),
            melior::dialect::scf::r#yield(&yielded, location),
        );
        rewriter.erase_op(placeholder);
        for k in 0..carried {
            rewriter.replace_all_uses_with(
                old.result_at(k).expect("a result").into(),
                new.result_at(k).expect("a result").into(),
            );
        }
        for (k, variable) in touched.iter().enumerate() {
            current[*variable] = Some(new.result_at(carried + k).expect("a carried matrix").into());
        }
        rewriter.erase_op(old);
        Ok(())
    }
}

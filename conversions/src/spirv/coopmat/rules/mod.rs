//! The cooperative-matrix rules of spirv-coopmat: accumulators held in cooperative matrices from
//! their fill to one staging ([`held`]), and the other f16 gemms on matrices through a workgroup
//! staging area ([`staged`]).

mod held;
mod staged;

use crate::registers::prelude::*;
use held::Held;
use staged::CoopmatGemm;
use tile_dialect::positions::OperationAt;
use tile_ir::tile::{FillOperation, GemmOperation};

/// The KHR cooperative matrices of spirv-coopmat.
pub static COOPERATIVE_MATRICES: CooperativeMatrices = CooperativeMatrices;

/// The rules' family value ([`crate::target::Target::matrix`]).
pub struct CooperativeMatrices;

/// What the rules decided for one kernel.
pub struct CoopmatPlan {
    /// The gemms that run on cooperative matrices through a staging area.
    gemms: HashMap<usize, CoopmatGemm>,
    /// The accumulators held in cooperative matrices, by allocation.
    held: HashMap<usize, Held>,
}

/// The rules' numbers ([`MatrixPlan::rule`]).
const GEMM_HELD: u8 = 0;
const FILL_HELD: u8 = 1;
const STAGED: u8 = 2;

impl MatrixRules for CooperativeMatrices {
    fn instructions(&self) -> &'static str {
        "cooperative matrices"
    }

    fn plan<'c, 'a>(
        &self,
        kernel: &Kernel<'c, 'a, '_>,
        layouts: &Layouts,
    ) -> Result<Result<(Box<dyn MatrixPlan>, Off<'c, 'a>), Unsupported<'c, 'a>>, crate::kernels::Failure<'c, 'a>> {
        let shuffles = kernel.target.shuffle_lanes;
        let limit = kernel.target.shared_bytes(kernel.op);
        let free = staged::free_workgroup_bytes(kernel.ops, layouts, shuffles, limit);
        let held = held::held_plan(kernel.op, kernel.ops, layouts, kernel.threads, free);
        let (gemms, off) = staged::coopmat_plan(kernel.ops, layouts, &held, kernel.threads, shuffles, limit);
        Ok(Ok((Box::new(CoopmatPlan { gemms, held }), off)))
    }
}

impl CoopmatPlan {
    /// The held accumulator operand `operand` of `op` reads, with its matrices' placeholders.
    fn held_of<'p, 'c, 'a>(
        &'p self,
        lowering: &'p Lowering<'c, 'a, '_>,
        op: &OperationRef<'c, 'a>,
        operand: usize,
    ) -> Option<(&'p Held, &'p [Value<'c, 'a>])> {
        op.operand_at(operand).and_then(allocation).and_then(|allocation| {
            let variables = lowering.prepared.values.get(&key(&allocation))?;
            self.held
                .get(&key(&allocation))
                .map(|held| (held, variables.as_slice()))
        })
    }
}

impl MatrixPlan for CoopmatPlan {
    fn staging_elements(&self) -> i64 {
        let held = self.held.values().map(Held::staging_elements).max().unwrap_or(0);
        staged::staging_elements(&self.gemms).max(held)
    }

    fn begin<'c, 'a>(
        &self,
        lowering: &mut Lowering<'c, 'a, '_>,
        b: &Builder<'c>,
        start: At<'c, 'a>,
        ops: &[OperationRef<'c, 'a>],
        allocations: &[OperationRef<'c, 'a>],
    ) {
        // Each held accumulator's matrices, in placeholders until `promote`; staged into its
        // registers before the first op that reads it otherwise.
        let context = lowering.context;
        for allocation in allocations {
            let Some(held) = self.held.get(&key(allocation)) else {
                continue;
            };
            let variable_type = MemRefType::new(Type::float32(context), &[staged::MATRIX * staged::MATRIX], None, None);
            let variables: Vec<Value> = (0..held.count())
                .map(|_| {
                    let alloca = b.insert(
                        start,
                        melior::dialect::memref::alloca(context, variable_type, &[], &[], None, allocation.location()),
                    );
                    tile_dialect::ops::set_attribute(
                        alloca,
                        crate::registers::promote::MATRIX_VARIABLE,
                        Attribute::unit(context),
                    );
                    alloca.result_at(0).expect("an alloca").into()
                })
                .collect();
            if let Some(point) = held
                .staged_before
                .and_then(|point| ops.iter().find(|op| key(op) == point))
            {
                let fragment: Value = allocation.result_at(0).expect("a fragment").into();
                lowering.stage_held(
                    b,
                    At::before(*point),
                    fragment,
                    held,
                    &variables,
                    lowering.staging.expect("a staging area"),
                );
            }
            lowering.prepared.values.insert(key(allocation), variables);
        }
    }

    fn rule(&self, op: &OperationRef, lowering: &Lowering) -> Option<u8> {
        let held = |operand: usize| {
            op.operand_at(operand).and_then(allocation).is_some_and(|allocation| {
                self.held.contains_key(&key(&allocation)) && lowering.prepared.values.contains_key(&key(&allocation))
            })
        };
        tile_ir::match_op!(op, {
            GemmOperation if held(2) => Some(GEMM_HELD),
            FillOperation if held(0) => Some(FILL_HELD),
            GemmOperation if self.gemms.contains_key(&key(op)) => Some(STAGED),
            _ => None,
        })
    }

    fn lower<'c, 'a>(
        &self,
        lowering: &Lowering<'c, 'a, '_>,
        op: OperationRef<'c, 'a>,
        rule: u8,
        scratch: Option<Value<'c, 'a>>,
    ) {
        match rule {
            GEMM_HELD => {
                let (held, variables) = self.held_of(lowering, &op, 2).expect("held");
                lowering.gemm_held(op, held, variables)
            }
            FILL_HELD => lowering.fill_held(op, self.held_of(lowering, &op, 0).expect("held").1),
            _ => lowering.coopmat(
                op,
                scratch,
                lowering.staging.expect("a staging area"),
                self.gemms[&key(&op)],
            ),
        }
    }
}

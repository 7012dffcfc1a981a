//! The matrix-core rules of gfx942: gemms on `amdgpu.mfma` ([`mfma`]) and their accumulators
//! stored to global tensors through LDS in 16-byte runs ([`staged_store`]).

mod mfma;
mod staged_store;

use crate::registers::prelude::*;
use mfma::MfmaGemm;

/// The mfma rules of gfx942.
pub static MATRIX_CORES: MatrixCores = MatrixCores;

/// The rules' family value ([`crate::target::Target::matrix`]).
pub struct MatrixCores;

/// What the rules decided for one kernel: the gemms on mfma, with their instruction and wave split.
pub struct MfmaPlan {
    gemms: HashMap<usize, MfmaGemm>,
}

impl MatrixRules for MatrixCores {
    fn instructions(&self) -> &'static str {
        "matrix instructions"
    }

    fn plan<'c, 'a>(
        &self,
        kernel: &Kernel<'c, 'a, '_>,
        layouts: &Layouts,
    ) -> Result<Result<(Box<dyn MatrixPlan>, Off<'c, 'a>), Unsupported<'c, 'a>>, crate::kernels::Failure<'c, 'a>> {
        let (gemms, off) = mfma::mfma_plan(kernel.ops, layouts, kernel.threads);
        Ok(Ok((Box::new(MfmaPlan { gemms }), off)))
    }
}

impl MatrixPlan for MfmaPlan {
    fn register_a(&self, gemm: &OperationRef, _layouts: &Layouts) -> bool {
        self.gemms.get(&key(gemm)).is_some_and(|plan| plan.register_a)
    }

    fn rule(&self, op: &OperationRef, _lowering: &Lowering) -> Option<u8> {
        (tile_ir::is(op, tile_ir::tile::GemmOperation::name) && self.gemms.contains_key(&key(op))).then_some(0)
    }

    fn lower<'c, 'a>(
        &self,
        lowering: &Lowering<'c, 'a, '_>,
        op: OperationRef<'c, 'a>,
        _rule: u8,
        scratch: Option<Value<'c, 'a>>,
    ) {
        lowering.mfma(op, scratch, self.gemms[&key(&op)]);
    }

    fn copy_out<'c, 'a>(
        &self,
        lowering: &Lowering<'c, 'a, '_>,
        op: OperationRef<'c, 'a>,
        src: Value<'c, 'a>,
        dst: Value<'c, 'a>,
        offsets: &Origin<'c, 'a>,
    ) -> bool {
        lowering.copy_out_staged(op, src, dst, offsets)
    }
}

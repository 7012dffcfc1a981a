//! A small IR builder for the CPU lowering: ops go before an anchor op of a block, loops and
//! conditionals are created empty and then filled through the anchor they return.

use melior::{
    Context,
    dialect::{arith, memref, scf},
    ir::{
        Attribute, Block, BlockLike, Location, Operation, Region, RegionLike, Type, TypeLike, Value,
        attribute::{FloatAttribute, IntegerAttribute},
        block::BlockRef,
        operation::{OperationBuilder, OperationLike, OperationRef},
    },
};

/// Where new ops go: in `block`, before `before`.
#[derive(Clone, Copy)]
pub struct At<'c, 'a> {
    /// The block that receives the ops.
    pub block: BlockRef<'c, 'a>,
    /// The op they go before.
    pub before: OperationRef<'c, 'a>,
}

impl<'c, 'a> At<'c, 'a> {
    /// Returns the position just before `op`.
    pub fn before(op: OperationRef<'c, 'a>) -> Self {
        Self {
            block: op.block().expect("op in a block"),
            before: op,
        }
    }
}

/// Builds ops at a location.
#[derive(Clone, Copy)]
pub struct Builder<'c> {
    /// The context.
    pub context: &'c Context,
    /// The location every built op gets (the tile op it lowers).
    pub location: Location<'c>,
    /// Threads of a block that share the work of each tile op (`None`: one thread does it all).
    pub threads: Option<i64>,
}

impl<'c> Builder<'c> {
    /// Inserts `op` at `at` and returns it.
    pub fn insert<'a>(&self, at: At<'c, 'a>, op: Operation<'c>) -> OperationRef<'c, 'a> {
        at.block.insert_operation_before(at.before, op)
    }

    /// Inserts `op` and returns its first result.
    pub fn value<'a>(&self, at: At<'c, 'a>, op: Operation<'c>) -> Value<'c, 'a> {
        self.insert(at, op).result(0).expect("op with a result").into()
    }

    /// Returns an `index` constant.
    pub fn index<'a>(&self, at: At<'c, 'a>, value: i64) -> Value<'c, 'a> {
        let attr = IntegerAttribute::new(Type::index(self.context), value).into();
        self.value(at, arith::constant(self.context, attr, self.location))
    }

    /// Returns a constant of float or integer type `ty`.
    pub fn constant<'a>(&self, at: At<'c, 'a>, ty: Type<'c>, value: f64) -> Value<'c, 'a> {
        let attr: Attribute = if ty.is_integer() || ty.is_index() {
            IntegerAttribute::new(ty, value as i64).into()
        } else {
            FloatAttribute::new(self.context, ty, value).into()
        };
        self.value(at, arith::constant(self.context, attr, self.location))
    }

    /// Returns `name(operands)` with the result type inferred (arith binary ops, selects...).
    pub fn op<'a>(&self, at: At<'c, 'a>, name: &str, operands: &[Value<'c, '_>]) -> Value<'c, 'a> {
        let op = OperationBuilder::new(name, self.location)
            .add_operands(operands)
            .enable_result_type_inference()
            .build()
            .unwrap_or_else(|error| panic!("cannot build {name}: {error}"));
        self.value(at, op)
    }

    /// Returns `name(operand) : result` (casts).
    pub fn cast<'a>(&self, at: At<'c, 'a>, name: &str, operand: Value<'c, '_>, result: Type<'c>) -> Value<'c, 'a> {
        let op = OperationBuilder::new(name, self.location)
            .add_operands(&[operand])
            .add_results(&[result])
            .build()
            .unwrap_or_else(|error| panic!("cannot build {name}: {error}"));
        self.value(at, op)
    }

    /// Returns an unsigned integer comparison (`ult`, `uge`, ...) of two index values.
    pub fn compare<'a>(
        &self,
        at: At<'c, 'a>,
        predicate: &str,
        lhs: Value<'c, '_>,
        rhs: Value<'c, '_>,
    ) -> Value<'c, 'a> {
        let predicate = match predicate {
            "eq" => arith::CmpiPredicate::Eq,
            "ult" => arith::CmpiPredicate::Ult,
            "ule" => arith::CmpiPredicate::Ule,
            "ugt" => arith::CmpiPredicate::Ugt,
            "uge" => arith::CmpiPredicate::Uge,
            other => panic!("unsupported predicate {other}"),
        };
        self.value(at, arith::cmpi(self.context, predicate, lhs, rhs, self.location))
    }

    /// Returns `memref[indices]`.
    pub fn load<'a>(&self, at: At<'c, 'a>, memref: Value<'c, '_>, indices: &[Value<'c, '_>]) -> Value<'c, 'a> {
        self.value(at, memref::load(memref, indices, self.location))
    }

    /// Stores `value` at `memref[indices]`.
    pub fn store(&self, at: At<'c, '_>, value: Value<'c, '_>, memref: Value<'c, '_>, indices: &[Value<'c, '_>]) {
        self.insert(at, memref::store(value, memref, indices, self.location));
    }

    /// Returns the size of dimension `dim` of `memref`.
    pub fn dim<'a>(&self, at: At<'c, 'a>, memref: Value<'c, '_>, dim: i64) -> Value<'c, 'a> {
        let index = self.index(at, dim);
        self.value(at, memref::dim(memref, index, self.location))
    }

    fn body_region(&self, arguments: &[Type<'c>]) -> Region<'c> {
        let block = Block::new(&arguments.iter().map(|ty| (*ty, self.location)).collect::<Vec<_>>());
        block.append_operation(scf::r#yield(&[], self.location));
        let region = Region::new();
        region.append_block(block);
        region
    }

    fn inside<'a>(op: OperationRef<'c, 'a>, region: usize) -> (BlockRef<'c, 'a>, At<'c, 'a>) {
        let block = op.region(region).expect("region").first_block().expect("body block");
        let terminator = block.terminator().expect("scf.yield");
        (
            block,
            At {
                block,
                before: terminator,
            },
        )
    }

    /// Creates `scf.for iv = lower to upper step step {}` at `at`; returns the body position and iv.
    pub fn for_loop<'a>(
        &self,
        at: At<'c, 'a>,
        lower: Value<'c, '_>,
        upper: Value<'c, '_>,
        step: Value<'c, '_>,
    ) -> (At<'c, 'a>, Value<'c, 'a>) {
        let region = self.body_region(&[Type::index(self.context)]);
        let op = self.insert(at, scf::r#for(lower, upper, step, region, self.location));
        let (block, inside) = Self::inside(op, 0);
        (inside, block.argument(0).expect("induction variable").into())
    }

    /// Creates a nest of loops from 0 to each of `extents` (step 1); returns the innermost body and
    /// the induction variables, outermost first.
    pub fn loop_nest<'a>(&self, at: At<'c, 'a>, extents: &[Value<'c, 'a>]) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let mut position = at;
        let mut ivs = Vec::new();
        for extent in extents {
            let zero = self.index(position, 0);
            let one = self.index(position, 1);
            let (inside, iv) = self.for_loop(position, zero, *extent, one);
            position = inside;
            ivs.push(iv);
        }
        (position, ivs)
    }

    /// Creates the loops over a tile op's independent iterations. Sequential on the CPU; on a GPU the
    /// flattened iteration space is dealt out to the block's threads (element `e = k * threads +
    /// tid` in trip `k`), and a barrier after the loops makes the results visible to every thread.
    /// The trip count is a constant (the last trip guarded when threads do not divide the total), so
    /// the backend can unroll the loop and overlap its loads.
    pub fn parallel_nest<'a>(&self, at: At<'c, 'a>, extents: &[i64]) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let nest = self.own_nest(at, extents);
        if self.threads.is_some() {
            self.barrier(at);
        }
        nest
    }

    /// The loops of [`Self::parallel_nest`] without its barrier: for a tile op that deals the same
    /// iterations out several times (each thread meets only its own elements each time) and
    /// synchronizes once after them all.
    pub fn own_nest<'a>(&self, at: At<'c, 'a>, extents: &[i64]) -> (At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let Some(threads) = self.threads else {
            let extents: Vec<Value> = extents.iter().map(|extent| self.index(at, *extent)).collect();
            return self.loop_nest(at, &extents);
        };
        let total: i64 = extents.iter().product();
        let tid = self.thread_id(at);
        let zero = self.index(at, 0);
        let trips = self.index(at, (total + threads - 1) / threads);
        let one = self.index(at, 1);
        let (body, trip) = self.for_loop(at, zero, trips, one);
        let stride = self.index(body, threads);
        let start = self.op(body, "arith.muli", &[trip, stride]);
        let flat = self.op(body, "arith.addi", &[start, tid]);
        let inside = if total % threads == 0 {
            body
        } else {
            let end = self.index(body, total);
            let in_range = self.compare(body, "ult", flat, end);
            self.if_then(body, in_range)
        };
        let ivs = self.unflatten(inside, flat, extents);
        (inside, ivs)
    }

    /// Returns the address of `memref`'s first element as an `index`
    /// (`memref.extract_aligned_pointer_as_index`): what descriptors, barriers and alignment
    /// checks compute with.
    pub fn aligned_pointer<'a>(&self, at: At<'c, 'a>, memref: Value<'c, '_>) -> Value<'c, 'a> {
        self.value(
            at,
            OperationBuilder::new("memref.extract_aligned_pointer_as_index", self.location)
                .add_operands(&[memref])
                .add_results(&[Type::index(self.context)])
                .build()
                .expect("memref.extract_aligned_pointer_as_index"),
        )
    }

    /// Returns field `position`, of type `field`, of the struct `aggregate` (a tensor-core
    /// instruction's results), as `llvm.extractvalue`.
    pub fn extract<'a>(
        &self,
        at: At<'c, 'a>,
        aggregate: Value<'c, '_>,
        position: i64,
        field: Type<'c>,
    ) -> Value<'c, 'a> {
        self.value(
            at,
            OperationBuilder::new("llvm.extractvalue", self.location)
                .add_operands(&[aggregate])
                .add_attributes(&[(
                    melior::ir::Identifier::new(self.context, "position"),
                    crate::attributes::i64_array(self.context, &[position]),
                )])
                .add_results(&[field])
                .build()
                .expect("llvm.extractvalue"),
        )
    }

    /// Returns `gpu.thread_id x`.
    pub fn thread_id<'a>(&self, at: At<'c, 'a>) -> Value<'c, 'a> {
        self.value(
            at,
            OperationBuilder::new("gpu.thread_id", self.location)
                .add_attributes(&[(
                    melior::ir::Identifier::new(self.context, "dimension"),
                    Attribute::parse(self.context, "#gpu<dim x>").expect("dimension"),
                )])
                .add_results(&[Type::index(self.context)])
                .build()
                .expect("gpu.thread_id"),
        )
    }

    /// Inserts `gpu.barrier`.
    pub fn barrier(&self, at: At<'c, '_>) {
        self.insert(
            at,
            OperationBuilder::new("gpu.barrier", self.location)
                .build()
                .expect("gpu.barrier"),
        );
    }

    /// Splits the row-major flat index `flat` into indices of `extents` (innermost fastest).
    pub fn unflatten<'a>(&self, at: At<'c, 'a>, flat: Value<'c, 'a>, extents: &[i64]) -> Vec<Value<'c, 'a>> {
        let mut ivs = Vec::new();
        let mut rest = flat;
        for (position, extent) in extents.iter().enumerate().rev() {
            if position == 0 {
                ivs.push(rest);
                break;
            }
            let size = self.index(at, *extent);
            ivs.push(self.op(at, "arith.remui", &[rest, size]));
            rest = self.op(at, "arith.divui", &[rest, size]);
        }
        ivs.reverse();
        ivs
    }

    /// Creates `scf.if condition {}` (no else) at `at`; returns the then-body position.
    pub fn if_then<'a>(&self, at: At<'c, 'a>, condition: Value<'c, '_>) -> At<'c, 'a> {
        let then_region = self.body_region(&[]);
        let op = self.insert(at, scf::r#if(condition, &[], then_region, Region::new(), self.location));
        Self::inside(op, 0).1
    }

    /// Creates `scf.if condition {} else {}` at `at`; returns the then- and else-body positions.
    pub fn if_else<'a>(&self, at: At<'c, 'a>, condition: Value<'c, '_>) -> (At<'c, 'a>, At<'c, 'a>) {
        let op = self.insert(
            at,
            scf::r#if(
                condition,
                &[],
                self.body_region(&[]),
                self.body_region(&[]),
                self.location,
            ),
        );
        (Self::inside(op, 0).1, Self::inside(op, 1).1)
    }
}

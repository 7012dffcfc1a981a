//! A small IR builder for the CPU lowering: ops go before an anchor op of a block, loops and
//! conditionals are created empty and then filled through the anchor they return.

use melior::{
    Context,
    dialect::{arith, memref, scf},
    ir::{
        Attribute, Block, BlockLike, Location, Operation, Region, RegionLike, Type, TypeLike, Value, ValueLike,
        attribute::{FloatAttribute, IntegerAttribute},
        block::BlockRef,
        operation::{OperationBuilder, OperationLike, OperationRef},
    },
};
use tile_dialect::positions::{BlockAt, OperationAt};

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

/// An op of two operands whose result type is inferred, as a generated constructor returns it.
pub type Binary = for<'c, 'x, 'y> fn(&'c Context, Value<'c, 'x>, Value<'c, 'y>, Location<'c>) -> Operation<'c>;

/// Declares `Builder` methods for arith's integer ops of two operands (`b.addi(at, lhs, rhs)`).
macro_rules! integer_binaries {
    ($($name:ident: $doc:literal),* $(,)?) => {
        impl<'c> Builder<'c> {
            $(
                #[doc = $doc]
                pub fn $name<'a>(&self, at: At<'c, 'a>, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Value<'c, 'a> {
                    self.binary(at, |c, x, y, l| tile_ir::arith::$name(c, x, y, l).into(), lhs, rhs)
                }
            )*
        }
    };
}

integer_binaries! {
    addi: "Returns `lhs + rhs` (`arith.addi`).",
    subi: "Returns `lhs - rhs` (`arith.subi`).",
    muli: "Returns `lhs * rhs` (`arith.muli`).",
    divui: "Returns `lhs / rhs`, unsigned (`arith.divui`).",
    remui: "Returns `lhs % rhs`, unsigned (`arith.remui`).",
    minui: "Returns the unsigned minimum (`arith.minui`).",
    maxui: "Returns the unsigned maximum (`arith.maxui`).",
    ceildivui: "Returns `lhs / rhs` rounded up, unsigned (`arith.ceildivui`).",
    andi: "Returns `lhs & rhs` (`arith.andi`).",
    ori: "Returns `lhs | rhs` (`arith.ori`).",
    xori: "Returns `lhs ^ rhs` (`arith.xori`).",
    shli: "Returns `lhs << rhs` (`arith.shli`).",
    shrui: "Returns `lhs >> rhs`, logical (`arith.shrui`).",
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
        self.insert(at, op).result_at(0).expect("op with a result").into()
    }

    /// Returns an `index` constant.
    pub fn index<'a>(&self, at: At<'c, 'a>, value: i64) -> Value<'c, 'a> {
        let attr = IntegerAttribute::new(Type::index(self.context), value).into();
        self.value(at, arith::constant(self.context, attr, self.location))
    }

    /// Returns a constant of float or integer type `ty`.
    pub fn constant<'a>(&self, at: At<'c, 'a>, ty: Type<'c>, value: f64) -> Value<'c, 'a> {
        if ty.is_integer() || ty.is_index() {
            return self.integer(at, ty, value as i64);
        }
        let attr = FloatAttribute::new(self.context, ty, value).into();
        self.value(at, arith::constant(self.context, attr, self.location))
    }

    /// Returns a constant of integer (or index) type `ty`, every bit of `value` kept.
    pub fn integer<'a>(&self, at: At<'c, 'a>, ty: Type<'c>, value: i64) -> Value<'c, 'a> {
        let attr = IntegerAttribute::new(ty, value).into();
        self.value(at, arith::constant(self.context, attr, self.location))
    }

    /// Returns `op(lhs, rhs)`, an arith op of two operands whose result type is inferred.
    pub fn binary<'a>(&self, at: At<'c, 'a>, op: Binary, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Value<'c, 'a> {
        self.value(at, op(self.context, lhs, rhs, self.location))
    }

    /// Returns `lhs + rhs`: `arith.addf` on floats, `arith.addi` on integers and indices.
    pub fn add<'a>(&self, at: At<'c, 'a>, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Value<'c, 'a> {
        if lhs.r#type().is_integer() || lhs.r#type().is_index() {
            self.addi(at, lhs, rhs)
        } else {
            self.binary(at, |c, x, y, l| tile_ir::arith::addf(c, x, y, l).into(), lhs, rhs)
        }
    }

    /// Returns `lhs * rhs`: `arith.mulf` on floats, `arith.muli` on integers and indices.
    pub fn multiply<'a>(&self, at: At<'c, 'a>, lhs: Value<'c, '_>, rhs: Value<'c, '_>) -> Value<'c, 'a> {
        if lhs.r#type().is_integer() || lhs.r#type().is_index() {
            self.muli(at, lhs, rhs)
        } else {
            self.binary(at, |c, x, y, l| tile_ir::arith::mulf(c, x, y, l).into(), lhs, rhs)
        }
    }

    /// Returns `|operand|` (`math.absf`).
    pub fn absf<'a>(&self, at: At<'c, 'a>, operand: Value<'c, '_>) -> Value<'c, 'a> {
        self.value(at, tile_ir::math::absf(self.context, operand, self.location).into())
    }

    /// Returns `cast(operand) : result`, `cast` being a generated constructor of a cast
    /// (`tile_ir::arith::index_cast`, `tile_ir::llvm::inttoptr`, ...).
    pub fn cast<'a, Cast: Into<Operation<'c>>>(
        &self,
        at: At<'c, 'a>,
        cast: fn(&'c Context, Type<'c>, Value<'c, '_>, Location<'c>) -> Cast,
        operand: Value<'c, '_>,
        result: Type<'c>,
    ) -> Value<'c, 'a> {
        self.value(at, cast(self.context, result, operand, self.location).into())
    }

    /// Returns `condition ? yes : no` (`arith.select`).
    pub fn select<'a>(
        &self,
        at: At<'c, 'a>,
        condition: Value<'c, '_>,
        yes: Value<'c, '_>,
        no: Value<'c, '_>,
    ) -> Value<'c, 'a> {
        self.value(at, arith::select(condition, yes, no, self.location))
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
            "ne" => arith::CmpiPredicate::Ne,
            "slt" => arith::CmpiPredicate::Slt,
            "ult" => arith::CmpiPredicate::Ult,
            "ule" => arith::CmpiPredicate::Ule,
            "ugt" => arith::CmpiPredicate::Ugt,
            "uge" => arith::CmpiPredicate::Uge,
            other => panic!("unsupported predicate {other}"),
        };
        self.value(at, arith::cmpi(self.context, predicate, lhs, rhs, self.location))
    }

    /// Returns `arith.cmpf predicate, lhs, rhs`.
    pub fn compare_float<'a>(
        &self,
        at: At<'c, 'a>,
        predicate: arith::CmpfPredicate,
        lhs: Value<'c, '_>,
        rhs: Value<'c, '_>,
    ) -> Value<'c, 'a> {
        self.value(at, arith::cmpf(self.context, predicate, lhs, rhs, self.location))
    }

    /// Returns `memref[indices]`.
    pub fn load<'a>(&self, at: At<'c, 'a>, memref: Value<'c, '_>, indices: &[Value<'c, '_>]) -> Value<'c, 'a> {
        self.value(at, memref::load(memref, indices, self.location))
    }

    /// Stores `value` at `memref[indices]`.
    pub fn store(&self, at: At<'c, '_>, value: Value<'c, '_>, memref: Value<'c, '_>, indices: &[Value<'c, '_>]) {
        self.insert(at, memref::store(value, memref, indices, self.location));
    }

    /// Stores `value` at `memref[indices]`, or with `atomic` (an atomic `tile.copy`'s kind) updates
    /// the element with it atomically.
    pub fn write(
        &self,
        at: At<'c, '_>,
        value: Value<'c, '_>,
        memref: Value<'c, '_>,
        indices: &[Value<'c, '_>],
        atomic: Option<tile_dialect::ops::ReductionKind>,
    ) {
        let Some(kind) = atomic else {
            return self.store(at, value, memref, indices);
        };
        let ty = value.r#type();
        let kind = tile_dialect::atomic::AtomicKind::of_copy(kind, !ty.is_integer()).expect("a verified atomic copy");
        let kind = IntegerAttribute::new(
            melior::ir::r#type::IntegerType::new(self.context, 64).into(),
            kind.number(),
        );
        self.insert(
            at,
            tile_ir::memref::AtomicRMWOperation::builder(self.context, self.location)
                .result(ty)
                .value(value)
                .memref(memref)
                .indices(indices)
                .kind(kind.into())
                .build()
                .into(),
        );
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
        let block = op.region_at(region).expect("region").first_block().expect("body block");
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
        (inside, block.argument_at(0).expect("induction variable").into())
    }

    /// Creates `scf.for iv = lower to upper step step iter_args(carried = initial)` at `at`, whose body
    /// yields the carried value unchanged until [`Self::yield_value`] says what it becomes; returns
    /// the body position (before that yield), the iv and the carried value.
    pub fn for_loop_carrying<'a>(
        &self,
        at: At<'c, 'a>,
        bounds: [Value<'c, '_>; 3],
        initial: Value<'c, '_>,
    ) -> (At<'c, 'a>, Value<'c, 'a>, Value<'c, 'a>) {
        let (inside, iv, carried) = self.for_loop_carrying_all(at, bounds, &[initial]);
        (inside, iv, carried[0])
    }

    /// [`Self::for_loop_carrying`] of several values: the body yields them unchanged until
    /// [`Self::yield_values`] says what they become.
    pub fn for_loop_carrying_all<'a>(
        &self,
        at: At<'c, 'a>,
        [lower, upper, step]: [Value<'c, '_>; 3],
        initial: &[Value<'c, '_>],
    ) -> (At<'c, 'a>, Value<'c, 'a>, Vec<Value<'c, 'a>>) {
        let types: Vec<Type> = initial.iter().map(|value| value.r#type()).collect();
        let mut arguments = vec![(Type::index(self.context), self.location)];
        arguments.extend(types.iter().map(|ty| (*ty, self.location)));
        let block = Block::new(&arguments);
        let carried: Vec<Value> = (1..block.argument_count())
            .map(|i| block.argument_at(i).expect("carried value").into())
            .collect();
        block.append_operation(scf::r#yield(&carried, self.location));
        let region = Region::new();
        region.append_block(block);
        let mut operands = vec![lower, upper, step];
        operands.extend_from_slice(initial);
        let op = OperationBuilder::new("scf.for", self.location)
            .add_operands(&operands)
            .add_results(&types)
            .add_regions([region])
            .build()
            .expect("scf.for with carried values");
        let op = self.insert(at, op);
        let (block, inside) = Self::inside(op, 0);
        let carried = (1..block.argument_count())
            .map(|i| block.argument_at(i).expect("carried value").into())
            .collect();
        (
            inside,
            block.argument_at(0).expect("induction variable").into(),
            carried,
        )
    }

    /// Makes the body of a [`Self::for_loop_carrying`] (`at`: its position) carry `value` on.
    pub fn yield_value<'a>(&self, at: At<'c, 'a>, value: Value<'c, 'a>) {
        self.yield_values(at, &[value]);
    }

    /// Makes the region whose yield is at `at` (a [`Self::for_loop_carrying_all`] or an
    /// [`Self::if_else_yielding`]) yield `values`.
    pub fn yield_values<'a>(&self, at: At<'c, 'a>, values: &[Value<'c, 'a>]) {
        for (position, value) in values.iter().enumerate() {
            tile_dialect::ops::set_operand(at.before, position, *value);
        }
    }

    /// Creates `scf.if condition -> (types of initial) {} else {}` at `at`, each branch yielding
    /// `initial` until [`Self::yield_values`] says otherwise; returns the then- and else-body
    /// positions and the results.
    pub fn if_else_yielding<'a>(
        &self,
        at: At<'c, 'a>,
        condition: Value<'c, '_>,
        initial: &[Value<'c, 'a>],
    ) -> (At<'c, 'a>, At<'c, 'a>, Vec<Value<'c, 'a>>) {
        let types: Vec<Type> = initial.iter().map(|value| value.r#type()).collect();
        let region = || {
            let block = Block::new(&[]);
            block.append_operation(scf::r#yield(initial, self.location));
            let region = Region::new();
            region.append_block(block);
            region
        };
        let op = self.insert(at, scf::r#if(condition, &types, region(), region(), self.location));
        let results = (0..op.result_count())
            .map(|i| op.result_at(i).expect("result").into())
            .collect();
        (Self::inside(op, 0).1, Self::inside(op, 1).1, results)
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
        let start = self.muli(body, trip, stride);
        let flat = self.addi(body, start, tid);
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
        let index = Type::index(self.context);
        let address = tile_ir::memref::extract_aligned_pointer_as_index(self.context, index, memref, self.location);
        self.value(at, address.into())
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
        let position = crate::attributes::i64_array(self.context, &[position]);
        let field = tile_ir::llvm::extractvalue(self.context, field, aggregate, position, self.location);
        self.value(at, field.into())
    }

    /// Returns `gpu.thread_id x`.
    pub fn thread_id<'a>(&self, at: At<'c, 'a>) -> Value<'c, 'a> {
        self.dimension_index(at, tile_ir::gpu::ThreadIdOperation::name, "x")
    }

    /// Returns the `index` of the calling thread or block along `dimension` (`x`, `y` or `z`): the
    /// op named by `op`, a generated name function (`tile_ir::gpu::BlockIdOperation::name`, ...).
    /// Built by that name with its result given: the ODS result of these ops is unnamed, and
    /// melior's generated constructors leave unnamed results out (the op would have none).
    pub fn dimension_index<'a>(&self, at: At<'c, 'a>, op: fn() -> &'static str, dimension: &str) -> Value<'c, 'a> {
        self.value(
            at,
            OperationBuilder::new(op(), self.location)
                .add_attributes(&[(
                    melior::ir::Identifier::new(self.context, "dimension"),
                    Attribute::parse(self.context, &format!("#gpu<dim {dimension}>")).expect("dimension"),
                )])
                .add_results(&[Type::index(self.context)])
                .build()
                .expect("a gpu index op"),
        )
    }

    /// Inserts `gpu.barrier`.
    pub fn barrier(&self, at: At<'c, '_>) {
        self.insert(at, tile_ir::gpu::barrier(self.context, self.location).into());
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
            ivs.push(self.remui(at, rest, size));
            rest = self.divui(at, rest, size);
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

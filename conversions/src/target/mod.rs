//! Targets as values: every fact and choice that differs between the chips tile compiles for, one
//! file a target ([`sm_90a`], [`sm_80`], [`gfx942`], [`spirv`], [`spirv_coopmat`]), listed in
//! [`TARGETS`].
//!
//! A target's name is parsed once, where it enters (the command line, a pipeline's `chip`
//! option, the module's `tile.target` attribute: [`Target::parse`], [`Target::of`]); from there on
//! the passes hold a `&'static Target` and ask it questions (which matrix instructions exist, how
//! rings are filled, how much shared memory a block has) instead of comparing names. The lowering
//! pass of every target is one ([`crate::lowering`]), built from the value; so is its pipeline
//! ([`crate::pipelines`]).

pub mod gfx942;
pub mod sm_80;
pub mod sm_90a;
pub mod spirv;
pub mod spirv_coopmat;

use tile_dialect::atomic::AtomicKind;

use melior::{
    dialect::DialectHandle,
    ir::operation::{OperationLike, OperationRef},
    pass::Pass,
};

/// The targets tile compiles for, in the order messages list them; the first of a pipeline's is
/// what it compiles for without a `chip` option.
pub static TARGETS: [&Target; 5] = [
    &sm_90a::TARGET,
    &sm_80::TARGET,
    &gfx942::TARGET,
    &spirv::TARGET,
    &spirv_coopmat::TARGET,
];

/// The module attribute naming the target (set by the target pipelines and `tile-compile`, read by
/// every pass that decides something for a target).
pub const ATTRIBUTE: &str = tile_dialect::decisions::TARGET.name;

/// The module attribute naming the workgroup memory of the device a SPIR-V module is compiled for.
pub const SHARED_MEMORY_BYTES: &str = tile_dialect::decisions::SHARED_MEMORY_BYTES.name;

/// One chip (or device class) tile compiles for. The address is the identity: each target is one
/// `static`, and its lowering pass's type id is the target's address.
#[repr(align(8))]
pub struct Target {
    /// The name the command line, the pipelines' `chip` option, `tile.target` and the launch
    /// manifests use.
    pub name: &'static str,
    /// What distinguishes it, for the message that lists the targets.
    pub summary: &'static str,
    /// The registered pipeline that compiles for it (`tile-to-nvvm{chip=...}`).
    pub pipeline: Pipeline,
    /// Its lowering pass ([`crate::lowering`]).
    pub lowering: Lowering,
    /// The upstream passes after the lowering and the cleanup, up to the serialized code (or the
    /// `spirv.module`s): written from the target's facts.
    pub backend: fn() -> String,
    /// The code its kernels become.
    pub code: Code,
    /// How its kernels are lowered.
    pub strategy: Strategy,
    /// The matrix instructions its gemms run on, as the register rules of their family (in the
    /// target's folder) plan and lower them; `None`: gemms are loops over K.
    pub matrix: Option<&'static dyn crate::registers::matrix::MatrixRules>,
    /// The layouts those instructions impose on a gemm's operands: where layout inference starts.
    pub gemm_anchors: crate::layout::anchors::Rule,
    /// Lanes that exchange values with register shuffles (a warp, a wave, a fixed-width subgroup);
    /// `None`: exchanges go through workgroup memory.
    pub shuffle_lanes: Option<i64>,
    /// Whether one instruction picks any bytes of a word into any byte positions (NVIDIA's
    /// `prmt`): a packed byte read from a 16-byte line is then placed in both halves of a word
    /// at once, where widening its two 4-bit halves asks for that ([`crate::narrow`]).
    pub byte_permute: bool,
    /// Whether one instruction computes any bitwise function of three words (NVIDIA's `lop3`):
    /// the mask and the flip (or the OR) that turn such a byte's word into a pair of floats are
    /// then one instruction where two would be (PTX's `and` and `xor` each take an immediate,
    /// and ptxas does not fuse two immediates into one `lop3`).
    pub three_input_logic: bool,
    /// The `gpu.module`'s `targets` (a SPIR-V target environment) for a device whose blocks may
    /// use the given bytes of workgroup memory, where the target has one.
    pub environment: Option<fn(i64) -> String>,
    /// Where tiles, fragments and tensors live.
    pub memory: Memory,
    /// Whether copies into pipelined loops' rings can be TMA boxes awaited on mbarriers (and with
    /// them producer warpgroups, staged TMA stores, persistent GEMM kernels and 8-bit float wgmma
    /// operands moved unconverted).
    pub tma: bool,
    /// Whether copies into pipelined loops' rings are 16-byte `cp.async` copies by the block's
    /// threads, one commit group an iteration, awaited with `cp.async.wait_group` and a barrier
    /// (Ampere's multistage rings: [`crate::pipeline::groups`]).
    pub cp_async_rings: bool,
    /// The multiprocessors the target's kernels are planned for, where a plan counts them
    /// (persistent kernels, producer warpgroups).
    pub multiprocessors: Option<Multiprocessors>,
    /// Thread block clusters (blocks that read each other's shared memory and meet at cluster
    /// barriers: [`crate::pipeline::split_k`]), where the target has them.
    pub clusters: Option<Clusters>,
    /// How copies from global tensors into shared tiles move in wide runs, where the target has
    /// its own way (`None`: TMA and cp.async, or the plain copy).
    pub wide_copies: Option<crate::generic::vector_copy::WideCopies>,
    /// The subgroup size the launch must ask for (a manifest field), where the code assumes one.
    pub subgroup_size: Option<u32>,
    /// The `memref.atomic_rmw` updates its kernels can make.
    pub atomics: Atomics,
    /// Element types its kernels hold as the integers of their bits, converting in integer
    /// arithmetic where they are loaded, stored or widened ([`crate::small_floats`]): types the
    /// device has no instructions for.
    pub emulated_floats: &'static [tile_dialect::element::Element],
    /// Its kernels round f32 to the emulated 8-bit floats by an instruction (`cvt.rn.satfinite`,
    /// sm_89 and later), not in integer arithmetic.
    pub f8_rounding: bool,
    /// Why its kernels cannot print (`tile.print`), where they cannot; `None`: they print
    /// through `gpu.printf`.
    pub no_print: Option<&'static str>,
    /// How `tile.matmul`s are tiled ([`crate::matmul`]).
    pub matmul: crate::matmul::Rule,
    /// Its kernels compute on f64 (arithmetic; f64 math functions would still need a device
    /// library).
    pub f64_arithmetic: bool,
}

/// A target's thread block clusters.
pub struct Clusters {
    /// The most blocks a cluster may hold.
    pub blocks: i64,
    /// Clusters of each size (blocks) the chip runs at once, one block a multiprocessor.
    pub at_once: &'static [(i64, i64)],
    /// The rule that lowers a `tile.split_sum` (its fragment in registers).
    pub split_sum: for<'c, 'a, 'l> fn(&crate::registers::patterns::Lowering<'c, 'a, 'l>, OperationRef<'c, 'a>),
}

impl Clusters {
    /// The clusters of `blocks` blocks the chip runs at once, where it runs clusters of that size.
    pub fn at_once_of(&self, blocks: i64) -> Option<i64> {
        self.at_once
            .iter()
            .find(|(size, _)| *size == blocks)
            .map(|(_, at_once)| *at_once)
    }
}

/// The atomic updates (`memref.atomic_rmw`) a target's kernels can make.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Atomics {
    /// LLVM's `atomicrmw` (a compare-and-swap loop where the chip has no instruction): every kind
    /// but products, on every element type.
    Llvm,
    /// SPIR-V's atomic instructions: add, and, or, signed and unsigned max and min, on 32-bit
    /// integers.
    Integer32,
}

impl Atomics {
    /// Whether an update of `kind` on `element` is one of these.
    pub fn allow(self, kind: AtomicKind, element: melior::ir::Type) -> bool {
        use melior::ir::TypeLike;
        match self {
            // LLVM has no atomic product.
            Atomics::Llvm => !matches!(kind, AtomicKind::MulF | AtomicKind::MulI),
            Atomics::Integer32 => {
                matches!(
                    kind,
                    AtomicKind::AddI
                        | AtomicKind::AndI
                        | AtomicKind::OrI
                        | AtomicKind::MaxS
                        | AtomicKind::MaxU
                        | AtomicKind::MinS
                        | AtomicKind::MinU
                ) && melior::ir::r#type::IntegerType::try_from(element).is_ok_and(|integer| integer.width() == 32)
                    && !element.is_index()
            }
        }
    }

    /// What these updates are, for messages.
    pub fn describe(self) -> &'static str {
        match self {
            Atomics::Llvm => "every kind but mulf and muli",
            Atomics::Integer32 => "addi, andi, ori, maxs, maxu, mins and minu on i32",
        }
    }
}

/// The registered pipelines, one a code kind.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Pipeline {
    /// `tile-to-nvvm`: a `gpu.binary` of PTX.
    Nvvm,
    /// `tile-to-rocdl`: a `gpu.binary` of AMDGCN assembly.
    Rocdl,
    /// `tile-to-spirv`: `spirv.module`s, ready to serialize.
    Spirv,
}

impl Pipeline {
    /// The pipeline's registered name.
    pub fn name(self) -> &'static str {
        match self {
            Pipeline::Nvvm => "tile-to-nvvm",
            Pipeline::Rocdl => "tile-to-rocdl",
            Pipeline::Spirv => "tile-to-spirv",
        }
    }

    /// The targets this pipeline compiles for, the default first.
    pub fn targets(self) -> impl Iterator<Item = &'static Target> {
        TARGETS.into_iter().filter(move |target| target.pipeline == self)
    }
}

/// A target's lowering pass: the same pass ([`crate::lowering`]) for every target, registered
/// under the target's flag.
pub struct Lowering {
    /// The pass's flag.
    pub argument: &'static str,
    /// The pass's name.
    pub name: &'static str,
    /// What `--help` says of it.
    pub description: &'static str,
    /// The dialects it creates ops of, loaded before it runs.
    pub dialects: fn() -> Vec<DialectHandle>,
    /// Creates the pass (what the registry calls).
    pub create: fn() -> Pass,
}

/// The code a target's kernels become.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Code {
    /// PTX in a `gpu.binary`; the host code is compiled to LLVM.
    Ptx,
    /// AMDGCN assembly in a `gpu.binary` (and an HSA code object); the host code is compiled to
    /// LLVM.
    Amdgcn,
    /// SPIR-V modules; the host code stays as the lowering leaves it (Vulkan launchers read the
    /// manifests).
    Spirv,
}

/// How a target lowers its kernels.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Strategy {
    /// Every kernel op by op, reading the layouts `tile-infer-layouts` records: fragments in
    /// registers, gemms on the matrix instructions, with a warning where a kernel with a gemm
    /// cannot keep its fragments in registers.
    PerOp,
    /// Tile ops as loops shared by a workgroup's threads where no register rule applies, without
    /// a warning.
    Plain,
}

impl Strategy {
    /// The name `tile-infer-layouts` records in `tile.strategy`.
    pub fn name(self) -> &'static str {
        match self {
            Strategy::PerOp => "per-op",
            Strategy::Plain => "plain",
        }
    }
}

/// What one multiprocessor holds and how many a chip has: the numbers behind persistent kernels
/// (one block a multiprocessor) and producer warpgroups (the registers they give back).
pub struct Multiprocessors {
    /// Multiprocessors of the parts the target is tuned for: the block count of a persistent
    /// launch (on a part with fewer, the extra blocks wait: correct, slower).
    pub count: i64,
    /// Shared memory of one multiprocessor.
    pub shared_bytes: i64,
    /// Shared memory the runtime reserves for each block beside its own.
    pub block_reserved_bytes: i64,
    /// The registers a thread of a producer warpgroup keeps.
    pub producer_registers: i64,
    /// The registers each of a block's threads (whole warpgroups) may take beside a producer
    /// warpgroup.
    pub registers_beside_producer: fn(i64) -> i64,
    /// The registers each thread of a block of so many threads holds from its start.
    pub registers_at_start: fn(i64) -> i64,
}

/// Where a target's kernels keep tiles, fragments and tensors.
pub struct Memory {
    /// The memory space of workgroup memory.
    pub workgroup_space: &'static str,
    /// The memory space of a thread's private memory.
    pub private_space: &'static str,
    /// Tiles become `gpu.func` workgroup attributions (NVVM, ROCDL) rather than `memref.alloc`s
    /// (SPIR-V).
    pub attributions: bool,
    /// Tiles are views of the block's dynamic shared memory (NVIDIA: beyond the 48 KiB a kernel may
    /// declare statically) rather than attributions of their own.
    pub dynamic_shared: bool,
    /// A thread's run of consecutive elements of a global tensor (up to 16 bytes, in consecutive
    /// slots of a fragment) is read and written as one vector where it lies inside the tensor and
    /// starts aligned: kernels address global memory through pointers (not SPIR-V's logical
    /// addressing, which casts no pointer to a vector).
    pub vector_runs: bool,
    /// Global tensors are storage buffers that hold no sizes (SPIR-V): a tensor of static shape is
    /// bound as a sized array, one of dynamic shape as a runtime array whose sizes, like every
    /// integer the host computes for the kernel, come in bindings of their own
    /// (`crate::generic::runtime_arrays`).
    pub static_tensors: bool,
    /// Workgroup memory a block may use ([`Target::shared_bytes`]: a module may say otherwise where
    /// `device_shared_bytes` allows).
    pub max_shared_bytes: i64,
    /// The workgroup memory a module may ask for with `tile.shared_memory_bytes` (the device's:
    /// SPIR-V targets stand for many devices), `None` where the chip fixes it.
    pub device_shared_bytes: Option<std::ops::RangeInclusive<i64>>,
    /// What the error adds when a kernel's tiles do not fit.
    pub shared_limit_note: &'static str,
    /// Kernels index with 32 bits (SPIR-V): tensors and index constants past that are refused.
    pub indices_32_bit: bool,
    /// Shared tiles are stored padded and transposed as their layouts say, before any op that
    /// addresses them is lowered ([`crate::layout::stored`]); elsewhere padded layouts pad the
    /// allocation's rows and transposed ones are not made.
    pub rearranged_tiles: bool,
}

impl Target {
    /// Returns the target named `name`, or a message that lists the targets.
    pub fn parse(name: &str) -> Result<&'static Target, String> {
        TARGETS
            .into_iter()
            .find(|target| target.name == name)
            .ok_or_else(|| format!("unknown target {name}: expected {}", names().join(", ")))
    }

    /// Records this target as `module`'s `tile.target` (over any other), which the passes after
    /// a lowering read.
    pub fn record(&self, module: OperationRef) {
        let name = tile_dialect::ops::with_context(module, |context| {
            melior::ir::attribute::StringAttribute::new(context, self.name).into()
        });
        tile_dialect::ops::set_attribute(module, ATTRIBUTE, name);
    }

    /// Returns the target `module`'s `tile.target` names, or what to do without one.
    pub fn of(module: OperationRef) -> Result<&'static Target, String> {
        let name = tile_dialect::ops::string_attribute(&module, ATTRIBUTE).ok_or_else(|| {
            let quoted: Vec<String> = names().iter().map(|name| format!("\"{name}\"")).collect();
            let pipelines = [Pipeline::Nvvm, Pipeline::Rocdl, Pipeline::Spirv].map(Pipeline::name);
            format!(
                "needs the target: set {ATTRIBUTE} = {} (or {}) on the module, or run the {} or {} pipeline",
                quoted[0],
                quoted[1..].join(", "),
                pipelines[..2].join(", "),
                pipelines[2]
            )
        })?;
        let target = Target::parse(&name).map_err(|message| format!("has {ATTRIBUTE} = \"{name}\": {message}"))?;
        target.check_shared_bytes(module)?;
        Ok(target)
    }

    /// Checks the `tile.shared_memory_bytes` of `module`, if it has one: an integer the target
    /// lets a module choose, in the range its devices allow.
    fn check_shared_bytes(&self, module: OperationRef) -> Result<(), String> {
        let name = SHARED_MEMORY_BYTES;
        let Ok(given) = module.attribute(name) else {
            return Ok(());
        };
        let bytes = melior::ir::attribute::IntegerAttribute::try_from(given)
            .map_err(|_| format!("has {name} = {given}, but expects an integer (bytes)"))?
            .value();
        let Some(range) = &self.memory.device_shared_bytes else {
            let choosers = names_where(|target| target.memory.device_shared_bytes.is_some());
            return Err(format!(
                "has {name} = {bytes}, but {self}'s workgroup memory is the chip's ({} bytes); only {choosers} take the device's limit from the module",
                self.memory.max_shared_bytes
            ));
        };
        if !range.contains(&bytes) {
            return Err(format!(
                "has {name} = {bytes}, but expects {} to {} bytes for {self} (Vulkan guarantees {}; the default is {})",
                range.start(),
                range.end(),
                range.start(),
                self.memory.max_shared_bytes
            ));
        }
        Ok(())
    }

    /// What the workgroup-memory error says of the limit in the module holding `op`.
    pub fn shared_limit_note(&self, op: OperationRef) -> String {
        match &self.memory.device_shared_bytes {
            Some(_) if self.shared_bytes(op) != self.memory.max_shared_bytes => {
                format!("the device's, as the module's {SHARED_MEMORY_BYTES} says")
            }
            Some(_) => format!(
                "{}; a module for a device with more sets {SHARED_MEMORY_BYTES}",
                self.memory.shared_limit_note
            ),
            None => self.memory.shared_limit_note.to_owned(),
        }
    }

    /// The workgroup memory a block may use in the module holding `op`: its
    /// `tile.shared_memory_bytes` where the target lets a module choose (checked by [`Target::of`]),
    /// else the target's.
    pub fn shared_bytes(&self, op: OperationRef) -> i64 {
        let mut module = Some(op);
        while let Some(current) =
            module.filter(|current| !tile_ir::is(current, tile_ir::builtin::ModuleOperation::name))
        {
            module = current.parent_operation();
        }
        module
            .filter(|_| self.memory.device_shared_bytes.is_some())
            .and_then(|module| tile_dialect::ops::integer_attribute(&module, SHARED_MEMORY_BYTES))
            .unwrap_or(self.memory.max_shared_bytes)
    }

    /// Whether the kernels become SPIR-V.
    pub fn is_spirv(&self) -> bool {
        self.code == Code::Spirv
    }

    /// Whether `tile-compile` compiles the host code of this target to LLVM (NVIDIA, AMD) after
    /// the kernels: then host memrefs must have strided layouts.
    pub fn compiles_host_code(&self) -> bool {
        self.code != Code::Spirv
    }
}

impl PartialEq for Target {
    fn eq(&self, other: &Self) -> bool {
        std::ptr::eq(self, other)
    }
}

impl std::fmt::Debug for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

impl std::fmt::Display for Target {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(self.name)
    }
}

/// The names of every target, in [`TARGETS`]' order.
pub fn names() -> Vec<&'static str> {
    TARGETS.iter().map(|target| target.name).collect()
}

/// Each target with what distinguishes it (`sm_90a: TMA, mbarrier, wgmma; ...`), for messages.
pub fn summaries() -> String {
    TARGETS
        .iter()
        .map(|target| format!("{}: {}", target.name, target.summary))
        .collect::<Vec<_>>()
        .join("; ")
}

/// `anchor(pass, pass, ...)`: passes nested on `anchor` ops, for the backends' pipeline text.
pub(crate) fn nested(anchor: &str, passes: &[&str]) -> String {
    format!("{anchor}({})", passes.join(", "))
}

/// The names of the targets that have `property`, joined for a message (`sm_90a`; `a or b`).
pub fn names_where(property: impl Fn(&Target) -> bool) -> String {
    let names: Vec<&str> = TARGETS
        .iter()
        .filter(|target| property(target))
        .map(|target| target.name)
        .collect();
    match names.split_last() {
        Some((last, [])) => (*last).to_owned(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
        None => "no target".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_target_parses_by_its_name_and_unknown_names_list_them_all() {
        for target in TARGETS {
            assert_eq!(Target::parse(target.name), Ok(target));
        }
        let message = Target::parse("sm_75").unwrap_err();
        assert_eq!(
            message,
            "unknown target sm_75: expected sm_90a, sm_80, gfx942, spirv, spirv-coopmat"
        );
    }

    #[test]
    fn every_pipeline_compiles_for_its_targets_and_each_target_has_its_own_lowering() {
        for pipeline in [Pipeline::Nvvm, Pipeline::Rocdl, Pipeline::Spirv] {
            assert!(pipeline.targets().next().is_some(), "{pipeline:?} has no target");
            assert!(pipeline.targets().all(|target| target.pipeline == pipeline));
        }
        let mut flags: Vec<&str> = TARGETS.iter().map(|target| target.lowering.argument).collect();
        flags.sort();
        flags.dedup();
        assert_eq!(flags.len(), TARGETS.len());
    }

    #[test]
    fn facts_agree_with_each_other() {
        for target in TARGETS {
            // A target that plans with TMA rings counts multiprocessors; SPIR-V code comes with an
            // environment; the plain strategy has no matrix instructions to anchor layouts to.
            assert_eq!(target.tma, target.multiprocessors.is_some(), "{target}");
            assert_eq!(target.is_spirv(), target.environment.is_some(), "{target}");
            if target.strategy == Strategy::Plain {
                assert!(target.matrix.is_none(), "{target}");
            }
        }
    }

    #[test]
    fn names_where_joins_the_names_for_a_message() {
        assert_eq!(names_where(|target| target.tma), "sm_90a");
        assert_eq!(names_where(|target| target.is_spirv()), "spirv or spirv-coopmat");
        assert_eq!(names_where(|_| false), "no target");
    }

    /// The shared modules ask the target value and never name a chip or reach into a target's
    /// folder: a target is added without editing them.
    #[test]
    fn shared_modules_name_no_target() {
        let source = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let chips: Vec<&str> = TARGETS
            .iter()
            .filter(|target| !target.is_spirv())
            .map(|target| target.name)
            .chain(["sm_75", "sm_100", "gfx90a", "gfx950"])
            .collect();
        let folders = ["nvgpu", "amdgpu", "spirv"];
        let mut files = Vec::new();
        let mut pending: Vec<std::path::PathBuf> = ["layout", "registers", "generic", "pipeline", "cpu", "support.rs"]
            .iter()
            .map(|shared| source.join(shared))
            .collect();
        while let Some(path) = pending.pop() {
            if path.is_dir() {
                pending.extend(std::fs::read_dir(&path).unwrap().map(|entry| entry.unwrap().path()));
            } else {
                files.push(path);
            }
        }
        assert!(files.len() > 20, "found {} shared files", files.len());
        let mut named = Vec::new();
        for file in files {
            let text = std::fs::read_to_string(&file).unwrap();
            for (number, line) in text.lines().enumerate() {
                let chip = chips.iter().find(|chip| line.contains(*chip));
                let folder = folders.iter().find(|folder| line.contains(&format!("crate::{folder}")));
                if let Some(name) = chip.or(folder) {
                    named.push(format!("{}:{}: {name}", file.display(), number + 1));
                }
            }
        }
        assert!(named.is_empty(), "shared modules name a target:\n{}", named.join("\n"));
    }
}

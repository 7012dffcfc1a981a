//! The decisions passes record in the IR for the passes after them: every discardable `tile.*`
//! attribute, declared once here with the ops it sits on, what it holds, which pass writes it and
//! which read it. Passes name them through these declarations (`SCHEDULE.name`); the op verifiers
//! check those on tile ops ([`verify`]), so that a decision written by hand, or left by another
//! tool, is refused at its op instead of being misread by a later pass.
//!
//! [`DECLARED`] lists the decisions that cross pass boundaries; [`MARKS`] the attributes a pass
//! sets and reads itself, between the rewrites of one lowering (they never reach its output).

use melior::ir::{
    Attribute,
    attribute::{AttributeLike, DictionaryAttribute, IntegerAttribute, StringAttribute},
    operation::{OperationLike, OperationRef},
};

/// One decision: a discardable attribute that one pass writes and later ones read.
pub struct Decision {
    /// The attribute's name.
    pub name: &'static str,
    /// The ops that carry it.
    pub on: &'static [&'static str],
    /// What it holds.
    pub holds: Holds,
    /// The pass (or tool) that writes it.
    pub written_by: &'static str,
    /// The passes that read it.
    pub read_by: &'static str,
}

/// What a decision holds.
pub enum Holds {
    /// A unit attribute: its presence is the decision.
    Unit,
    /// An integer.
    Integer,
    /// A string, one of the values given (any string where none are).
    String(&'static [&'static str]),
    /// A dictionary of the entries given.
    Dictionary(&'static [(&'static str, Holds)]),
    /// A layout attribute (`#tile.frag`, `#tile.smem`), checked by the layout rules.
    Layout,
}

/// `tile.target`: the target every decision is made for.
pub const TARGET: Decision = Decision {
    name: "tile.target",
    on: &["builtin.module"],
    holds: Holds::String(&[]),
    written_by: "the target pipelines (tile-to-nvvm, tile-to-rocdl, tile-to-spirv), tile-compile",
    read_by: "tile-infer-layouts, tile-persistent-kernels, tile-plan-pipelines, tile-expand-pipelines, the lowerings",
};

/// `tile.shared_memory_bytes`: the workgroup memory a block may use on the device a SPIR-V module
/// is compiled for (Vulkan devices differ: lavapipe gives 32 KiB, NVIDIA's driver 48 KiB and
/// more), in place of the target's default.
pub const SHARED_MEMORY_BYTES: Decision = Decision {
    name: "tile.shared_memory_bytes",
    on: &["builtin.module"],
    holds: Holds::Integer,
    written_by: "the program (its frontend), tile-compile --shared-memory",
    read_by: "tile-infer-layouts, the SPIR-V lowerings (the workgroup-memory check, the target environment's max_compute_shared_memory_size)",
};

/// `tile.layout`: the layout of a tile (`#tile.frag` of a fragment, `#tile.smem` of a shared tile).
pub const LAYOUT: Decision = Decision {
    name: crate::layout::LAYOUT_ATTRIBUTE,
    on: &["tile.alloc_fragment", "tile.alloc_shared"],
    holds: Holds::Layout,
    written_by: "tile-infer-layouts (or the program)",
    read_by: "tile-expand-pipelines, the lowerings",
};

/// `tile.loop_layout`: how a `tile.parallel`'s iterations are dealt out to the threads.
pub const LOOP_LAYOUT: Decision = Decision {
    name: crate::layout::LOOP_LAYOUT_ATTRIBUTE,
    on: &["tile.parallel"],
    holds: Holds::Layout,
    written_by: "tile-infer-layouts (or the program)",
    read_by: "the lowerings",
};

/// `tile.strategy`: how the target lowers a kernel (op by op, or the plain loops).
pub const STRATEGY: Decision = Decision {
    name: "tile.strategy",
    on: &["tile.kernel"],
    holds: Holds::String(&["per-op", "plain"]),
    written_by: "tile-infer-layouts",
    read_by: "tile-persistent-kernels",
};

/// `tile.schedule`: how a pipelined loop runs (see `tile-plan-pipelines` for each entry).
pub const SCHEDULE: Decision = Decision {
    name: "tile.schedule",
    on: &["tile.pipelined"],
    holds: Holds::Dictionary(&[
        ("buffers", Holds::Integer),
        ("fill", Holds::String(&["tma", "registers", "async", "threads"])),
        ("wait", Holds::String(&["mbarrier", "lds_barrier", "barrier", "group"])),
        ("release", Holds::String(&["barrier", "mbarrier", "previous"])),
        ("prefetch", Holds::Integer),
        ("persistent", Holds::Integer),
        ("split", Holds::Integer),
        ("producer", Holds::String(&["warpgroup", "none"])),
        ("pingpong", Holds::Integer),
        ("multicast", Holds::Integer),
    ]),
    written_by: "tile-plan-pipelines (a program may ask for entries)",
    read_by: "tile-split-k, tile-persistent-kernels, tile-expand-pipelines",
};

/// `tile.splits`: the blocks of a cluster that split each output tile's sum (`tile.split_sum`).
pub const SPLITS: Decision = Decision {
    name: "tile.splits",
    on: &["tile.kernel"],
    holds: Holds::Integer,
    written_by: "tile-split-k",
    read_by: "the lowerings (the kernel's cluster, its manifest)",
};

/// `tile.multicast`: the blocks of each of a persistent kernel's clusters, which walk tiles of one
/// grid column together (consecutive rows) and load the tiles they share once for all of them
/// (each block a part, TMA's multicast writing it into every block's shared memory).
pub const MULTICAST: Decision = Decision {
    name: "tile.multicast",
    on: &["tile.kernel"],
    holds: Holds::Integer,
    written_by: "tile-persistent-kernels (a schedule with multicast = N)",
    read_by: "the lowerings (the kernel's cluster; its slots released to every block of the cluster)",
};

/// `tile.cluster_shared`: a copy whose tile is the same for every block of its kernel's cluster
/// (`tile.multicast`): each block loads a part of it into every block's shared memory.
pub const CLUSTER_SHARED: Decision = Decision {
    name: "tile.cluster_shared",
    on: &["tile.copy", "tile.copy_async"],
    holds: Holds::Unit,
    written_by: "tile-persistent-kernels (kept on the copy_async by tile-expand-pipelines)",
    read_by: "the TMA copy rule (sm_90a)",
};

/// `tile.ahead`: a copy a ring issues ahead of the step that reads it.
pub const AHEAD: Decision = Decision {
    name: "tile.ahead",
    on: &["tile.copy"],
    holds: Holds::Unit,
    written_by: "tile-plan-pipelines",
    read_by: "tile-infer-layouts (the tiles TMA fills), tile-expand-pipelines",
};

/// `tile.once_a_tile`: a copy in a persistent kernel's flattened loop whose tile is the same for
/// every step of an output tile (a FlashAttention block's Q; FlashAttention-3's order's first K
/// and last V): copied at the tile's first step into a ring of its own, which the tile's steps
/// read and its last step releases.
pub const ONCE_A_TILE: Decision = Decision {
    name: "tile.once_a_tile",
    on: &["tile.copy"],
    holds: Holds::Unit,
    written_by: "tile-persistent-kernels",
    read_by: "tile-infer-layouts (the tiles TMA fills), tile-plan-pipelines, tile-expand-pipelines",
};

/// `tile.tile_steps`: steps per output tile (K) of a persistent kernel's flattened loop; the fewest
/// of any tile where an op of the loop marked [`STEPS_OF_TILE`] gives each tile's own.
pub const TILE_STEPS: Decision = Decision {
    name: "tile.tile_steps",
    on: &["tile.pipelined", "scf.for"],
    holds: Holds::Integer,
    written_by: "tile-persistent-kernels (kept on the scf.for by tile-expand-pipelines)",
    read_by: "tile-plan-pipelines, the lowering (which nests the loop by tile)",
};

/// `tile.carries_gemm`: an expanded loop whose gemm may still run when the next iteration starts.
pub const CARRIES_GEMM: Decision = Decision {
    name: "tile.carries_gemm",
    on: &["scf.for"],
    holds: Holds::Unit,
    written_by: "tile-expand-pipelines (release = \"previous\")",
    read_by: "the register rules (wgmma waits across the back edge)",
};

/// `tile.pingpong`: an expanded loop whose two consumer warpgroups issue their gemms in turns.
pub const PINGPONG: Decision = Decision {
    name: "tile.pingpong",
    on: &["scf.for"],
    holds: Holds::Unit,
    written_by: "tile-expand-pipelines (a schedule with pingpong = true)",
    read_by: "the register rules (sm_90a: named barriers order the warpgroups' wgmma issue)",
};

/// `tile.releases_previous`: the arrival that releases the slot the previous iteration read.
pub const RELEASES_PREVIOUS: Decision = Decision {
    name: "tile.releases_previous",
    on: &["tile.arrive"],
    holds: Holds::Unit,
    written_by: "tile-expand-pipelines",
    read_by: "the register rules",
};

/// `tile.kernel_offset`: how many kernels the parts of a split module before this one hold, so
/// that kernels are numbered as in the whole module.
pub const KERNEL_OFFSET: Decision = Decision {
    name: "tile.kernel_offset",
    on: &["builtin.module"],
    holds: Holds::Integer,
    written_by: "tile-compile (when it splits a module into parts)",
    read_by: "the lowerings (kernel symbols)",
};

/// `tile.manifest`: a lowered kernel's launch manifest (JSON).
pub const MANIFEST: Decision = Decision {
    name: "tile.manifest",
    on: &["gpu.module"],
    holds: Holds::String(&[]),
    written_by: "the lowerings",
    read_by: "tile-fold-launch-bounds, tile-compile, the embedding passes",
};

/// `tile.manifests`: the manifests of a module's kernels, kept while the backend turns the kernel
/// modules into code.
pub const MANIFESTS: Decision = Decision {
    name: "tile.manifests",
    on: &["builtin.module"],
    holds: Holds::Dictionary(&[]),
    written_by: "the target pipelines (before the backend)",
    read_by: "the target pipelines (after the backend)",
};

/// The decisions that cross pass boundaries.
pub const DECLARED: [&Decision; 18] = [
    &TARGET,
    &SHARED_MEMORY_BYTES,
    &LAYOUT,
    &LOOP_LAYOUT,
    &STRATEGY,
    &SCHEDULE,
    &SPLITS,
    &MULTICAST,
    &CLUSTER_SHARED,
    &AHEAD,
    &ONCE_A_TILE,
    &TILE_STEPS,
    &CARRIES_GEMM,
    &PINGPONG,
    &RELEASES_PREVIOUS,
    &KERNEL_OFFSET,
    &MANIFEST,
    &MANIFESTS,
];

/// A persistent loop's op that computes the tile of a step (`s / K`).
pub const TILE_OF_STEP: &str = "tile.tile_of_step";
/// A persistent loop's op that computes the step within its tile (`s mod K`).
pub const STEP_IN_TILE: &str = "tile.step_in_tile";
/// A persistent loop's op that computes its tile's own step count, where tiles run different
/// counts (a causal attention's query blocks); `tile.tile_steps` is then the fewest.
pub const STEPS_OF_TILE: &str = "tile.steps_of_tile";
/// The branch of a persistent loop's first step of a tile.
pub const FIRST_STEP: &str = "tile.first_step";
/// The branch of a persistent loop's last step of a tile.
pub const LAST_STEP: &str = "tile.last_step";
/// Barriers whose phases only TMA's bytes complete.
pub const TMA_FILLS: &str = "tile.tma_fills";
/// Barriers that copies of the generic proxy (cp.async) count on.
pub const GENERIC_WRITES: &str = "tile.generic_writes";
/// The box of a tensor map, on the cast that stands for it until the kernel takes it.
pub const TENSOR_MAP_BOX: &str = "tile.tensor_map_box";
/// On a tensor map's cast: its boxes land unswizzled, row-major (a plain tile the threads read).
pub const TENSOR_MAP_UNSWIZZLED: &str = "tile.tensor_map_unswizzled";
/// The bytes a shared allocation starts on, when more than the slots' alignment.
pub const ALIGNMENT: &str = "tile.alignment";
/// A placeholder alloca of one cooperative matrix held across gemms.
pub const COOPMAT_MATRIX: &str = "tile.coopmat_matrix";
/// The cast that stands for a tensor's vector view until the kernel gives it an argument.
pub const VECTOR_VIEW: &str = "tile.vector_view";

/// An element store of a `tile.parallel` at the core-matrix place of the loop's element.
pub const CORE_PLACE: &str = "tile.core_place";
/// Barriers that the threads' own copies (cp.async) into tiles only the threads read count on.
pub const THREAD_COPIES: &str = "tile.thread_copies";
/// A `tile.parallel` that a rule follows with a fence and a barrier of its own.
pub const FENCED: &str = "tile.fenced";
/// An `arith.truncf` to an 8-bit float whose operand the sm_90a rules found inside the type's range
/// (`conversions::bounds`): `tile-emulate-small-floats` rounds it by the instruction alone, without
/// the check for values past the largest finite one, and drops the mark with the op.
pub const IN_RANGE: &str = "tile.in_range";
/// An `arith.truncf` to an 8-bit float that a `tile.copy ... saturate` made: `tile-emulate-small-floats`
/// gives values past the largest finite one that value (the instruction alone on sm_90a, a clamp
/// before the rounding elsewhere), and drops the mark with the op.
pub const SATURATE: &str = "tile.saturate";
/// A byte load of `tile-pack-narrow-types` in a `tile.parallel` body whose last index is the byte
/// holding the element at the loop's index number N (the mark's value) along the last dimension:
/// the registers strategy may read it from a 16-byte line of the row, and drops the mark with the
/// op.
pub const PACKED_BYTE: &str = "tile.packed_byte";

/// The marks one lowering sets and reads between its own rewrites (they never reach its output):
/// declared so that no two passes reuse a name.
pub const MARKS: [&str; 18] = [
    TILE_OF_STEP,
    STEP_IN_TILE,
    STEPS_OF_TILE,
    FIRST_STEP,
    LAST_STEP,
    TMA_FILLS,
    GENERIC_WRITES,
    TENSOR_MAP_BOX,
    TENSOR_MAP_UNSWIZZLED,
    ALIGNMENT,
    COOPMAT_MATRIX,
    VECTOR_VIEW,
    CORE_PLACE,
    THREAD_COPIES,
    FENCED,
    IN_RANGE,
    SATURATE,
    PACKED_BYTE,
];

/// Checks the decisions on the tile op `op` named `name`: each declared one it carries sits on an
/// op that may carry it and holds what it should. (Layouts are the layout rules' to check.)
pub fn verify(op: OperationRef, name: &str) -> Result<(), String> {
    for decision in DECLARED {
        let Ok(given) = op.attribute(decision.name) else {
            continue;
        };
        if !decision.on.contains(&name) {
            return Err(format!(
                "expects no {} (it belongs on {}), but got {given}",
                decision.name,
                decision.on.join(", ")
            ));
        }
        check(&decision.holds, given).map_err(|what| {
            format!(
                "expects {} to be {what} (what {} records), but got {given}",
                decision.name, decision.written_by
            )
        })?;
    }
    Ok(())
}

/// Checks that `given` holds what `holds` says; the error says what it should be.
fn check(holds: &Holds, given: Attribute) -> Result<(), String> {
    match holds {
        Holds::Unit => given
            .is_unit()
            .then_some(())
            .ok_or_else(|| "a unit attribute".to_owned()),
        Holds::Integer => IntegerAttribute::try_from(given)
            .map(|_| ())
            .map_err(|_| "an integer".to_owned()),
        Holds::String(values) => {
            let string = StringAttribute::try_from(given)
                .ok()
                .and_then(|string| crate::ops::attribute_text(string.into()))
                .ok_or_else(|| "a string".to_owned())?;
            if values.is_empty() || values.contains(&string.as_str()) {
                Ok(())
            } else {
                Err(format!("one of \"{}\"", values.join("\", \"")))
            }
        }
        Holds::Dictionary(entries) => {
            let dictionary = DictionaryAttribute::try_from(given).map_err(|_| "a dictionary".to_owned())?;
            if entries.is_empty() {
                return Ok(());
            }
            let keys: Vec<&str> = entries.iter().map(|(key, _)| *key).collect();
            for index in 0..dictionary.len() {
                let Ok((key, value)) = dictionary.element(index) else {
                    continue;
                };
                let key = key.as_string_ref().as_str().unwrap_or_default();
                let Some((_, entry)) = entries.iter().find(|(known, _)| *known == key) else {
                    return Err(format!("a dictionary of {}, not '{key}'", keys.join(", ")));
                };
                check(entry, value).map_err(|what| format!("a dictionary whose '{key}' is {what}"))?;
            }
            Ok(())
        }
        Holds::Layout => Ok(()),
    }
}

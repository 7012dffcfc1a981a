//! Races: accesses whose result depends on the order of unordered work.
//!
//! The iterations of a `tile.parallel` are unordered, and so are the blocks of a `tile.kernel`; the
//! machine runs them one after another, so a program whose result depends on their order would
//! run "fine" here and differently on a GPU. While a kernel runs, and while a `tile.parallel`
//! runs, a [`Scope`] records for each element of each buffer shared by its agents (the buffers that
//! existed when it began: a block's own tiles, or an iteration's own allocations, are private) the
//! agent (block or iteration) that last changed it and the agents that read it. Undefined (a
//! race, reported at the op):
//! - a read of an element another agent changed or updated;
//! - a change of an element another agent changed, updated or read;
//! - an atomic update (`memref.atomic_rmw`) of an element another agent changed or read. Updates
//!   by several agents are not a race: the memory system orders them (a float sum then depends on
//!   their order only by its rounding).
//!
//! A write that leaves a written element's value as it was changes nothing (every block storing the
//! same value is deterministic). Invariants: the scopes nest (a parallel inside a block of a
//! kernel); each checks only buffers below its mark; the cost is three `u32` per element of a
//! shared buffer touched inside the scope.

use std::collections::HashMap;

const NONE: u32 = u32::MAX;
const MANY: u32 = u32::MAX - 1;

/// Who touched one buffer's elements in a scope.
struct Tracks {
    changed_by: Vec<u32>,
    read_by: Vec<u32>,
    updated_by: Vec<u32>,
}

/// Adds `agent` to the agents a track holds (one, or [`MANY`]).
fn note(track: &mut u32, agent: u32) {
    *track = match *track {
        NONE => agent,
        same if same == agent => agent,
        _ => MANY,
    };
}

/// How an agent other than `agent` touched an element (`how`), and which (`None` for several),
/// if the track `track` says one did.
fn other(track: u32, agent: u32, how: &'static str) -> Option<(&'static str, Option<u32>)> {
    match track {
        NONE => None,
        MANY => Some((how, None)),
        one if one == agent => None,
        one => Some((how, Some(one))),
    }
}

/// One scope of unordered agents: a kernel's blocks or a parallel's iterations.
pub struct Scope {
    /// Buffers numbered below this existed when the scope began: shared by its agents.
    pub mark: usize,
    /// `block` or `iteration`.
    pub what: &'static str,
    /// The agents' index space (row-major, first index slowest), to name an agent.
    pub shape: Vec<usize>,
    /// The shape is listed fastest first (a kernel's grid: x fastest).
    pub reversed: bool,
    /// The agent running now.
    pub agent: u32,
    /// The op whose agents these are, for messages.
    pub op: &'static str,
    tracks: HashMap<usize, Tracks>,
}

impl Scope {
    /// A scope over agents of `shape` sharing the buffers below `mark`.
    pub fn new(mark: usize, what: &'static str, shape: Vec<usize>, reversed: bool) -> Self {
        Self {
            op: if what == "block" {
                "tile.kernel"
            } else {
                "tile.parallel"
            },
            mark,
            what,
            shape,
            reversed,
            agent: 0,
            tracks: HashMap::new(),
        }
    }

    fn tracks(&mut self, id: usize, len: usize) -> &mut Tracks {
        self.tracks.entry(id).or_insert_with(|| Tracks {
            changed_by: vec![NONE; len],
            read_by: vec![NONE; len],
            updated_by: vec![NONE; len],
        })
    }

    /// Notes a read of element `position` of buffer `id` (of `len` elements); returns how another
    /// agent touched it (`changed` or `updated`) and which (`None` for several), if one did.
    pub fn read(&mut self, id: usize, len: usize, position: usize) -> Option<(&'static str, Option<u32>)> {
        if id >= self.mark {
            return None;
        }
        let agent = self.agent;
        let tracks = self.tracks(id, len);
        let writer = tracks.changed_by[position];
        let updater = tracks.updated_by[position];
        note(&mut tracks.read_by[position], agent);
        other(writer, agent, "changed").or_else(|| other(updater, agent, "updated"))
    }

    /// Notes a change of element `position` of buffer `id`; returns how another agent touched it
    /// (`changed` or `read`) and which (`None` for several readers), if one did.
    pub fn change(&mut self, id: usize, len: usize, position: usize) -> Option<(&'static str, Option<u32>)> {
        if id >= self.mark {
            return None;
        }
        let agent = self.agent;
        let tracks = self.tracks(id, len);
        let writer = std::mem::replace(&mut tracks.changed_by[position], agent);
        let (reader, updater) = (tracks.read_by[position], tracks.updated_by[position]);
        other(writer, agent, "changed")
            .or_else(|| other(updater, agent, "updated"))
            .or_else(|| other(reader, agent, "read"))
    }

    /// Notes an atomic update of element `position` of buffer `id`; returns how another agent
    /// touched it plainly (`changed` or `read`) and which, if one did.
    pub fn update(&mut self, id: usize, len: usize, position: usize) -> Option<(&'static str, Option<u32>)> {
        if id >= self.mark {
            return None;
        }
        let agent = self.agent;
        let tracks = self.tracks(id, len);
        note(&mut tracks.updated_by[position], agent);
        other(tracks.changed_by[position], agent, "changed").or_else(|| other(tracks.read_by[position], agent, "read"))
    }

    /// Names agent `agent`: `block [1, 0]`, `iteration [3, 5]`, or `other blocks`.
    pub fn describe(&self, agent: Option<u32>) -> String {
        let Some(agent) = agent else {
            return format!("other {}s", self.what);
        };
        let mut rest = agent as usize;
        let mut index = vec![0; self.shape.len()];
        for dim in (0..self.shape.len()).rev() {
            let size = self.shape[dim].max(1);
            index[dim] = rest % size;
            rest /= size;
        }
        if self.reversed {
            index.reverse();
        }
        let text: Vec<String> = index.iter().map(usize::to_string).collect();
        format!("{} [{}]", self.what, text.join(", "))
    }

    /// Names the agent running now.
    pub fn current(&self) -> String {
        self.describe(Some(self.agent))
    }
}

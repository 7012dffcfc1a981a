//! Rules for the layouts ops carry: a `tile.layout` on an allocation is a `#tile.frag` (fragments)
//! or `#tile.smem` (shared tiles), a `tile.loop_layout` on a `tile.parallel` a `#tile.frag`; a
//! fragment layout has the tile's (or loop's) shape, spreads over the kernel's threads, and holds
//! no two elements in one slot of one thread.

use super::Verdict;
use crate::layout::{FragmentLayout, LAYOUT_ATTRIBUTE, LOOP_LAYOUT_ATTRIBUTE, SharedLayout};
use crate::level::MemoryLevel;
use melior::ir::{
    Attribute,
    operation::{OperationLike, OperationRef},
};
use std::{collections::HashMap, sync::Mutex};

/// The threads of the kernel around `op`.
fn kernel_threads(op: OperationRef) -> Option<i64> {
    let mut parent = op.parent_operation();
    while let Some(current) = parent {
        if current.name().as_string_ref().as_str() == Ok("tile.kernel") {
            return crate::ops::integer_attribute(&current, "threads");
        }
        parent = current.parent_operation();
    }
    None
}

/// Layouts already checked, by their text and the shape and threads they were checked for: the
/// check enumerates every element, and verification runs after every pass.
static CHECKED: Mutex<Option<HashMap<(String, Vec<i64>, i64), Verdict>>> = Mutex::new(None);

fn check_fragment(op: OperationRef, given: Attribute, layout: &FragmentLayout, shape: &[i64], name: &str) -> Verdict {
    // Outside a kernel (a verifier run on a detached op) the threads are the layout's own.
    let threads = kernel_threads(op).unwrap_or(layout.threads);
    let key = (given.to_string(), shape.to_vec(), threads);
    let mut checked = CHECKED.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    let verdict = checked
        .get_or_insert_with(HashMap::new)
        .entry(key)
        .or_insert_with(|| layout.check(shape, threads))
        .clone();
    verdict.map_err(|message| format!("expects a valid {name}: {message}"))
}

/// Checks the `tile.layout` of an allocation of `shape` at `level`.
pub fn allocation(op: OperationRef, level: MemoryLevel, shape: &[i64]) -> Verdict {
    let Ok(given) = op.attribute(LAYOUT_ATTRIBUTE) else {
        return Ok(());
    };
    match level {
        MemoryLevel::Fragment => {
            let layout = FragmentLayout::from_attribute(given)
                .ok_or_else(|| format!("expects {LAYOUT_ATTRIBUTE} to be a #tile.frag, but got {given}"))?;
            check_fragment(op, given, &layout, shape, LAYOUT_ATTRIBUTE)
        }
        _ => SharedLayout::from_attribute(given)
            .map(|_| ())
            .ok_or_else(|| format!("expects {LAYOUT_ATTRIBUTE} to be a #tile.smem, but got {given}")),
    }
}

/// Checks the `tile.loop_layout` of a `tile.parallel` over `extents`.
pub fn parallel(op: OperationRef, extents: &[i64]) -> Verdict {
    let Ok(given) = op.attribute(LOOP_LAYOUT_ATTRIBUTE) else {
        return Ok(());
    };
    let layout = FragmentLayout::from_attribute(given)
        .ok_or_else(|| format!("expects {LOOP_LAYOUT_ATTRIBUTE} to be a #tile.frag, but got {given}"))?;
    check_fragment(op, given, &layout, extents, LOOP_LAYOUT_ATTRIBUTE)
}

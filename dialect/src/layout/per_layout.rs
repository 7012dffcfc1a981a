//! Values made once per fragment layout and shared by the process's threads (the layouts' tables,
//! the lowerings' layouts read backwards): compile calls lower kernels on MLIR's threads, and the
//! kernels of one program share most of their layouts.

use super::FragmentLayout;
use std::{collections::HashMap, sync::Mutex};

/// At most `kept` values by layout; past that it starts over (a kernel uses a handful of layouts,
/// and a host that compiles many kernels must not keep every one). The lock is held to look a value
/// up or to keep one, never while one is made: two threads may make the same value at once, and
/// the second one kept replaces an equal first.
pub struct PerLayout<V> {
    kept: usize,
    values: Mutex<Option<HashMap<FragmentLayout, V>>>,
}

impl<V: Clone> PerLayout<V> {
    /// An empty store of at most `kept` values.
    pub const fn new(kept: usize) -> Self {
        PerLayout {
            kept,
            values: Mutex::new(None),
        }
    }

    /// Returns the value kept for `layout`, or makes it with `make` and keeps it.
    pub fn get_or_make(&self, layout: &FragmentLayout, make: impl FnOnce() -> V) -> V {
        let values = || self.values.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
        if let Some(value) = values().as_ref().and_then(|values| values.get(layout).cloned()) {
            return value;
        }
        let value = make();
        let mut values = values();
        let values = values.get_or_insert_with(HashMap::new);
        if values.len() >= self.kept {
            values.clear();
        }
        values.insert(layout.clone(), value.clone());
        value
    }
}

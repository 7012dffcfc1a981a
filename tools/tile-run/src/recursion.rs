//! Host functions that call themselves, directly or through others: `tile-run` refuses them before
//! running anything. The host code runs to completion on the CPU; a call cycle has no bound
//! `tile-run` could check (a cycle without a way out runs forever, found by the fuzzer as a kernel's
//! call to its own host function moved out of the kernel).

use melior::ir::{
    BlockLike, Module, RegionLike,
    operation::{OperationLike, OperationRef},
};
use std::collections::HashMap;
use tile_dialect::ops::{nested_ops, op_name, string_attribute};

/// The callee a `func.call` names.
fn callee(call: &OperationRef) -> Option<String> {
    call.attribute("callee")
        .ok()
        .map(|symbol| symbol.to_string().trim_start_matches('@').to_owned())
}

/// Each `func.call` of `module`'s functions that starts a cycle back to its own function, with the
/// cycle's names (`@f -> @g -> @f`), in program order.
pub fn recursive_calls<'c, 'a>(module: &'a Module<'c>) -> Vec<(OperationRef<'c, 'a>, String)> {
    let mut calls: HashMap<String, Vec<(OperationRef<'c, 'a>, String)>> = HashMap::new();
    let mut order = Vec::new();
    let mut next = module.body().first_operation();
    while let Some(op) = next {
        next = op.next_in_block();
        if op_name(&op) != "func.func" || op.region(0).ok().and_then(|region| region.first_block()).is_none() {
            continue;
        }
        let name = string_attribute(&op, "sym_name").unwrap_or_default();
        let outgoing = nested_ops(op)
            .into_iter()
            .filter(|nested| op_name(nested) == "func.call")
            .filter_map(|call| Some((call, callee(&call)?)))
            .collect();
        calls.insert(name.clone(), outgoing);
        order.push(name);
    }
    let mut found = Vec::new();
    for name in &order {
        for (call, first) in &calls[name] {
            if let Some(path) = path_to(&calls, first, name) {
                found.push((
                    *call,
                    format!(
                        "@{name} -> {}",
                        path.iter()
                            .map(|step| format!("@{step}"))
                            .collect::<Vec<_>>()
                            .join(" -> ")
                    ),
                ));
            }
        }
    }
    found
}

/// The names from `from` to `to` along the calls (both included), if `to` can be reached.
fn path_to(calls: &HashMap<String, Vec<(OperationRef, String)>>, from: &str, to: &str) -> Option<Vec<String>> {
    let mut previous: HashMap<String, String> = HashMap::new();
    let mut queue = std::collections::VecDeque::from([from.to_owned()]);
    let mut seen = std::collections::HashSet::from([from.to_owned()]);
    while let Some(current) = queue.pop_front() {
        if current == to {
            let mut path = vec![current.clone()];
            while let Some(before) = previous.get(path.last().expect("a step")) {
                path.push(before.clone());
            }
            path.reverse();
            return Some(path);
        }
        for (_, next) in calls.get(&current).into_iter().flatten() {
            if seen.insert(next.clone()) {
                previous.insert(next.clone(), current.clone());
                queue.push_back(next.clone());
            }
        }
    }
    None
}

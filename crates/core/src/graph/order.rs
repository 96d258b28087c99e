//! The order of a list's contributions and of a key's decorators: registration order, except
//! where a declaration asks (`after`) to come after others of the same list or key.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use super::decl::Decl;
use super::numbering::NodeId;
use super::suggest::closest;
use crate::error::Problem;
use crate::key::Key;

/// `members` (each with its declaration's node, in registration order) in the order their
/// `after`s ask for, ties kept in registration order. A name that is no other member's, and a
/// ring of `after`s, are problems; the members then stay in registration order.
pub(super) fn order<T: Copy>(
    key: &Key,
    members: &[(NodeId, T)],
    decls: &[Decl<'_>],
    problems: &mut Vec<Problem>,
) -> Vec<T> {
    let decl = |i: usize| &decls[members[i].0.index()];
    let in_order = || members.iter().map(|&(_, value)| value).collect();
    if members
        .iter()
        .all(|(node, _)| decls[node.index()].descriptor.after.is_empty())
    {
        return in_order();
    }
    // `before[i]`: the members that come before member `i`.
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
    let mut found_all = true;
    for (i, (node, _)) in members.iter().enumerate() {
        for after in &decl(i).descriptor.after {
            // By name (every member of that name, in whichever module), or by a module's
            // qualified name (`email::notifier`).
            let named: Vec<usize> = (0..members.len())
                .filter(|&j| {
                    let d = decl(j).descriptor;
                    members[j].0 != *node
                        && (d.name == *after
                            || (d.module().is_some() && d.qualified_name() == *after))
                })
                .collect();
            if named.is_empty() {
                found_all = false;
                let others: Vec<String> = (0..members.len())
                    .filter(|&j| members[j].0 != *node)
                    .map(|j| decl(j).descriptor.qualified_name().into_owned())
                    .collect();
                problems.push(Problem::UnknownAfter {
                    key: key.clone(),
                    by: decl(i).origin(),
                    after: after.to_string(),
                    suggestion: closest(after, others.iter(), |n| n).map(|n| n.to_string()),
                });
            }
            before[i].extend(named);
        }
    }
    if !found_all {
        return in_order();
    }
    // Kahn's algorithm, taking the earliest registered member whose predecessors are placed.
    let mut waiting: Vec<usize> = before.iter().map(Vec::len).collect();
    let mut after_of: Vec<Vec<usize>> = vec![Vec::new(); members.len()];
    for (i, earlier) in before.iter().enumerate() {
        for &j in earlier {
            after_of[j].push(i);
        }
    }
    let mut ready: BinaryHeap<Reverse<usize>> = (0..members.len())
        .filter(|&i| waiting[i] == 0)
        .map(Reverse)
        .collect();
    let mut placed = Vec::with_capacity(members.len());
    while let Some(Reverse(i)) = ready.pop() {
        placed.push(i);
        for &k in &after_of[i] {
            waiting[k] -= 1;
            if waiting[k] == 0 {
                ready.push(Reverse(k));
            }
        }
    }
    if placed.len() < members.len() {
        problems.push(Problem::OrderCycle {
            key: key.clone(),
            ring: ring(&before, &placed)
                .into_iter()
                .map(|i| decl(i).origin())
                .collect(),
        });
        return in_order();
    }
    placed.into_iter().map(|i| members[i].1).collect()
}

/// A ring among the members not `placed`: from the earliest, each comes after the next, the
/// last after the first.
fn ring(before: &[Vec<usize>], placed: &[usize]) -> Vec<usize> {
    let left = |i: &usize| !placed.contains(i);
    let start = (0..before.len()).find(left).expect("a member was left out");
    let mut path = vec![start];
    let mut current = start;
    loop {
        // Every member left out waits on one that is left out too.
        let next = *before[current]
            .iter()
            .filter(|j| left(j))
            .min()
            .expect("a member left out waits on another");
        if let Some(at) = path.iter().position(|&p| p == next) {
            return path.split_off(at);
        }
        path.push(next);
        current = next;
    }
}

//! How a document's `$ref`s connect: the checks that keep validating it finite.
//!
//! Each shared schema (a `$ref` target) is a node; each `$ref` inside it is an edge, *in
//! place* unless an applicator that descends into the instance (`items`, `properties`,
//! `propertyNames`, ...) lies between the schema and the `$ref`. Descending edges consume the
//! instance, whose depth is bounded before validating, so only in-place edges can loop: a
//! cycle of them is refused, and so is an in-place chain nesting deeper than the reference
//! depth limit (every value would hit it). All traversals here are iterative or bounded by the
//! compiled schema's nesting, which the document's depth limit bounds.

use crate::compile::Compiled;
use crate::error::SchemaError;
use crate::node::{Keyword, Schema};
use crate::pointer::display;

/// The height of a compiled schema and the references in it.
#[derive(Debug, Default)]
struct Facts {
    height: usize,
    edges: Vec<Edge>,
}

/// A `$ref` in a schema: its target, its level, and whether it applies in place.
#[derive(Debug, Clone, Copy)]
struct Edge {
    target: usize,
    level: usize,
    in_place: bool,
}

fn facts(schema: &Schema) -> Facts {
    let mut facts = Facts::default();
    visit(schema, 1, false, &mut facts);
    facts
}

fn visit(schema: &Schema, level: usize, descended: bool, facts: &mut Facts) {
    facts.height = facts.height.max(level);
    let Schema::Node(keywords) = schema else {
        return;
    };
    for keyword in keywords {
        match keyword {
            Keyword::Ref { index, level } => facts.edges.push(Edge {
                target: *index,
                level: *level,
                in_place: !descended,
            }),
            keyword => keyword.for_each_child(&mut |child, descends| {
                visit(child, level + 1, descended || descends, facts);
            }),
        }
    }
}

/// Checks the reference graph. Shared schemas the root cannot reach are dropped (they were
/// compiled only to check them).
pub(crate) fn link(
    root: Schema,
    shared: Vec<Schema>,
    pointers: &[String],
    max_depth: usize,
) -> Result<Compiled, SchemaError> {
    if shared.is_empty() {
        return Ok(Compiled {
            root,
            shared: Box::new([]),
        });
    }
    let root_edges = facts(&root).edges;
    let all: Vec<Facts> = shared.iter().map(facts).collect();

    // Reachable from the root, through any edge.
    let mut reachable = vec![false; shared.len()];
    let mut stack: Vec<usize> = root_edges.iter().map(|edge| edge.target).collect();
    while let Some(node) = stack.pop() {
        match reachable.get_mut(node) {
            Some(seen) if !*seen => *seen = true,
            _ => continue,
        }
        if let Some(facts) = all.get(node) {
            stack.extend(facts.edges.iter().map(|edge| edge.target));
        }
    }

    // Depth-first over in-place edges: a node met again while still open closes a cycle;
    // `reach` is how deep the walk nests from a node through in-place references (the levels
    // of the references, then the height of the last schema).
    const NEW: u8 = 0;
    const OPEN: u8 = 1;
    const DONE: u8 = 2;
    let mut state = vec![NEW; shared.len()];
    let mut reach = vec![0usize; shared.len()];
    let pointer = |node: usize| display(pointers.get(node).map_or("", String::as_str));
    for start in 0..shared.len() {
        if !reachable.get(start).copied().unwrap_or(false) || state.get(start) != Some(&NEW) {
            continue;
        }
        let mut stack: Vec<(usize, usize)> = vec![(start, 0)];
        if let Some(s) = state.get_mut(start) {
            *s = OPEN;
        }
        while let Some((node, next)) = stack.last_mut() {
            let node = *node;
            let edges = all.get(node).map_or(&[][..], |facts| &facts.edges[..]);
            let child = edges
                .iter()
                .skip(*next)
                .position(|edge| edge.in_place)
                .map(|offset| *next + offset);
            if let Some(child_index) = child {
                *next = child_index + 1;
                let Some(&Edge { target, .. }) = edges.get(child_index) else {
                    continue;
                };
                match state.get(target).copied() {
                    Some(NEW) => {
                        if let Some(s) = state.get_mut(target) {
                            *s = OPEN;
                        }
                        stack.push((target, 0));
                    }
                    Some(OPEN) => {
                        return Err(SchemaError::ReferenceCycle {
                            pointer: pointer(target),
                        });
                    }
                    _ => {}
                }
                continue;
            }
            let height = all.get(node).map_or(0, |facts| facts.height);
            let total = through(edges, &reach).max(height);
            if total > max_depth {
                return Err(SchemaError::ReferenceDepth {
                    pointer: pointer(node),
                    limit: max_depth,
                });
            }
            if let Some(r) = reach.get_mut(node) {
                *r = total;
            }
            if let Some(s) = state.get_mut(node) {
                *s = DONE;
            }
            stack.pop();
        }
    }

    if through(&root_edges, &reach) > max_depth {
        return Err(SchemaError::ReferenceDepth {
            pointer: "/".to_owned(),
            limit: max_depth,
        });
    }
    let shared = shared
        .into_iter()
        .zip(reachable)
        .map(|(schema, reachable)| if reachable { schema } else { Schema::Any })
        .collect();
    Ok(Compiled { root, shared })
}

/// How deep the walk nests through the in-place references among `edges`, given the `reach`
/// of their targets.
fn through(edges: &[Edge], reach: &[usize]) -> usize {
    edges
        .iter()
        .filter(|edge| edge.in_place)
        .filter_map(|edge| {
            let reach = reach.get(edge.target)?;
            Some(edge.level.saturating_add(*reach))
        })
        .max()
        .unwrap_or(0)
}

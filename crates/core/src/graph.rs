//! The shape of the link graph, read only: the shortest link paths between two notes
//! (`find_link_paths`), and `link_graph`'s four questions: the notes that hold the vault together
//! (`hubs`), the islands it falls into (`islands`), its link cycles (`cycles`) and one health
//! summary (`health`).
//!
//! The graph is the index's, read once per call: its nodes are the vault's notes, and a note
//! links to another when one of its links (body or property, wikilink, markdown link or embed)
//! resolves to it, an ambiguous link to the file it lands on. A link to itself, to an attachment
//! or to nothing is no edge; several links between the same two notes are one edge, shown by the
//! first of them. Canvases are not notes, so their links are no edges here.
//!
//! The algorithms are petgraph's where it has one that scales: `tarjan_scc` (the strongly
//! connected components, outside which there is no cycle), `articulation_points` (the notes
//! whose removal splits an island: what "holds the vault together" means here, besides the
//! in-degree) and `UnionFind` (the islands). petgraph's `page_rank` is not used: its documented
//! cost is O(iterations · V² · E), out of reach on a vault of 100,000 notes. Every answer is
//! bounded (paths and cycles are capped and say so) and paged like the other reads.

use std::collections::HashMap;
use std::rc::Rc;

use petgraph::graph::{NodeIndex, UnGraph};
use petgraph::unionfind::UnionFind;
use serde::{Deserialize, Serialize};

use crate::answer::{list_digest, page, OpError, ResponseFormat, MAX_LISTED};
use crate::index::Vault;
use crate::parse::Link;

/// The longest link path `find_link_paths` looks for, and its default.
pub const MAX_PATH_LENGTH: usize = 10;
pub const DEFAULT_PATH_LENGTH: usize = 6;
/// The most shortest paths one answer enumerates: between two hubs there can be millions.
pub const MAX_PATHS: usize = 100;

/// The cycle lengths `link_graph` accepts, and its defaults: a cycle of two is a pair of notes
/// that link to each other, common in a wiki and rarely what someone looks for.
pub const MIN_CYCLE_LENGTH: usize = 2;
pub const MAX_CYCLE_LENGTH: usize = 8;
pub const DEFAULT_CYCLE_LENGTHS: (usize, usize) = (3, 5);
/// The most cycles one answer lists, and the most steps their search takes: past either the
/// answer says `truncated`.
pub const MAX_CYCLES: usize = 1_000;
const MAX_CYCLE_STEPS: usize = 2_000_000;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PathArguments {
    /// The note the paths start from.
    pub from: String,
    /// The note they end at.
    pub to: String,
    /// The most links on a path; [`DEFAULT_PATH_LENGTH`] when left out.
    pub max_length: Option<usize>,
    /// `forward` follows links as written (from the note holding a link to its target); `any`
    /// also walks a link backwards, from its target to the note holding it.
    #[serde(default)]
    pub direction: Direction,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Direction {
    #[default]
    Forward,
    Any,
}

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GraphArguments {
    pub question: Question,
    /// For `cycles`: the fewest and the most links on a cycle.
    pub min_length: Option<usize>,
    pub max_length: Option<usize>,
    pub limit: Option<usize>,
    pub cursor: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Question {
    Hubs,
    Islands,
    Cycles,
    Health,
}

/// One link on a path or a cycle.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Step {
    /// The note this step leaves.
    pub from: String,
    /// The note it reaches.
    pub to: String,
    /// The note the link is written in: `from`, or `to` when the link is walked backwards.
    pub source: String,
    /// The link's target as written.
    pub target: String,
    pub line: u32,
    /// `forward`, or `backward` when the step walks a link from its target to its source.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub direction: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkPath {
    /// The notes on the path, `from` first, `to` last.
    pub notes: Vec<String>,
    /// The link taken at each step; `detailed` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<Step>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct LinkPaths {
    pub from: String,
    pub to: String,
    pub direction: Direction,
    /// How many links the shortest paths take; absent when none is at most `max_length` long.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub length: Option<usize>,
    /// How many shortest paths were found (at most [`MAX_PATHS`]).
    pub total: usize,
    pub paths: Vec<LinkPath>,
    /// True when there are more shortest paths than [`MAX_PATHS`].
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
    /// Why there is no path, and what to try.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub next_cursor: Option<String>,
}

/// A share from 0 to 1, rounded to four places. Compared by its bits: it is only ever a value
/// computed from counts, never NaN.
#[derive(Debug, Clone, Copy, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Ratio(f64);

impl Ratio {
    fn of(part: usize, whole: usize) -> Ratio {
        if whole == 0 {
            return Ratio(0.0);
        }
        Ratio((part as f64 / whole as f64 * 10_000.0).round() / 10_000.0)
    }
}

impl PartialEq for Ratio {
    fn eq(&self, other: &Ratio) -> bool {
        self.0.to_bits() == other.0.to_bits()
    }
}

impl Eq for Ratio {}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Hub {
    pub path: String,
    /// How many other notes link to it.
    pub in_degree: usize,
    /// How many other notes it links to.
    pub out_degree: usize,
    /// True when removing it would split its island: some notes reach each other only through
    /// it (an articulation point of the graph with links read both ways).
    pub cut_point: bool,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Island {
    /// How many notes it holds.
    pub size: usize,
    /// Its notes in path order, the first [`MAX_LISTED`]; `detailed` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub notes: Option<Vec<String>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Cycle {
    /// The notes around the cycle, each linking to the next and the last to the first; it
    /// starts at the first of them in path order.
    pub notes: Vec<String>,
    /// The link taken at each step, the last back to the first note; `detailed` only.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub links: Option<Vec<Step>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "typescript", derive(ts_rs::TS))]
pub struct Health {
    pub notes: usize,
    /// Every link of the notes and canvases, resolved or not.
    pub links: usize,
    /// Links that find no file (`find_unresolved_links`).
    pub broken_links: usize,
    /// Links several files match (`lint_wiki`'s `ambiguous_link`).
    pub ambiguous_links: usize,
    /// Notes nothing else links to (`find_orphans`).
    pub orphans: usize,
    /// Notes that link to no other file (`lint_wiki`'s `dead_end`; `SCHEMA.md` is none).
    pub dead_ends: usize,
    /// How many islands the notes fall into, reading links both ways (a note with no link in
    /// or out is one by itself).
    pub island_count: usize,
    /// The notes of the largest island.
    pub largest_island: usize,
    /// Notes with no link to or from another note.
    pub isolated_notes: usize,
    /// `broken_links / links`, `ambiguous_links / links`, `orphans / notes`,
    /// `dead_ends / notes`, `largest_island / notes`.
    pub broken_ratio: Ratio,
    pub ambiguous_ratio: Ratio,
    pub orphan_ratio: Ratio,
    pub dead_end_ratio: Ratio,
    pub largest_island_share: Ratio,
}

/// What `link_graph` answers, tagged by the question.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "question", rename_all = "snake_case")]
pub enum GraphAnswer {
    Hubs {
        /// How many notes have a link from another note, or are cut points.
        total: usize,
        /// How many notes are cut points, across pages.
        cut_points: usize,
        hubs: Vec<Hub>,
        #[serde(skip_serializing_if = "Option::is_none")]
        next_cursor: Option<String>,
    },
    Islands {
        total: usize,
        largest_island: usize,
        isolated_notes: usize,
        islands: Vec<Island>,
        #[serde(skip_serializing_if = "Option::is_none")]
        next_cursor: Option<String>,
    },
    Cycles {
        min_length: usize,
        max_length: usize,
        /// How many cycles were found (at most [`MAX_CYCLES`]).
        total: usize,
        cycles: Vec<Cycle>,
        /// True when the search stopped at [`MAX_CYCLES`] or its step budget: there may be more.
        #[serde(skip_serializing_if = "std::ops::Not::not")]
        truncated: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        next_cursor: Option<String>,
    },
    Health(Health),
}

/// The note graph of a vault as it is now.
struct NoteGraph<'a> {
    /// Each node's path, in path order.
    paths: Vec<&'a str>,
    /// Each node's edges out, by target, each with the first link that makes it (shared with
    /// the edge in, since the index builds each link it hands out).
    out: Vec<Vec<(usize, Rc<Link>)>>,
    /// Each node's edges in, by source.
    into: Vec<Vec<(usize, Rc<Link>)>>,
}

impl<'a> NoteGraph<'a> {
    fn of(vault: &'a Vault) -> NoteGraph<'a> {
        let paths: Vec<&str> = vault.note_paths().collect();
        let ids: HashMap<&str, usize> = paths.iter().enumerate().map(|(id, path)| (*path, id)).collect();
        let mut out: Vec<Vec<(usize, Rc<Link>)>> = vec![Vec::new(); paths.len()];
        let mut into: Vec<Vec<(usize, Rc<Link>)>> = vec![Vec::new(); paths.len()];
        for (source, path) in paths.iter().enumerate() {
            for found in vault.outgoing_links(path).unwrap_or_default() {
                let Some(&target) = found.resolution.path().and_then(|target| ids.get(target)) else { continue };
                if target != source {
                    out[source].push((target, Rc::new(found.link)));
                }
            }
            // A stable sort keeps each target's links in the order written: the first one stays.
            out[source].sort_by_key(|(target, _)| *target);
            out[source].dedup_by_key(|(target, _)| *target);
            for (target, link) in &out[source] {
                into[*target].push((source, Rc::clone(link)));
            }
        }
        NoteGraph { paths, out, into }
    }

    fn id(&self, path: &str) -> Option<usize> {
        self.paths.binary_search(&path).ok()
    }

    fn step(&self, from: usize, to: usize, link: &Link, forward: bool, detailed_direction: bool) -> Step {
        let source = if forward { from } else { to };
        Step {
            from: self.paths[from].to_owned(),
            to: self.paths[to].to_owned(),
            source: self.paths[source].to_owned(),
            target: link.target.clone(),
            line: link.line,
            direction: detailed_direction.then_some(if forward { "forward" } else { "backward" }),
        }
    }

    /// The notes each note is tied to by a link either way, without repeats.
    fn undirected(&self) -> UnGraph<(), ()> {
        let mut graph = UnGraph::<(), ()>::with_capacity(self.paths.len(), 0);
        for _ in &self.paths {
            graph.add_node(());
        }
        for (source, targets) in self.out.iter().enumerate() {
            for (target, _) in targets {
                // A pair linking both ways is one edge: the second is skipped from the lower id.
                let both_ways = self.out[*target].binary_search_by_key(&source, |(known, _)| *known).is_ok();
                if both_ways && source > *target {
                    continue;
                }
                graph.add_edge(NodeIndex::new(source), NodeIndex::new(*target), ());
            }
        }
        graph
    }

    /// The islands, each a list of node ids in path order, largest first, then by first path.
    fn islands(&self) -> Vec<Vec<usize>> {
        let mut sets = UnionFind::<usize>::new(self.paths.len());
        for (source, targets) in self.out.iter().enumerate() {
            for (target, _) in targets {
                sets.union(source, *target);
            }
        }
        let mut by_root: HashMap<usize, Vec<usize>> = HashMap::new();
        for node in 0..self.paths.len() {
            by_root.entry(sets.find(node)).or_default().push(node);
        }
        let mut islands: Vec<Vec<usize>> = by_root.into_values().collect();
        islands.sort_by(|a, b| b.len().cmp(&a.len()).then(a[0].cmp(&b[0])));
        islands
    }
}

/// A note on a path, with the link by which the path reaches it from the note before it (and
/// whether that link is walked as written); none for the path's first note.
type Walked<'a> = (usize, Option<(&'a Link, bool)>);

fn find_note<'a>(vault: &'a Vault, path: &str) -> Result<&'a str, OpError> {
    vault.find_note(path).ok_or_else(|| OpError::NoteNotFound { path: path.to_owned() })
}

/// The shortest link paths from `from` to `to`, at most `max_length` links long.
pub fn link_paths(vault: &Vault, arguments: &PathArguments) -> Result<LinkPaths, OpError> {
    let max_length = arguments.max_length.unwrap_or(DEFAULT_PATH_LENGTH);
    if !(1..=MAX_PATH_LENGTH).contains(&max_length) {
        return Err(OpError::InvalidArguments { detail: format!("`max_length` must be from 1 to {MAX_PATH_LENGTH}, not {max_length}") });
    }
    let from_path = find_note(vault, &arguments.from)?;
    let to_path = find_note(vault, &arguments.to)?;
    let graph = NoteGraph::of(vault);
    let (Some(from), Some(to)) = (graph.id(from_path), graph.id(to_path)) else {
        return Err(OpError::NoteNotFound { path: arguments.from.clone() });
    };
    let any = arguments.direction == Direction::Any;
    let detailed = arguments.response_format == ResponseFormat::Detailed;
    // Breadth first from `from`, keeping for each note reached every note one step nearer
    // that leads to it (with the link, and whether it is walked as written).
    let mut distance: Vec<Option<usize>> = vec![None; graph.paths.len()];
    let mut before: Vec<Vec<(usize, &Link, bool)>> = vec![Vec::new(); graph.paths.len()];
    distance[from] = Some(0);
    let mut frontier = vec![from];
    let mut length = (from == to).then_some(0);
    for step in 1..=max_length {
        if length.is_some() || frontier.is_empty() {
            break;
        }
        let mut next = Vec::new();
        for &node in &frontier {
            let forward = graph.out[node].iter().map(|(other, link)| (*other, &**link, true));
            let backward = graph.into[node].iter().filter(|_| any).map(|(other, link)| (*other, &**link, false));
            for (other, link, as_written) in forward.chain(backward) {
                match distance[other] {
                    None => {
                        distance[other] = Some(step);
                        next.push(other);
                        before[other].push((node, link, as_written));
                    }
                    Some(known) if known == step && !before[other].iter().any(|(seen, _, _)| *seen == node) => {
                        before[other].push((node, link, as_written));
                    }
                    _ => {}
                }
            }
        }
        next.sort_unstable();
        if distance[to].is_some() {
            length = Some(step);
        }
        frontier = next;
    }
    let direction = arguments.direction;
    let Some(length) = length else {
        let reason = match direction {
            Direction::Forward => format!(
                "no chain of at most {max_length} links leads from `{from_path}` to `{to_path}`; try `direction: \"any\"` to walk links both ways, or a larger `max_length`"
            ),
            Direction::Any => format!(
                "`{from_path}` and `{to_path}` are not within {max_length} links of each other, in either direction; link_graph with `question: \"islands\"` shows whether they share an island"
            ),
        };
        return Ok(LinkPaths {
            from: from_path.to_owned(),
            to: to_path.to_owned(),
            direction,
            length: None,
            total: 0,
            paths: Vec::new(),
            truncated: false,
            reason: Some(reason),
            next_cursor: None,
        });
    };
    // Every shortest path, walked back from `to`, in path order of the notes on it.
    let mut found: Vec<Vec<Walked<'_>>> = Vec::new();
    let mut truncated = false;
    let mut stack: Vec<Vec<Walked<'_>>> = vec![vec![(to, None)]];
    while let Some(partial) = stack.pop() {
        let (head, _) = partial[partial.len() - 1];
        if head == from {
            if found.len() == MAX_PATHS {
                truncated = true;
                break;
            }
            found.push(partial.into_iter().rev().collect());
            continue;
        }
        let mut previous = before[head].clone();
        previous.sort_by_key(|(node, _, _)| std::cmp::Reverse(*node));
        for (node, link, as_written) in previous {
            let mut longer = partial.clone();
            let last = longer.len() - 1;
            longer[last].1 = Some((link, as_written));
            longer.push((node, None));
            stack.push(longer);
        }
    }
    let paths: Vec<LinkPath> = found
        .iter()
        .map(|path| {
            let notes = path.iter().map(|(node, _)| graph.paths[*node].to_owned()).collect();
            // Each entry holds the link that reached the next one.
            let links = path
                .windows(2)
                .filter_map(|pair| {
                    let (node, _) = pair[0];
                    let (next, via) = pair[1];
                    via.map(|(link, as_written)| graph.step(node, next, link, as_written, any))
                })
                .collect();
            LinkPath { notes, links: detailed.then_some(links) }
        })
        .collect();
    let scope = format!(
        "find_link_paths\0{from_path}\0{to_path}\0{direction:?}\0{max_length}\0{}",
        list_digest(paths.iter().flat_map(|path| path.notes.iter().map(String::as_str).chain(std::iter::once("\u{1}"))))
    );
    let (paths, total, next_cursor) = page(paths, arguments.limit, arguments.cursor.as_deref(), &scope)?;
    Ok(LinkPaths {
        from: from_path.to_owned(),
        to: to_path.to_owned(),
        direction,
        length: Some(length),
        total,
        paths,
        truncated,
        reason: None,
        next_cursor,
    })
}

/// Answers one of `link_graph`'s questions.
pub fn link_graph(vault: &Vault, arguments: &GraphArguments) -> Result<GraphAnswer, OpError> {
    if arguments.question != Question::Cycles && (arguments.min_length.is_some() || arguments.max_length.is_some()) {
        return Err(OpError::InvalidArguments {
            detail: "`min_length` and `max_length` are for `question: \"cycles\"` only; leave them out".to_owned(),
        });
    }
    let graph = NoteGraph::of(vault);
    let detailed = arguments.response_format == ResponseFormat::Detailed;
    match arguments.question {
        Question::Hubs => hubs(&graph, arguments),
        Question::Islands => {
            let islands = graph.islands();
            let largest_island = islands.first().map_or(0, Vec::len);
            let isolated_notes = islands.iter().filter(|island| island.len() == 1).count();
            let scope = format!("link_graph\0islands\0{}", list_digest(islands.iter().map(|island| graph.paths[island[0]])));
            let listed: Vec<Island> = islands
                .iter()
                .map(|island| Island {
                    size: island.len(),
                    notes: detailed.then(|| island.iter().take(MAX_LISTED).map(|node| graph.paths[*node].to_owned()).collect()),
                })
                .collect();
            let (islands, total, next_cursor) = page(listed, arguments.limit, arguments.cursor.as_deref(), &scope)?;
            Ok(GraphAnswer::Islands { total, largest_island, isolated_notes, islands, next_cursor })
        }
        Question::Cycles => cycles(&graph, arguments),
        Question::Health => Ok(GraphAnswer::Health(health(vault, &graph))),
    }
}

fn hubs(graph: &NoteGraph<'_>, arguments: &GraphArguments) -> Result<GraphAnswer, OpError> {
    let cut: std::collections::HashSet<usize> =
        petgraph::algo::articulation_points::articulation_points(&graph.undirected()).into_iter().map(NodeIndex::index).collect();
    let mut hubs: Vec<usize> = (0..graph.paths.len()).filter(|node| !graph.into[*node].is_empty() || cut.contains(node)).collect();
    // The most linked first; among equals a cut point first, then path order.
    hubs.sort_by(|a, b| graph.into[*b].len().cmp(&graph.into[*a].len()).then(cut.contains(b).cmp(&cut.contains(a))).then(a.cmp(b)));
    let scope = format!("link_graph\0hubs\0{}", list_digest(hubs.iter().map(|node| graph.paths[*node])));
    let listed: Vec<Hub> = hubs
        .into_iter()
        .map(|node| Hub {
            path: graph.paths[node].to_owned(),
            in_degree: graph.into[node].len(),
            out_degree: graph.out[node].len(),
            cut_point: cut.contains(&node),
        })
        .collect();
    let (hubs, total, next_cursor) = page(listed, arguments.limit, arguments.cursor.as_deref(), &scope)?;
    Ok(GraphAnswer::Hubs { total, cut_points: cut.len(), hubs, next_cursor })
}

fn cycles(graph: &NoteGraph<'_>, arguments: &GraphArguments) -> Result<GraphAnswer, OpError> {
    let min_length = arguments.min_length.unwrap_or(DEFAULT_CYCLE_LENGTHS.0);
    let max_length = arguments.max_length.unwrap_or(DEFAULT_CYCLE_LENGTHS.1.max(min_length));
    let range = MIN_CYCLE_LENGTH..=MAX_CYCLE_LENGTH;
    if !range.contains(&min_length) || !range.contains(&max_length) || min_length > max_length {
        return Err(OpError::InvalidArguments {
            detail: format!(
                "`min_length` and `max_length` must be from {MIN_CYCLE_LENGTH} to {MAX_CYCLE_LENGTH}, the first at most the second, not {min_length} and {max_length}"
            ),
        });
    }
    let detailed = arguments.response_format == ResponseFormat::Detailed;
    // A cycle lies inside one strongly connected component; each is searched from each of its
    // notes in turn, visiting only notes after the start in path order, so a cycle is found
    // once, from its first note.
    let mut directed = petgraph::graph::DiGraph::<(), ()>::with_capacity(graph.paths.len(), 0);
    for _ in &graph.paths {
        directed.add_node(());
    }
    for (source, targets) in graph.out.iter().enumerate() {
        for (target, _) in targets {
            directed.add_edge(NodeIndex::new(source), NodeIndex::new(*target), ());
        }
    }
    let mut component = vec![usize::MAX; graph.paths.len()];
    for (number, members) in petgraph::algo::tarjan_scc(&directed).into_iter().enumerate() {
        if members.len() > 1 {
            for member in members {
                component[member.index()] = number;
            }
        }
    }
    let mut found: Vec<Vec<usize>> = Vec::new();
    let mut steps = 0usize;
    let mut truncated = false;
    'starts: for start in 0..graph.paths.len() {
        if component[start] == usize::MAX {
            continue;
        }
        // Depth first, each frame the path so far and the next edge to try of its last note.
        let mut path = vec![start];
        let mut next_edge = vec![0usize];
        while let Some(&node) = path.last() {
            steps += 1;
            if steps > MAX_CYCLE_STEPS {
                truncated = true;
                break 'starts;
            }
            let edge = next_edge[next_edge.len() - 1];
            let Some(&(target, _)) = graph.out[node].get(edge) else {
                path.pop();
                next_edge.pop();
                continue;
            };
            let last = next_edge.len() - 1;
            next_edge[last] += 1;
            if component[target] != component[start] || target < start {
                continue;
            }
            if target == start {
                if path.len() >= min_length {
                    if found.len() == MAX_CYCLES {
                        truncated = true;
                        break 'starts;
                    }
                    found.push(path.clone());
                }
                continue;
            }
            if path.len() < max_length && !path.contains(&target) {
                path.push(target);
                next_edge.push(0);
            }
        }
    }
    let scope = format!(
        "link_graph\0cycles\0{min_length}\0{max_length}\0{}",
        list_digest(found.iter().flat_map(|cycle| cycle.iter().map(|node| graph.paths[*node]).chain(std::iter::once("\u{1}"))))
    );
    let listed: Vec<Cycle> = found
        .iter()
        .map(|cycle| {
            let links = detailed.then(|| {
                (0..cycle.len())
                    .filter_map(|at| {
                        let (node, next) = (cycle[at], cycle[(at + 1) % cycle.len()]);
                        let (_, link) = graph.out[node].iter().find(|(target, _)| *target == next)?;
                        Some(graph.step(node, next, link, true, false))
                    })
                    .collect()
            });
            Cycle { notes: cycle.iter().map(|node| graph.paths[*node].to_owned()).collect(), links }
        })
        .collect();
    let (cycles, total, next_cursor) = page(listed, arguments.limit, arguments.cursor.as_deref(), &scope)?;
    Ok(GraphAnswer::Cycles { min_length, max_length, total, cycles, truncated, next_cursor })
}

/// The vault's link health now: what `link_graph`'s `health` answers, and what every `lint_wiki`
/// answer carries, so that lints run one after another show how the links fare over time.
pub fn vault_health(vault: &Vault) -> Health {
    health(vault, &NoteGraph::of(vault))
}

fn health(vault: &Vault, graph: &NoteGraph<'_>) -> Health {
    let summary = vault.summary();
    let notes = graph.paths.len();
    let orphans = graph.paths.iter().filter(|path| !vault.is_excluded(path) && vault.inbound_count(path) == 0).count();
    let dead_ends = graph
        .paths
        .iter()
        .filter(|path| !crate::facts::is_schema_file(path))
        .filter(|path| {
            let links = vault.outgoing_links(path).unwrap_or_default();
            !links.iter().any(|link| !link.link.path.is_empty() && link.resolution.path() != Some(**path))
        })
        .count();
    let islands = graph.islands();
    let largest_island = islands.first().map_or(0, Vec::len);
    let isolated_notes = islands.iter().filter(|island| island.len() == 1).count();
    let broken_links = summary.unresolved_links;
    Health {
        notes,
        links: summary.links,
        broken_links,
        ambiguous_links: summary.ambiguous_links,
        orphans,
        dead_ends,
        island_count: islands.len(),
        largest_island,
        isolated_notes,
        broken_ratio: Ratio::of(broken_links, summary.links),
        ambiguous_ratio: Ratio::of(summary.ambiguous_links, summary.links),
        orphan_ratio: Ratio::of(orphans, notes),
        dead_end_ratio: Ratio::of(dead_ends, notes),
        largest_island_share: Ratio::of(largest_island, notes),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexConfig;

    fn vault(files: &[(&str, &str)]) -> Vault {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        for (path, text) in files {
            vault.upsert(path, text);
        }
        vault
    }

    fn paths_between(vault: &Vault, from: &str, to: &str, direction: Direction, max_length: Option<usize>) -> LinkPaths {
        let arguments = PathArguments {
            from: from.to_owned(),
            to: to.to_owned(),
            max_length,
            direction,
            limit: None,
            cursor: None,
            response_format: ResponseFormat::Detailed,
        };
        link_paths(vault, &arguments).expect("the paths are found")
    }

    fn ask(vault: &Vault, question: Question, lengths: Option<(usize, usize)>) -> Result<GraphAnswer, OpError> {
        let arguments = GraphArguments {
            question,
            min_length: lengths.map(|(min, _)| min),
            max_length: lengths.map(|(_, max)| max),
            limit: None,
            cursor: None,
            response_format: ResponseFormat::Detailed,
        };
        link_graph(vault, &arguments)
    }

    #[test]
    fn every_shortest_path_is_found_with_its_links() {
        let vault = vault(&[
            ("A.md", "[[B]] [[C]] [[B|again]]"),
            ("B.md", "[[D]]"),
            ("C.md", "text\n[d](D.md)"),
            ("D.md", "[[E]]"),
            ("E.md", ""),
            ("Far.md", "[[A]]"),
        ]);
        let answer = paths_between(&vault, "A", "D", Direction::Forward, None);
        assert_eq!(answer.length, Some(2));
        let notes: Vec<Vec<String>> = answer.paths.iter().map(|path| path.notes.clone()).collect();
        assert_eq!(notes, [vec!["A.md", "B.md", "D.md"], vec!["A.md", "C.md", "D.md"]]);
        let links = answer.paths[1].links.as_ref().expect("detailed");
        assert_eq!(
            links.iter().map(|step| (step.source.as_str(), step.target.as_str(), step.line)).collect::<Vec<_>>(),
            [("A.md", "C", 1), ("C.md", "D.md", 2)]
        );
        // Forward only, E does not lead back to A; walking links both ways it does, through D.
        let back = paths_between(&vault, "E", "A", Direction::Forward, None);
        assert_eq!((back.length, back.paths.len()), (None, 0));
        assert!(back.reason.as_deref().is_some_and(|reason| reason.contains("direction")), "{back:?}");
        let both = paths_between(&vault, "E", "Far", Direction::Any, None);
        assert_eq!(both.length, Some(4));
        assert_eq!(both.total, 2);
        let first = &both.paths[0].links.as_ref().expect("detailed")[0];
        assert_eq!((first.source.as_str(), first.direction), ("D.md", Some("backward")));
        // Too short a bound finds nothing, and says so.
        assert_eq!(paths_between(&vault, "A", "E", Direction::Forward, Some(2)).length, None);
    }

    #[test]
    fn hubs_count_notes_not_links_and_name_cut_points() {
        let vault = vault(&[
            ("Hub.md", "[[A]] [[B]]"),
            ("A.md", "[[Hub]] [[Hub]] [[Bridge]]"),
            ("B.md", "[[Hub]]"),
            ("Bridge.md", "[[Far]]"),
            ("Far.md", "![[pic.png]] [[Far]] [[Missing]]"),
            ("pic.png", ""),
        ]);
        let Ok(GraphAnswer::Hubs { hubs, cut_points, total, .. }) = ask(&vault, Question::Hubs, None) else { panic!("hubs") };
        let shown: Vec<(&str, usize, usize, bool)> =
            hubs.iter().map(|hub| (hub.path.as_str(), hub.in_degree, hub.out_degree, hub.cut_point)).collect();
        assert_eq!(
            shown,
            [("Hub.md", 2, 2, true), ("A.md", 1, 2, true), ("Bridge.md", 1, 1, true), ("B.md", 1, 1, false), ("Far.md", 1, 0, false)]
        );
        assert_eq!((cut_points, total), (3, 5));
    }

    #[test]
    fn islands_are_listed_largest_first() {
        let vault =
            vault(&[("A.md", "[[B]]"), ("B.md", ""), ("C.md", "[[B]]"), ("D.md", "[[E]]"), ("E.md", ""), ("Alone.md", "[[Nowhere]]")]);
        let Ok(GraphAnswer::Islands { total, largest_island, isolated_notes, islands, .. }) = ask(&vault, Question::Islands, None) else {
            panic!("islands")
        };
        assert_eq!((total, largest_island, isolated_notes), (3, 3, 1));
        let listed: Vec<(usize, Vec<String>)> = islands.into_iter().map(|island| (island.size, island.notes.unwrap_or_default())).collect();
        assert_eq!(
            listed,
            [
                (3, vec!["A.md".to_owned(), "B.md".to_owned(), "C.md".to_owned()]),
                (2, vec!["D.md".to_owned(), "E.md".to_owned()]),
                (1, vec!["Alone.md".to_owned()])
            ]
        );
    }

    #[test]
    fn cycles_are_found_once_within_the_lengths_asked() {
        let vault = vault(&[
            ("A.md", "[[B]]"),
            ("B.md", "[[C]] [[A]]"),
            ("C.md", "[[A]] [[D]]"),
            ("D.md", "[[E]]"),
            ("E.md", "[[F]]"),
            ("F.md", "[[G]]"),
            ("G.md", "[[D]]"),
        ]);
        let cycles_of = |lengths| match ask(&vault, Question::Cycles, lengths) {
            Ok(GraphAnswer::Cycles { cycles, truncated: false, .. }) => {
                cycles.into_iter().map(|cycle| cycle.notes.join(" ")).collect::<Vec<_>>()
            }
            other => panic!("{other:?}"),
        };
        assert_eq!(cycles_of(None), ["A.md B.md C.md", "D.md E.md F.md G.md"]);
        assert_eq!(cycles_of(Some((2, 4))), ["A.md B.md", "A.md B.md C.md", "D.md E.md F.md G.md"]);
        assert_eq!(cycles_of(Some((4, 4))), ["D.md E.md F.md G.md"]);
        let Ok(GraphAnswer::Cycles { cycles, .. }) = ask(&vault, Question::Cycles, Some((3, 3))) else { panic!("cycles") };
        let links = cycles[0].links.as_ref().expect("detailed");
        assert_eq!(links.last().map(|step| (step.from.as_str(), step.to.as_str())), Some(("C.md", "A.md")));
        assert!(matches!(ask(&vault, Question::Cycles, Some((5, 3))), Err(OpError::InvalidArguments { .. })));
        assert!(matches!(ask(&vault, Question::Hubs, Some((3, 3))), Err(OpError::InvalidArguments { .. })));
    }

    #[test]
    fn health_counts_and_ratios() {
        let vault = vault(&[("A.md", "[[B]] [[Missing]] [[T]]"), ("B.md", "[[A]]"), ("x/T.md", ""), ("y/T.md", ""), ("SCHEMA.md", "")]);
        let Ok(GraphAnswer::Health(health)) = ask(&vault, Question::Health, None) else { panic!("health") };
        assert_eq!(
            (health.notes, health.links, health.broken_links, health.ambiguous_links, health.orphans, health.dead_ends),
            (5, 4, 1, 1, 2, 2)
        );
        assert_eq!((health.island_count, health.largest_island, health.isolated_notes), (3, 3, 2));
        assert_eq!((health.broken_ratio, health.orphan_ratio, health.largest_island_share), (Ratio(0.25), Ratio(0.4), Ratio(0.6)));
    }

    #[test]
    fn answers_page_with_a_cursor() {
        let files: Vec<(String, String)> = (0..30).map(|n| (format!("n{n:02}.md"), String::new())).collect();
        let files: Vec<(&str, &str)> = files.iter().map(|(path, text)| (path.as_str(), text.as_str())).collect();
        let vault = vault(&files);
        let arguments = GraphArguments {
            question: Question::Islands,
            min_length: None,
            max_length: None,
            limit: Some(20),
            cursor: None,
            response_format: ResponseFormat::Concise,
        };
        let Ok(GraphAnswer::Islands { islands, next_cursor: Some(cursor), total: 30, .. }) = link_graph(&vault, &arguments) else {
            panic!("a page")
        };
        assert_eq!(islands.len(), 20);
        assert!(islands[0].notes.is_none(), "concise leaves the notes out");
        let rest = GraphArguments { cursor: Some(cursor), ..arguments.clone() };
        let Ok(GraphAnswer::Islands { islands, next_cursor: None, .. }) = link_graph(&vault, &rest) else { panic!("the last page") };
        assert_eq!(islands.len(), 10);
        let foreign = GraphArguments { cursor: Some(crate::answer::cursor_for("another list", 30, 1)), ..arguments };
        assert!(matches!(link_graph(&vault, &foreign), Err(OpError::InvalidArguments { .. })));
    }
}

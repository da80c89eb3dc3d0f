//! The command line's `path` and `graph`: the answers of `find_link_paths` and `link_graph`
//! written for people. The calls are the MCP tools'; only the words are here.

use serde_json::Value;

/// `vaultlink graph`'s questions, as `link_graph` names them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Question {
    Hubs,
    Islands,
    Cycles,
    Health,
}

impl Question {
    pub fn name(self) -> &'static str {
        match self {
            Question::Hubs => "hubs",
            Question::Islands => "islands",
            Question::Cycles => "cycles",
            Question::Health => "health",
        }
    }

    /// The list the answer pages, when it has one.
    pub fn items(self) -> Option<&'static str> {
        match self {
            Question::Hubs => Some("hubs"),
            Question::Islands => Some("islands"),
            Question::Cycles => Some("cycles"),
            Question::Health => None,
        }
    }
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn number(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn list(value: &Value) -> Vec<Value> {
    value.as_array().cloned().unwrap_or_default()
}

/// One step of a path or cycle: the link taken, where it is written.
fn step_line(step: &Value) -> String {
    let backward = if text(step, "direction") == "backward" { " (followed backwards)" } else { "" };
    format!(
        "{} -> {}   via {} in {}:{}{backward}",
        text(step, "from"),
        text(step, "to"),
        text(step, "target"),
        text(step, "source"),
        number(step, "line")
    )
}

pub fn print_paths(first: &Value, paths: &Value) {
    let (from, to) = (text(first, "from"), text(first, "to"));
    let Some(length) = first.get("length").and_then(Value::as_u64) else {
        crate::output::print_line(&format!("No path from {from} to {to}: {}", text(first, "reason")));
        return;
    };
    let paths = list(paths);
    let more = if first["truncated"] == true { " (more exist; only the first are listed)" } else { "" };
    crate::output::print_line(&format!("{} shortest paths of {length} links from {from} to {to}{more}:", paths.len()));
    for (number, path) in paths.iter().enumerate() {
        crate::output::print_line(&format!(
            "\n  {}. {}",
            number + 1,
            list(&path["notes"]).iter().filter_map(Value::as_str).collect::<Vec<_>>().join(" -> ")
        ));
        for step in list(&path["links"]) {
            crate::output::print_line(&format!("       {}", step_line(&step)));
        }
    }
}

pub fn print_graph(question: Question, answer: &Value) {
    let print = |line: String| crate::output::print_line(&line);
    match question {
        Question::Hubs => {
            print(format!(
                "{} notes are linked to; {} are cut points (the only link between parts of an island):",
                number(answer, "total"),
                number(answer, "cut_points")
            ));
            for hub in list(&answer["hubs"]) {
                let cut = if hub["cut_point"] == true { "  cut point" } else { "" };
                print(format!("  {:>5} in {:>5} out  {}{cut}", number(&hub, "in_degree"), number(&hub, "out_degree"), text(&hub, "path")));
            }
        }
        Question::Islands => {
            print(format!(
                "{} islands; the largest holds {} notes; {} notes have no link to or from another note.",
                number(answer, "total"),
                number(answer, "largest_island"),
                number(answer, "isolated_notes")
            ));
            for island in list(&answer["islands"]) {
                let notes: Vec<String> = list(&island["notes"]).iter().filter_map(Value::as_str).map(str::to_owned).collect();
                let size = number(&island, "size");
                let shown = if size > notes.len() as u64 { format!("{}, …", notes.join(", ")) } else { notes.join(", ") };
                print(format!("  {size:>6}  {shown}"));
            }
        }
        Question::Cycles => {
            let more = if answer["truncated"] == true { " (the search stopped at its bound: there may be more)" } else { "" };
            print(format!(
                "{} link cycles of {} to {} links{more}:",
                number(answer, "total"),
                number(answer, "min_length"),
                number(answer, "max_length")
            ));
            for cycle in list(&answer["cycles"]) {
                let notes: Vec<&str> = cycle["notes"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                print(format!("  {} -> {}", notes.join(" -> "), notes.first().copied().unwrap_or_default()));
            }
        }
        Question::Health => {
            let ratio = |key: &str| answer.get(key).and_then(Value::as_f64).unwrap_or(0.0) * 100.0;
            print(format!("  notes             {}", number(answer, "notes")));
            print(format!("  links             {}", number(answer, "links")));
            print(format!("  broken links      {}  ({:.1}% of links)", number(answer, "broken_links"), ratio("broken_ratio")));
            print(format!("  ambiguous links   {}  ({:.1}% of links)", number(answer, "ambiguous_links"), ratio("ambiguous_ratio")));
            print(format!("  orphans           {}  ({:.1}% of notes)", number(answer, "orphans"), ratio("orphan_ratio")));
            print(format!("  dead ends         {}  ({:.1}% of notes)", number(answer, "dead_ends"), ratio("dead_end_ratio")));
            print(format!("  islands           {}", number(answer, "island_count")));
            print(format!("  largest island    {}  ({:.1}% of notes)", number(answer, "largest_island"), ratio("largest_island_share")));
            print(format!("  isolated notes    {}", number(answer, "isolated_notes")));
        }
    }
}

//! The numbers the catalogue's prose repeats from core (page sizes, caps, limits), written in
//! the prose as the names of core's constants (`{MAX_LISTED}`) and filled in from them when the
//! catalogue is built, so a description cannot say one number while core keeps another.

use serde_json::Value;
use vaultlink_core::{answer, change, evidence, graph, history, history_list, lint, parameters, parse, repair};

/// Each name the prose may hold in braces, and the constant's value as the prose writes it.
fn numbers() -> Vec<(&'static str, String)> {
    let (shortest, longest) = graph::DEFAULT_CYCLE_LENGTHS;
    vec![
        ("MAX_LISTED", answer::MAX_LISTED.to_string()),
        ("MAX_REFERRERS_PER_TARGET", answer::MAX_REFERRERS_PER_TARGET.to_string()),
        ("DEFAULT_PAGE_KB", (answer::DEFAULT_PAGE_BYTES / 1000).to_string()),
        ("MAX_LINKS_PER_NOTE", thousands(parse::MAX_LINKS_PER_NOTE)),
        ("MAX_NOTE_MIB", (parameters::MAX_NOTE_BYTES >> 20).to_string()),
        ("KEPT_CHANGES", history::KEPT_CHANGES.to_string()),
        ("PATHS_LISTED", history_list::PATHS_LISTED.to_string()),
        ("MAX_BULK_MOVES", change::MAX_BULK_MOVES.to_string()),
        ("DEFAULT_FLOOR_PERCENT", repair::DEFAULT_FLOOR_PERCENT.to_string()),
        ("MARGIN", format!("{}", f64::from(repair::MARGIN) / 1000.0)),
        ("MAX_PATHS", graph::MAX_PATHS.to_string()),
        ("DEFAULT_CYCLE_LENGTHS", format!("{shortest} to {longest}")),
        ("MAX_CYCLES", thousands(graph::MAX_CYCLES)),
        ("MAX_PROPOSALS", thousands(lint::MAX_PROPOSALS)),
        ("DEFAULT_EVIDENCE_LIMIT", evidence::DEFAULT_EVIDENCE_LIMIT.to_string()),
    ]
}

/// A count as the prose writes it: `50,000`.
fn thousands(count: usize) -> String {
    let digits = count.to_string();
    let mut out = String::new();
    for (at, digit) in digits.chars().enumerate() {
        if at > 0 && (digits.len() - at).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// `text` with every `{NAME}` of [`numbers`] replaced by its value.
pub fn fill(text: &str) -> String {
    let mut out = text.to_owned();
    for (name, value) in numbers() {
        out = out.replace(&format!("{{{name}}}"), &value);
    }
    out
}

/// Every `description` string in `schema`, at any depth, filled in.
pub fn fill_schema(schema: &mut Value) {
    match schema {
        Value::Object(map) => {
            for (key, value) in map.iter_mut() {
                match value {
                    Value::String(text) if key == "description" => *text = fill(text),
                    _ => fill_schema(value),
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(fill_schema),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_are_written_with_thousands_separators() {
        assert_eq!(thousands(50_000), "50,000");
        assert_eq!(thousands(1_000), "1,000");
        assert_eq!(thousands(100), "100");
    }

    /// Every name is filled, and the catalogue's prose holds no name left unfilled: what an
    /// agent reads is core's value.
    #[test]
    fn the_catalogue_says_cores_numbers() {
        let text: Vec<String> = crate::catalogue::catalogue()
            .iter()
            .map(|tool| format!("{} {} {}", tool.description, tool.input_schema, tool.output_schema))
            .collect();
        let text = text.join("\n");
        for (name, _) in numbers() {
            assert!(!text.contains(&format!("{{{name}}}")), "{{{name}}} is left in the catalogue");
        }
        let said = |tool: &str, words: String| {
            let spec = crate::catalogue::catalogue().iter().find(|spec| spec.name == tool).expect("the tool is in the catalogue");
            assert!(spec.description.contains(&words), "{tool} does not say {words:?}: {}", spec.description);
        };
        said("find_unresolved_links", format!("the first {}", answer::MAX_REFERRERS_PER_TARGET));
        said("read_note", format!("over {} MiB", parameters::MAX_NOTE_BYTES >> 20));
        said("undo_change", format!("The last {}", history::KEPT_CHANGES));
        said("list_changes", format!("up to {} paths", history_list::PATHS_LISTED));
        said("fix_broken_links", format!("({}) and {} above the next", repair::DEFAULT_FLOOR_PERCENT, f64::from(repair::MARGIN) / 1000.0));
        said("find_link_paths", format!("At most {} paths", graph::MAX_PATHS));
        let (shortest, longest) = graph::DEFAULT_CYCLE_LENGTHS;
        said("link_graph", format!("default {shortest} to {longest}; only here), at most {}", thousands(graph::MAX_CYCLES)));
    }
}

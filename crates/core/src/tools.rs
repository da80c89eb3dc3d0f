//! Every tool core answers, with what an edge must know of it before it runs it: whether it may
//! change the vault (the plugin runs such calls one at a time and reads their notes from disk;
//! the sidecar plans them with the folder's plan history), and whether it is long (the sidecar
//! reports its progress, on the folder and while the plugin works on it). Both edges take these
//! from here (the plugin through `plugin/wire.ts`, generated from this table), so a tool added
//! to core is written into one list, not three.

/// One tool, as the edges treat it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Tool {
    /// The name callers call it by (MCP's tool name, core's `Request::name`).
    pub name: &'static str,
    /// The tool may change the vault.
    pub writes: bool,
    /// A call may take long on a large vault: it reports progress when its client asks.
    pub long: bool,
}

const fn reads(name: &'static str) -> Tool {
    Tool { name, writes: false, long: false }
}

const fn reads_long(name: &'static str) -> Tool {
    Tool { name, writes: false, long: true }
}

const fn writes(name: &'static str) -> Tool {
    Tool { name, writes: true, long: false }
}

const fn writes_long(name: &'static str) -> Tool {
    Tool { name, writes: true, long: true }
}

/// Every tool core answers, in the catalogue's order (`parameters::ALL`, which also holds the
/// sidecar's own `server_health`, a quick read).
pub const ALL: &[Tool] = &[
    reads("get_outgoing_links"),
    reads("get_backlinks"),
    reads("find_unresolved_links"),
    reads("find_orphans"),
    reads("resolve_link"),
    reads("list_notes"),
    reads("read_note"),
    writes_long("move_note"),
    writes_long("rewrite_link"),
    reads_long("lint_wiki"),
    reads("find_existing_page"),
    reads_long("find_evidence"),
    writes_long("delete_note"),
    writes("update_properties"),
    writes_long("bulk_move_notes"),
    writes("commit_wiki_page"),
    reads_long("draft_wiki_page"),
    writes("undo_change"),
    reads("list_changes"),
    writes_long("link_mentions"),
    writes_long("fix_broken_links"),
    reads("find_link_paths"),
    reads("link_graph"),
    reads_long("detected_moves"),
    writes_long("heal_moves"),
    reads("vault_summary"),
];

/// The tool called `name`, if core has one.
pub fn named(name: &str) -> Option<&'static Tool> {
    ALL.iter().find(|tool| tool.name == name)
}

/// Whether the tool called `name` may change the vault (false for a name core does not know).
pub fn writes_vault(name: &str) -> bool {
    named(name).is_some_and(|tool| tool.writes)
}

/// Whether a call of the tool called `name` may take long, and so reports progress (false for a
/// name core does not know, such as the sidecar's own `server_health`).
pub fn is_long(name: &str) -> bool {
    named(name).is_some_and(|tool| tool.long)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_names_every_operation_once_in_the_catalogues_order() {
        let names: Vec<&str> = ALL.iter().map(|tool| tool.name).collect();
        let parameters: Vec<&str> =
            crate::parameters::ALL.iter().map(|parameters| parameters.tool).filter(|tool| *tool != "server_health").collect();
        assert_eq!(names, parameters);
    }

    #[test]
    fn a_request_writes_as_its_tool_does() {
        let arguments = serde_json::json!({ "path": "A.md", "from": "A.md", "to": "B.md", "from_target": "A", "to_target": "B", "moves": [], "title": "A", "topic": "A", "properties": {}, "page": { "path": "A.md", "body": "" } });
        let mut read = 0;
        for tool in ALL {
            let request: Result<crate::ops::Request, _> =
                serde_json::from_value(serde_json::json!({ "tool": tool.name, "arguments": arguments }));
            if let Ok(request) = request {
                read += 1;
                assert_eq!(request.name(), tool.name);
                assert_eq!(request.writes(), tool.writes, "{}", tool.name);
            }
        }
        assert!(read > 0, "no request was read");
    }
}

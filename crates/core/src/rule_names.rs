//! The lint rules' names: the `kind` their findings carry (`unresolved_link`) and their stable
//! code (`unresolved-link`), and which rule a name written by a caller means. Reading a
//! `SCHEMA.md` checks the rules its `conventions` name, the index reads the schema, and the rules
//! read the index: so the names live here, below all three, and each rule in `lint` takes its own
//! from here.

/// A lint rule's two names.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RuleName {
    /// The `kind` of its findings, as callers name it: `unresolved_link`.
    pub kind: &'static str,
    /// The stable code: `unresolved-link`.
    pub code: &'static str,
}

pub const UNRESOLVED_LINK: RuleName = RuleName { kind: "unresolved_link", code: "unresolved-link" };
pub const AMBIGUOUS_LINK: RuleName = RuleName { kind: "ambiguous_link", code: "ambiguous-link" };
pub const BROKEN_HEADING: RuleName = RuleName { kind: "broken_heading", code: "broken-heading" };
pub const BROKEN_BLOCK_REF: RuleName = RuleName { kind: "broken_block_ref", code: "broken-block-ref" };
pub const UNQUOTED_PROPERTY_LINK: RuleName = RuleName { kind: "unquoted_property_link", code: "unquoted-property-link" };
pub const MALFORMED_FRONTMATTER: RuleName = RuleName { kind: "malformed_frontmatter", code: "malformed-frontmatter" };
pub const ORPHAN: RuleName = RuleName { kind: "orphan", code: "orphan" };
pub const DUPLICATE_IDENTITY: RuleName = RuleName { kind: "duplicate_identity", code: "duplicate-identity" };
pub const NEAR_DUPLICATE: RuleName = RuleName { kind: "near_duplicate", code: "near-duplicate" };
pub const SCHEMA: RuleName = RuleName { kind: "schema", code: "schema" };
pub const LINKS_TRUNCATED: RuleName = RuleName { kind: "links_truncated", code: "links-truncated" };
pub const MISSING_SOURCES: RuleName = RuleName { kind: "missing_sources", code: "missing-sources" };
pub const STALE: RuleName = RuleName { kind: "stale", code: "stale" };
pub const DEAD_END: RuleName = RuleName { kind: "dead_end", code: "dead-end" };

/// Every rule's names, in the order `lint::every_rule` reports their findings.
pub const RULE_NAMES: [RuleName; 14] = [
    UNRESOLVED_LINK,
    AMBIGUOUS_LINK,
    BROKEN_HEADING,
    BROKEN_BLOCK_REF,
    UNQUOTED_PROPERTY_LINK,
    MALFORMED_FRONTMATTER,
    ORPHAN,
    DUPLICATE_IDENTITY,
    NEAR_DUPLICATE,
    SCHEMA,
    LINKS_TRUNCATED,
    MISSING_SOURCES,
    STALE,
    DEAD_END,
];

/// The names of the rule `name` means, by kind (`unresolved_link`) or code (`unresolved-link`),
/// whether it runs by default or only when named.
pub fn rule_name(name: &str) -> Option<&'static RuleName> {
    let name = name.trim();
    RULE_NAMES.iter().find(|rule| rule.kind == name || rule.code == name)
}

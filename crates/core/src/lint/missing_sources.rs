//! `missing-sources`: a wiki page whose type, in the `SCHEMA.md` governing it, requires
//! `sources`, and whose `sources` property cites no note (absent, empty, or only links that find
//! nothing). A page drawn from nothing the vault holds cannot be checked against what it says.

use super::{Context, Example, Findings, Proposal, Rule};
use crate::parse::LinkSource;
use crate::resolve::fold;
use crate::source_hashes::SOURCES_PROPERTY;

pub const RULE: Rule = Rule {
    kind: crate::rule_names::MISSING_SOURCES.kind,
    code: crate::rule_names::MISSING_SOURCES.code,
    summary: "Wiki pages whose type requires `sources` and that cite no note there.",
    examples: &[Example {
        name: "a page citing a source, one citing none, one citing a note that is not there",
        vault: "//- SCHEMA.md\n---\ntypes:\n  concept: {required: [type, sources]}\nsource_folders: [raw]\n---\n\
//- raw/Clip.md\nclipped\n\
//- Cited.md\n---\ntype: concept\nsources: [\"[[Clip]]\"]\n---\n\
//- Bare.md\n---\ntype: concept\nsources: []\n---\n\
//- Gone.md\n---\ntype: concept\nsources: [\"[[Nowhere]]\"]\n---\n\
//- Free.md\nNo type, no rule.\n",
        expected: &["missing_sources Bare.md", "missing_sources Gone.md"],
    }],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    let schemas = super::schema::schema_files(context.vault);
    if !schemas.values().any(|(_, file)| requires_sources(file).next().is_some()) {
        return;
    }
    for note in context.subjects() {
        if super::is_schema_file(note.path) {
            continue;
        }
        let Some(page_type) = note.facts.property_text("type") else { continue };
        let Some((schema_path, file)) = super::schema::governing_schema(context.vault, note.path) else { continue };
        if !requires_sources(file).any(|name| fold(name) == fold(page_type)) {
            continue;
        }
        let cites = context.vault.outgoing_links(note.path).unwrap_or_default().iter().any(|found| {
            matches!(&found.link.source, LinkSource::Property { key, .. } if fold(key) == SOURCES_PROPERTY)
                && found.resolution.path().is_some_and(|target| context.vault.is_note(target))
        });
        if cites {
            continue;
        }
        findings.proposals.push(Proposal::new(
            RULE.kind,
            note.path,
            format!("`{}` is a `{page_type}`, which `{schema_path}` says cites its sources, and its `sources` cites no note", note.path),
            "Cite the notes the page is drawn from in `sources` as property links (`\"[[Clip]]\"`), or change its type.".to_owned(),
        ));
    }
}

/// The names of the types a schema says require `sources`.
fn requires_sources(file: &super::schema::SchemaFile) -> impl Iterator<Item = &str> {
    file.schema
        .iter()
        .flat_map(|schema| &schema.types)
        .filter(|page_type| page_type.required.iter().any(|name| fold(name) == SOURCES_PROPERTY))
        .map(|page_type| page_type.name.as_str())
}

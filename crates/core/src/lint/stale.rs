//! `stale`: a page older than a source it cites. The commit that ingested the source kept its
//! content hash in the page's `source_hashes` property (`crate::source_hashes`); a source whose
//! text hashes otherwise now has changed since the page was written from it. The index holds no
//! text, so the edge reads the sources and hands core their hashes; a lint run without them says
//! so under `skipped` (only when some page keeps a hash).

use super::{Context, Example, Findings, Proposal, Rule, Skipped};
use crate::parse::LinkSource;
use crate::resolve::fold;
use crate::source_hashes::kept;
use crate::source_hashes::SOURCES_PROPERTY;

pub const RULE: Rule = Rule {
    kind: crate::rule_names::STALE.kind,
    code: crate::rule_names::STALE.code,
    summary: "Wiki pages citing a source whose content changed since the commit that ingested it (by the hash kept in `source_hashes`).",
    examples: &[Example {
        name: "a page kept the source's hash as it is, one an older hash, one no longer cites it",
        vault: "//- raw/Clip.md\nclipped\n\
//- Fresh.md\n---\nsources: [\"[[Clip]]\"]\nsource_hashes: [\"7a3c97f251b245325bae6e6d3a9da335e66c1d22cd6aac9edf8ccfa2ba96b7a4 raw/Clip.md\"]\n---\n\
//- Old.md\n---\nsources: [\"[[Clip]]\"]\nsource_hashes: [\"2504754a6e20aef3c8011431236e85267d1f2893cbeb8fae987aea3f2ada4752 raw/Clip.md\"]\n---\n\
//- Uncited.md\n---\nsources: []\nsource_hashes: [\"2504754a6e20aef3c8011431236e85267d1f2893cbeb8fae987aea3f2ada4752 raw/Clip.md\"]\n---\n",
        expected: &["stale Old.md -> raw/Clip.md (commit_wiki_page)"],
    }],
    check,
};

fn check(context: &Context<'_>, findings: &mut Findings) {
    let mut unread = false;
    for note in context.subjects() {
        let kept = kept(note.facts);
        if kept.is_empty() {
            continue;
        }
        let Some(current) = context.source_hashes else {
            unread = true;
            continue;
        };
        let cited: Vec<&str> = context
            .vault
            .outgoing_links(note.path)
            .unwrap_or_default()
            .iter()
            .filter(|found| matches!(&found.link.source, LinkSource::Property { key, .. } if fold(key) == SOURCES_PROPERTY))
            .filter_map(|found| found.resolution.path())
            .collect();
        for kept in kept {
            // A hash of a note the page no longer cites, or that is gone, says nothing now.
            let Some(source) = context.vault.find_note(&kept.path) else { continue };
            if !cited.contains(&source) {
                continue;
            }
            let Some(now) = current.get(source) else { continue };
            if *now == kept.hash {
                continue;
            }
            let mut proposal = Proposal::new(
                RULE.kind,
                note.path,
                format!(
                    "`{}` was written from `{source}` when its content hash was {}; `{source}` now hashes to {now}: the source changed since",
                    note.path, kept.hash
                ),
                format!(
                    "Re-read `{source}` and update the page with what changed, then commit it again with commit_wiki_page \
(`page.mode: overwrite` and its `prev_hash`), which keeps the source's new hash."
                ),
            );
            proposal.related = vec![source.to_owned()];
            proposal.tool = Some("commit_wiki_page");
            proposal.evidence = Some(serde_json::json!({"source": source, "kept_hash": kept.hash, "current_hash": now}));
            findings.proposals.push(proposal);
        }
    }
    if unread {
        findings.skipped.push(Skipped {
            kind: RULE.kind,
            reason: "pages keep their sources' hashes, and this lint was not given the sources' texts to compare them with".to_owned(),
        });
    }
}

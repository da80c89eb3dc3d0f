//! Wiki lint: checks over the whole index that a person or an agent can trust, each finding
//! from the real parser and resolver, saying why, and naming the vaultlink tool call that fixes
//! it where one exists.
//!
//! Every rule is one file with a stable kebab-case `code`, the `kind` its findings carry, and
//! built-in examples (a tiny vault and the findings it must give) that are also its tests. The
//! index holds no note text, so a rule sees only what the index keeps: links and their
//! resolutions, headings, block ids, identities (file name, H1, aliases, `title`), top-level
//! properties, frontmatter problems, and each body's lexical sketch (kept by the index once
//! `near_duplicate` asked for it, or made from the texts the edge read for this lint). A rule that
//! cannot run, or not over every note, says why under `skipped`.
//!
//! Most rules run by default ([`RULES`]: what `lint_wiki` runs without `kinds`). A rule whose
//! findings are mostly noise on a real vault, where they describe how people write rather
//! than a mistake, runs only when named ([`ON_REQUEST_RULES`]: `dead_end`).

pub mod ambiguous_link;
pub mod broken_block_ref;
pub mod broken_heading;
pub mod dead_end;
pub mod duplicate_identity;
pub mod links_truncated;
pub mod malformed_frontmatter;
pub mod missing_sources;
pub mod near_duplicate;
pub mod orphan;
pub mod schema;
pub mod stale;
pub mod unquoted_property_link;
pub mod unresolved_link;

use serde::Serialize;

pub use crate::facts::is_schema_file;
use crate::index::{is_note_path, NoteView, SubpathStatus, Vault};
use crate::resolve::{self, fold};

/// The most proposals one lint computes; past it the rest are dropped and
/// [`LintOutcome::truncated`] says so. Far above what a person could review in one sitting.
pub const MAX_PROPOSALS: usize = 100_000;

/// One lint rule.
#[derive(Debug)]
pub struct Rule {
    /// The `kind` of its findings, as callers name it: `unresolved_link`.
    pub kind: &'static str,
    /// The stable code: `unresolved-link`.
    pub code: &'static str,
    /// What it finds, in one sentence.
    pub summary: &'static str,
    pub examples: &'static [Example],
    pub check: fn(&Context<'_>, &mut Findings),
}

/// A built-in example of a rule: a tiny vault written inline (`//- path` starts a file) and
/// the findings it gives, each as [`Proposal::summary_line`] writes it.
#[derive(Debug)]
pub struct Example {
    pub name: &'static str,
    pub vault: &'static str,
    pub expected: &'static [&'static str],
}

/// The rules that run by default (`lint_wiki` without `kinds`), in the order their findings are
/// reported. [`every_rule`] adds those that run only when named.
pub const RULES: [&Rule; 13] = [
    &unresolved_link::RULE,
    &ambiguous_link::RULE,
    &broken_heading::RULE,
    &broken_block_ref::RULE,
    &unquoted_property_link::RULE,
    &malformed_frontmatter::RULE,
    &orphan::RULE,
    &duplicate_identity::RULE,
    &near_duplicate::RULE,
    &schema::RULE,
    &links_truncated::RULE,
    &missing_sources::RULE,
    &stale::RULE,
];

/// The rules that run only when named in `kinds`, their findings reported after those of
/// [`RULES`]: on real vaults most of what they find is how people write, not a mistake.
pub const ON_REQUEST_RULES: [&Rule; 1] = [&dead_end::RULE];

/// Every rule, in the order their findings are reported: [`RULES`], then [`ON_REQUEST_RULES`].
pub fn every_rule() -> impl Iterator<Item = &'static Rule> {
    RULES.into_iter().chain(ON_REQUEST_RULES)
}

impl Rule {
    /// True when the rule runs without being named ([`RULES`]).
    pub fn by_default(&self) -> bool {
        RULES.iter().any(|rule| rule.kind == self.kind)
    }
}

/// The rule named `name`, by kind (`unresolved_link`) or code (`unresolved-link`), whether it
/// runs by default or only when named.
pub fn rule(name: &str) -> Option<&'static Rule> {
    let name = crate::rule_names::rule_name(name)?;
    every_rule().find(|rule| rule.kind == name.kind)
}

/// A change the lint proposes, with why and how.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Proposal {
    pub kind: &'static str,
    /// The note the finding is about, or for link findings grouped by target, the target as
    /// written.
    pub subject: String,
    /// 1-based line in `subject`, when the finding is at one place of a note.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub line: Option<u32>,
    /// Other notes involved: referrers, candidates, the notes sharing a name.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub related: Vec<String>,
    /// How many notes `related` named before it was cut to `MAX_LISTED`; only when it was.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub related_count: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub detail: Option<String>,
    pub suggested_action: String,
    /// The vaultlink MCP tool whose call fixes it, where one does.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool: Option<&'static str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tool_args: Option<serde_json::Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub evidence: Option<serde_json::Value>,
}

impl Proposal {
    pub fn new(kind: &'static str, subject: impl Into<String>, detail: String, suggested_action: String) -> Proposal {
        Proposal {
            kind,
            subject: subject.into(),
            line: None,
            related: Vec::new(),
            related_count: None,
            detail: Some(detail),
            suggested_action,
            tool: None,
            tool_args: None,
            evidence: None,
        }
    }

    /// The proposal with its lists cut to `MAX_LISTED` entries and counted (`related_count`,
    /// and a `<list>_count` beside each list of `evidence`), so that one finding about a target
    /// hundreds of notes name stays a few kilobytes.
    pub fn cap_lists(&mut self) {
        if self.related.len() > crate::answer::MAX_LISTED {
            let (related, count) = crate::answer::capped(std::mem::take(&mut self.related));
            self.related = related;
            self.related_count = Some(count);
        }
        if let Some(evidence) = &mut self.evidence {
            crate::answer::cap_lists(evidence);
        }
    }

    /// One line for tests and examples: `kind subject[:line][ -> related, …][ (tool)]`.
    pub fn summary_line(&self) -> String {
        let mut line = format!("{} {}", self.kind, self.subject);
        if let Some(number) = self.line {
            line.push_str(&format!(":{number}"));
        }
        if !self.related.is_empty() {
            line.push_str(&format!(" -> {}", self.related.join(", ")));
        }
        if let Some(tool) = self.tool {
            line.push_str(&format!(" ({tool})"));
        }
        line
    }
}

/// A check that could not run, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skipped {
    pub kind: &'static str,
    pub reason: String,
}

/// What the rules found.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Findings {
    pub proposals: Vec<Proposal>,
    pub skipped: Vec<Skipped>,
}

/// Which notes a lint is about.
#[derive(Debug, Clone)]
pub struct LintOptions {
    /// Only notes in this folder and below it are subjects.
    pub folder: Option<String>,
    /// Folders whose notes are never subjects, besides the index's excluded folders.
    pub excluded_folders: Vec<String>,
    /// The rules to run.
    pub rules: Vec<&'static Rule>,
}

/// The result of a lint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LintOutcome {
    pub proposals: Vec<Proposal>,
    pub skipped: Vec<Skipped>,
    /// True when more than [`MAX_PROPOSALS`] were found and the rest dropped.
    pub truncated: bool,
}

/// What a rule sees: the index and which notes are subjects.
#[derive(Debug)]
pub struct Context<'a> {
    pub vault: &'a Vault,
    folder: Option<String>,
    excluded_folders: Vec<String>,
    /// The current content hash of each source a page keeps a hash of, by path, when the edge
    /// read them (`lint_reading`): what `stale` compares.
    pub source_hashes: Option<&'a std::collections::BTreeMap<String, String>>,
    /// Sketches of the notes the index holds none of, made from the texts the edge read for this
    /// lint (`lint_with`), by path; a note sketched in neither place is not compared by
    /// `near_duplicate`, which says so.
    pub sketches_read: Option<&'a std::collections::HashMap<String, crate::sketch::Sketch>>,
}

impl<'a> Context<'a> {
    pub fn new(vault: &'a Vault, folder: Option<&str>, excluded_folders: &[String]) -> Context<'a> {
        let folder = folder.map(|folder| fold(folder.trim_matches('/'))).filter(|folder| !folder.is_empty());
        let excluded_folders =
            excluded_folders.iter().map(|folder| fold(folder.trim_matches('/'))).filter(|folder| !folder.is_empty()).collect();
        Context { vault, folder, excluded_folders, source_hashes: None, sketches_read: None }
    }

    /// True when the note at `path` may be the subject of a finding: inside the folder asked
    /// for and outside every excluded folder. An excluded note is still a link target.
    pub fn is_subject(&self, path: &str) -> bool {
        if self.vault.is_excluded(path) {
            return false;
        }
        let folded = fold(path);
        let inside = |folder: &str| folded.starts_with(folder) && folded.as_bytes().get(folder.len()) == Some(&b'/');
        self.folder.as_deref().is_none_or(inside) && !self.excluded_folders.iter().any(|folder| inside(folder))
    }

    /// The notes that may be subjects, in path order.
    pub fn subjects(&self) -> impl Iterator<Item = NoteView<'a>> + '_ {
        self.vault.notes().filter(|note| self.is_subject(note.path))
    }
}

/// Runs the chosen rules over the index.
pub fn lint(vault: &Vault, options: &LintOptions) -> LintOutcome {
    lint_reading(vault, options, None)
}

/// Runs the chosen rules over the index, with the current content hashes of the sources pages
/// keep hashes of (`source_hashes::current_hashes`), which `stale` compares.
pub fn lint_reading(
    vault: &Vault,
    options: &LintOptions,
    source_hashes: Option<&std::collections::BTreeMap<String, String>>,
) -> LintOutcome {
    lint_with(vault, options, source_hashes, None)
}

/// [`lint_reading`], with the sketches made for this lint of the notes the index has none of
/// (`ops::sketches_read`), which `near_duplicate` compares with those the index keeps.
pub fn lint_with(
    vault: &Vault,
    options: &LintOptions,
    source_hashes: Option<&std::collections::BTreeMap<String, String>>,
    sketches_read: Option<&std::collections::HashMap<String, crate::sketch::Sketch>>,
) -> LintOutcome {
    let mut context = Context::new(vault, options.folder.as_deref(), &options.excluded_folders);
    context.source_hashes = source_hashes;
    context.sketches_read = sketches_read;
    let mut findings = Findings::default();
    for rule in every_rule().filter(|rule| options.rules.iter().any(|chosen| chosen.kind == rule.kind)) {
        (rule.check)(&context, &mut findings);
    }
    let truncated = findings.proposals.len() > MAX_PROPOSALS;
    findings.proposals.truncate(MAX_PROPOSALS);
    LintOutcome { proposals: findings.proposals, skipped: findings.skipped, truncated }
}

// ---------------------------------------------------------------------------------------------
// Identities: what names a note, for duplicate_identity, unresolved_link's fixes and
// find_existing_page.

pub use crate::pages::{identity_key, page_key, same_identity, same_page_name, says_a_name, Facet};

/// Every name of a note with the facet it comes from: file name, aliases, `title`, H1. Blank
/// names are left out.
pub fn identities<'a>(note: &NoteView<'a>) -> impl Iterator<Item = (Facet, &'a str)> + Clone + 'a {
    crate::pages::names_of(note.title(), note.aliases, note.facts)
}

/// How a new link to the note at `path` would find it and only it: its title when no other
/// file has its name, else its path without `.md`, anchored at the root (`/a/T`) when even
/// that could match a deeper file.
pub fn link_target_for(vault: &Vault, path: &str) -> String {
    let name = resolve::file_name(path);
    if vault.paths_named(&fold(name)).len() <= 1 {
        return note_stem(name).to_owned();
    }
    let folded = fold(path);
    let suffix_elsewhere =
        vault.paths_named(&fold(name)).iter().any(|other| *other != path && fold(other).ends_with(&format!("/{folded}")));
    if suffix_elsewhere {
        format!("/{}", note_stem(path))
    } else {
        note_stem(path).to_owned()
    }
}

/// A path or file name without its `.md`.
pub fn note_stem(text: &str) -> &str {
    if is_note_path(text) {
        &text[..text.len() - 3]
    } else {
        text
    }
}

/// Findings for links whose subpath has `status` in their target: one per link.
fn subpath_findings(context: &Context<'_>, findings: &mut Findings, status: SubpathStatus, kind: &'static str, what: &str) {
    for found in context.vault.all_links() {
        if !context.is_subject(found.source) || context.vault.subpath_status(&found.link, found.resolution) != status {
            continue;
        }
        let Some(target) = found.resolution.path() else { continue };
        let subpath = found.link.subpath.as_deref().unwrap_or_default();
        let mut proposal = Proposal::new(
            kind,
            found.source,
            format!("the link to `{}` names the {what} `{subpath}`, which `{target}` does not have", found.link.target),
            format!("Point the link at an existing {what} of `{target}`, or restore the {what} there."),
        );
        proposal.line = Some(found.link.line);
        proposal.related = vec![target.to_owned()];
        proposal.evidence = Some(serde_json::json!({"target": found.link.target, "resolved_path": target, "column": found.link.column}));
        findings.proposals.push(proposal);
    }
}

/// Findings for the frontmatter problems with one of `codes`: one per problem.
fn frontmatter_findings(context: &Context<'_>, findings: &mut Findings, codes: &[&str], kind: &'static str, action: &str) {
    for note in context.subjects() {
        for problem in note.facts.frontmatter_problems.iter().filter(|problem| codes.contains(&problem.code.as_str())) {
            let mut proposal = Proposal::new(kind, note.path, problem.message.clone(), action.to_owned());
            proposal.line = Some(problem.line);
            findings.proposals.push(proposal);
        }
    }
}

/// Distinct items of `items`, in first-seen order.
pub(crate) fn distinct(items: impl IntoIterator<Item = String>) -> Vec<String> {
    let mut seen = std::collections::HashSet::new();
    items.into_iter().filter(|item| seen.insert(item.clone())).collect()
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::index::IndexConfig;

    /// A vault from an inline fixture: `//- path` starts a file, the lines after it are its
    /// text, indentation kept (YAML needs it).
    /// A first line `//! max_links N` reads the notes keeping `N` links each.
    pub fn fixture(text: &str) -> Vault {
        fixture_and_texts(text).0
    }

    /// The vault of [`fixture`], and each file's text by path.
    pub fn fixture_and_texts(text: &str) -> (Vault, std::collections::BTreeMap<String, String>) {
        let mut config = IndexConfig::obsidian_defaults();
        if let Some(limit) = text.lines().next().and_then(|line| line.strip_prefix("//! max_links ")) {
            config.parse.max_links = limit.trim().parse().expect("a number of links");
        }
        let mut vault = Vault::new(config);
        let mut files: Vec<(String, String)> = Vec::new();
        for line in text.lines() {
            match line.strip_prefix("//- ") {
                Some(path) => files.push((path.trim().to_owned(), String::new())),
                None => {
                    if let Some((_, text)) = files.last_mut() {
                        text.push_str(line);
                        text.push('\n');
                    }
                }
            }
        }
        for (path, text) in &files {
            vault.upsert(path, text);
        }
        let texts: std::collections::BTreeMap<String, String> = files.into_iter().collect();
        vault.sketch_notes(&mut |path| texts.get(path).cloned());
        (vault, texts)
    }

    /// The rule's findings, the sources pages keep hashes of read from `texts`.
    fn run(vault: &Vault, texts: &std::collections::BTreeMap<String, String>, rule: &'static Rule) -> Vec<String> {
        let options = LintOptions { folder: None, excluded_folders: Vec::new(), rules: vec![rule] };
        let hashes = crate::source_hashes::current_hashes(vault, &mut |path| texts.get(path).cloned());
        let outcome = lint_reading(vault, &options, Some(&hashes));
        let mut lines: Vec<String> = outcome.proposals.iter().map(Proposal::summary_line).collect();
        lines.extend(outcome.skipped.iter().map(|skipped| format!("skipped {}", skipped.kind)));
        lines
    }

    #[test]
    fn every_rule_gives_its_examples() {
        for rule in every_rule() {
            assert!(!rule.examples.is_empty(), "{} has no examples", rule.code);
            for example in rule.examples {
                let (vault, texts) = fixture_and_texts(example.vault);
                assert_eq!(run(&vault, &texts, rule), example.expected, "{}: example `{}`", rule.code, example.name);
            }
        }
    }

    #[test]
    fn codes_are_stable_kebab_case_and_kinds_snake_case() {
        for rule in every_rule() {
            assert_eq!(rule.code, rule.kind.replace('_', "-"));
            assert!(rule.code.chars().all(|c| c.is_ascii_lowercase() || c == '-'), "{}", rule.code);
            assert_eq!(rule_kind(rule.code), Some(rule.kind));
        }
        let kinds: Vec<&str> = every_rule().map(|rule| rule.kind).collect();
        assert_eq!(kinds.len(), std::collections::HashSet::<&str>::from_iter(kinds.iter().copied()).len(), "{kinds:?}");
    }

    #[test]
    fn every_rule_is_named_once_in_rule_names_in_its_order() {
        let rules: Vec<(&str, &str)> = every_rule().map(|rule| (rule.kind, rule.code)).collect();
        let names: Vec<(&str, &str)> = crate::rule_names::RULE_NAMES.iter().map(|name| (name.kind, name.code)).collect();
        assert_eq!(rules, names);
        assert_eq!(crate::rule_names::rule_name(" near-duplicate "), Some(&crate::rule_names::NEAR_DUPLICATE));
        assert_eq!(crate::rule_names::rule_name("no_such_rule"), None);
    }

    #[test]
    fn dead_end_runs_only_when_named() {
        assert!(rule("orphan").is_some_and(Rule::by_default));
        assert_eq!(rule("dead-end").map(|rule| (rule.kind, rule.by_default())), Some(("dead_end", false)));
        assert!(!RULES.iter().any(|rule| rule.kind == "dead_end"));
        assert_eq!(every_rule().count(), RULES.len() + ON_REQUEST_RULES.len());
    }

    fn rule_kind(name: &str) -> Option<&'static str> {
        rule(name).map(|rule| rule.kind)
    }

    #[test]
    fn identities_compare_without_case_spacing_or_normalisation() {
        let key = identity_key("  Café   Society ");
        assert_eq!(key, "café society");
        assert!(same_identity(&key, "CAFE\u{301} society"));
        assert!(same_identity(&identity_key("Rust Book"), "rust  book"));
        assert!(!same_identity(&identity_key("Rust Book"), "rust books"));
    }
}

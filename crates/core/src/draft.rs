//! `draft_wiki_page`: what an agent needs before it writes a page, read from the vault and
//! nothing written. First `find_existing_page`'s check: a page known by the topic is returned
//! and nothing else is proposed. Otherwise a link map (`link_to`: notes the page should link;
//! `link_from`: notes that mention the topic and should link to the page; `already_linking`:
//! notes with a link that names the topic already), the `SCHEMA.md` requirements for the page's
//! type, and a skeleton in the shape `commit_wiki_page` takes: a path that passes the name
//! rules, frontmatter with the required keys, one `link` patch per `link_from` note, and the
//! content hash of each patched note as read now (`prev_hashes`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::answer::{OpError, ResponseFormat};
use crate::evidence::{EvidenceArguments, Strength};
use crate::existing::{FindPageArguments, PageCandidate};
use crate::plan::content_hash;
use crate::resolve::{self, file_name, fold, folder, Resolution};
use crate::Vault;

/// The most notes in `link_from`, `link_to` and `already_linking` each.
pub const MAX_SUGGESTIONS: usize = 10;

#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DraftArguments {
    /// The page's topic, as it would be titled.
    pub topic: String,
    /// The page's type, as the SCHEMA.md in force declares it.
    #[serde(default, rename = "type")]
    pub page_type: Option<String>,
    /// A note the page is drawn from: the page links it, and goes in its folder when no type
    /// folder says otherwise.
    #[serde(default)]
    pub source: Option<String>,
    #[serde(default)]
    pub response_format: ResponseFormat,
}

/// A note suggested for the link map, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    pub path: String,
    pub why: String,
}

/// What the SCHEMA.md in force asks of the page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Requirements {
    /// The SCHEMA.md's path.
    pub schema: String,
    /// The types it declares.
    pub types: Vec<String>,
    /// The properties the page's type requires (empty without a type).
    pub required: Vec<String>,
    /// The folder pages of the type go in, from the vault's root.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub folder: Option<String>,
    /// The properties allowed, with their allowed values (an empty list allows any); left out
    /// when the schema does not restrict them.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub properties: Option<BTreeMap<String, Vec<String>>>,
}

/// The page in the shape `commit_wiki_page` takes it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkeletonPage {
    pub path: String,
    pub frontmatter: serde_json::Map<String, Value>,
    pub body: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SkeletonPatch {
    pub path: String,
    pub kind: &'static str,
}

/// `commit_wiki_page`'s arguments, to fill in (the body's prose, empty required properties).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Skeleton {
    pub page: SkeletonPage,
    pub patches: Vec<SkeletonPatch>,
    pub prev_hashes: BTreeMap<String, String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DraftAnswer {
    pub topic: String,
    /// find_existing_page's verdict: `exists`, `ambiguous` or `new`.
    pub verdict: &'static str,
    pub reason: String,
    /// With `exists` or `ambiguous`: the notes known by the topic or near it (check them first).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub candidates: Vec<PageCandidate>,
    pub link_to: Vec<Suggestion>,
    pub link_from: Vec<Suggestion>,
    pub already_linking: Vec<Suggestion>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub schema: Option<Requirements>,
    /// Left out when the page exists.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skeleton: Option<Skeleton>,
}

/// The notes a draft reads: every note, for the mentions of the topic (as find_evidence).
pub fn notes_needed(vault: &Vault) -> Vec<String> {
    vault.note_paths().map(str::to_owned).collect()
}

pub fn draft(vault: &Vault, arguments: &DraftArguments, read: &mut dyn FnMut(&str) -> Option<String>) -> Result<DraftAnswer, OpError> {
    let topic = arguments.topic.trim();
    let existing = crate::existing::find_existing_page(
        vault,
        &FindPageArguments { topic: topic.to_owned(), limit: None, response_format: ResponseFormat::Concise },
    )?;
    let candidates: Vec<PageCandidate> =
        existing.candidates.into_iter().filter(|candidate| existing.verdict == "exists" || candidate.strength == "identity").collect();
    let mut answer = DraftAnswer {
        topic: topic.to_owned(),
        verdict: existing.verdict,
        reason: existing.reason,
        candidates,
        link_to: Vec::new(),
        link_from: Vec::new(),
        already_linking: Vec::new(),
        schema: None,
        skeleton: None,
    };
    if answer.verdict == "exists" {
        return Ok(answer);
    }
    let source = match arguments.source.as_deref().map(str::trim).filter(|source| !source.is_empty()) {
        Some(asked) => Some(vault.find_note(asked).ok_or_else(|| OpError::NoteNotFound { path: asked.to_owned() })?.to_owned()),
        None => None,
    };
    let name = page_name(topic);

    // Notes with a link naming the topic already, resolved or not.
    let stem = fold(name.as_str());
    for (note, index) in vault.links_watching(&resolve::watch_key(&name)) {
        let Some(found) = vault.outgoing_links(note).and_then(|links| links.into_iter().nth(index)) else { continue };
        let target = found.link.path.trim();
        let named = fold(file_name(target).strip_suffix(".md").unwrap_or(file_name(target)));
        if named != stem || answer.already_linking.iter().any(|known| known.path == note) {
            continue;
        }
        let why = match found.resolution {
            Resolution::Unresolved => format!("links `{}`, which finds no note yet", found.link.target),
            resolution => format!("links `{}`, which finds `{}`", found.link.target, resolution.path().unwrap_or_default()),
        };
        answer.already_linking.push(Suggestion { path: note.to_owned(), why });
    }
    answer.already_linking.truncate(MAX_SUGGESTIONS);

    let source_folders = crate::sources::source_folders(vault);
    // Notes that mention the topic in their prose, most mentions first.
    let evidence = crate::evidence::find_evidence(
        vault,
        &EvidenceArguments {
            title: name.clone(),
            limit: Some(50),
            cursor: None,
            nodes_only: true,
            response_format: ResponseFormat::Concise,
        },
        read,
    )?;
    let mut mentioning: Vec<_> = evidence
        .matches
        .into_iter()
        .filter(|found| found.strength != Strength::Title && found.mentions > 0)
        .filter(|found| !answer.already_linking.iter().any(|known| known.path == found.path))
        // A source stays as captured: never proposed for a patch.
        .filter(|found| crate::sources::source_holding(&source_folders, &found.path).is_none())
        .collect();
    mentioning.sort_by(|a, b| b.mentions.cmp(&a.mentions).then(a.path.cmp(&b.path)));
    let mut texts: BTreeMap<String, String> = BTreeMap::new();
    for found in mentioning.into_iter().take(MAX_SUGGESTIONS) {
        let Some(text) = read(&found.path) else { continue };
        texts.insert(found.path.clone(), text);
        answer.link_from.push(Suggestion {
            path: found.path,
            why: format!("mentions {topic} {} time{} without a link", found.mentions, if found.mentions == 1 { "" } else { "s" }),
        });
    }

    // What the page should link: its source, and the notes those that mention it link to most.
    let mut cited: BTreeMap<String, usize> = BTreeMap::new();
    for note in answer.link_from.iter().chain(&answer.already_linking) {
        for found in vault.outgoing_links(&note.path).unwrap_or_default() {
            if let Some(target) = found.resolution.path().filter(|target| vault.is_note(target) && *target != note.path) {
                *cited.entry(target.to_owned()).or_default() += 1;
            }
        }
    }
    if let Some(source) = &source {
        answer.link_to.push(Suggestion { path: source.clone(), why: "the page is drawn from it".to_owned() });
    }
    let mut cited: Vec<(String, usize)> = cited.into_iter().filter(|(_, count)| *count >= 2).collect();
    cited.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    for (path, count) in cited {
        if answer.link_to.len() >= MAX_SUGGESTIONS {
            break;
        }
        if answer.link_to.iter().all(|known| known.path != path) {
            answer.link_to.push(Suggestion { path, why: format!("linked from {count} of the notes that mention the topic") });
        }
    }

    // The schema in force, the path and the frontmatter it asks for.
    // Only a SCHEMA.md that declares rules counts (a note merely named "Schema" does not).
    let schemas: BTreeMap<String, (&str, &crate::lint::schema::SchemaFile)> =
        crate::lint::schema::schema_files(vault).into_iter().filter(|(_, (_, file))| crate::lint::schema::declares_rules(file)).collect();
    let asked_type = arguments.page_type.as_deref().map(str::trim).filter(|name| !name.is_empty());
    // Beside the source, unless it is a read-only source: then in the folder of the SCHEMA.md
    // declaring it.
    let near = source.as_deref().map_or_else(String::new, |source| match crate::sources::source_holding(&source_folders, source) {
        Some(held) => folder(&held.schema).to_owned(),
        None => folder(source).to_owned(),
    });
    let governing = crate::lint::schema::governing_schema(vault, format!("{near}/x.md").trim_start_matches('/'))
        .filter(|(_, file)| crate::lint::schema::declares_rules(file));
    // With a type, the schema that declares it (the one governing the source's folder first).
    let declaring = asked_type.and_then(|asked| {
        governing.into_iter().chain(schemas.values().copied()).find(|(_, file)| {
            file.schema.as_ref().is_some_and(|schema| schema.types.iter().any(|declared| fold(&declared.name) == fold(asked)))
        })
    });
    let chosen = declaring.or(governing).or_else(|| (schemas.len() == 1).then(|| schemas.values().copied().next()).flatten());
    let mut frontmatter = serde_json::Map::new();
    let mut page_folder = near.clone();
    if let Some((schema_path, file)) = chosen {
        let schema_folder = folder(schema_path).to_owned();
        let rules = file.schema.clone().unwrap_or_default();
        let page_type = asked_type.and_then(|asked| rules.types.iter().find(|declared| fold(&declared.name) == fold(asked)));
        if let Some(asked) = asked_type {
            frontmatter.insert("type".to_owned(), Value::String(page_type.map_or(asked, |declared| declared.name.as_str()).to_owned()));
        }
        let type_folder = page_type.and_then(|declared| declared.folder.as_deref()).map(|type_folder| {
            if schema_folder.is_empty() {
                type_folder.to_owned()
            } else {
                format!("{schema_folder}/{type_folder}")
            }
        });
        let inside = |candidate: &str| {
            schema_folder.is_empty()
                || fold(candidate) == fold(&schema_folder)
                || fold(candidate).starts_with(&format!("{}/", fold(&schema_folder)))
        };
        page_folder = match &type_folder {
            Some(type_folder) => type_folder.clone(),
            None if inside(&near) => near.clone(),
            None => schema_folder.clone(),
        };
        for required in page_type.map(|declared| declared.required.clone()).unwrap_or_default() {
            frontmatter.entry(required).or_insert(Value::String(String::new()));
        }
        answer.schema = Some(Requirements {
            schema: schema_path.to_owned(),
            types: rules.types.iter().map(|declared| declared.name.clone()).collect(),
            required: page_type.map(|declared| declared.required.clone()).unwrap_or_default(),
            folder: type_folder,
            properties: rules.properties.map(|rules| rules.into_iter().map(|rule| (rule.name, rule.allowed)).collect()),
        });
    }
    // The source is cited as a property link in `sources`, where the schema's vocabulary has
    // room for it (one without `sources` would refuse the page).
    if let Some(source) = &source {
        let allowed = answer
            .schema
            .as_ref()
            .and_then(|schema| schema.properties.as_ref())
            .is_none_or(|properties| properties.keys().any(|name| fold(name) == crate::source_hashes::SOURCES_PROPERTY));
        if allowed {
            let link = format!("[[{}]]", crate::lint::link_target_for(vault, source));
            frontmatter.insert(crate::source_hashes::SOURCES_PROPERTY.to_owned(), Value::Array(vec![Value::String(link)]));
        }
    }
    let mut path = if page_folder.is_empty() { format!("{name}.md") } else { format!("{page_folder}/{name}.md") };
    for number in 2.. {
        if vault.find_file(&path).is_none() {
            break;
        }
        path = if page_folder.is_empty() { format!("{name} {number}.md") } else { format!("{page_folder}/{name} {number}.md") };
    }
    let prev_hashes =
        answer.link_from.iter().filter_map(|note| texts.get(&note.path).map(|text| (note.path.clone(), content_hash(text)))).collect();
    answer.skeleton = Some(Skeleton {
        page: SkeletonPage { path, frontmatter, body: format!("# {name}\n") },
        patches: answer.link_from.iter().map(|note| SkeletonPatch { path: note.path.clone(), kind: "link" }).collect(),
        prev_hashes,
    });
    Ok(answer)
}

/// The topic as a note's name: the characters no link or filesystem takes replaced by a space,
/// spaces collapsed, no trailing dot or space.
fn page_name(topic: &str) -> String {
    let replaced: String = topic
        .chars()
        .map(|c| {
            if matches!(c, '[' | ']' | '#' | '^' | '|' | ':' | '\\' | '/' | '*' | '"' | '<' | '>' | '?') || c.is_control() {
                ' '
            } else {
                c
            }
        })
        .collect();
    let collapsed = replaced.replace("%%", " ").split_whitespace().collect::<Vec<_>>().join(" ");
    let name = collapsed.trim_end_matches(['.', ' ']).to_owned();
    if name.is_empty() {
        "Untitled".to_owned()
    } else {
        name
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::testing::vault_with as vault;

    fn asked(topic: &str, page_type: Option<&str>, source: Option<&str>) -> DraftArguments {
        DraftArguments {
            topic: topic.to_owned(),
            page_type: page_type.map(str::to_owned),
            source: source.map(str::to_owned),
            response_format: ResponseFormat::Detailed,
        }
    }

    #[test]
    fn a_new_page_gets_its_link_map_schema_and_a_skeleton_commit_accepts_once_filled() {
        let (vault, texts) = vault(&[
            (
                "wiki/SCHEMA.md",
                "---\ntypes:\n  concept: {required: [type, summary], folder: concepts}\nproperties:\n  type: [concept]\n  summary:\n---\n",
            ),
            ("wiki/concepts/Tree.md", "# Tree\nA tree is a kind of graph. [[Root]]\n"),
            ("wiki/concepts/Root.md", "# Root\nEvery tree has a root; a graph may not. [[Tree]]\n"),
            ("wiki/Waiting.md", "Soon: [[Graph]].\n"),
        ]);
        let mut read = |path: &str| texts.get(path).cloned();
        let answer = draft(&vault, &asked("Graph", Some("concept"), Some("wiki/concepts/Tree.md")), &mut read).unwrap();
        assert_eq!(answer.verdict, "ambiguous", "a link already waits for it: {}", answer.reason);
        assert_eq!(answer.already_linking.iter().map(|note| note.path.as_str()).collect::<Vec<_>>(), ["wiki/Waiting.md"]);
        let from: Vec<&str> = answer.link_from.iter().map(|note| note.path.as_str()).collect();
        assert_eq!(from, ["wiki/concepts/Root.md", "wiki/concepts/Tree.md"]);
        assert_eq!(answer.link_to[0].path, "wiki/concepts/Tree.md");
        let schema = answer.schema.as_ref().unwrap();
        assert_eq!(
            (schema.required.clone(), schema.folder.as_deref()),
            (vec!["type".to_owned(), "summary".to_owned()], Some("wiki/concepts"))
        );
        let skeleton = answer.skeleton.clone().unwrap();
        assert_eq!(skeleton.page.path, "wiki/concepts/Graph.md");
        assert_eq!(skeleton.prev_hashes.get("wiki/concepts/Tree.md"), Some(&content_hash(&texts["wiki/concepts/Tree.md"])));

        // Filled in, the skeleton is what commit_wiki_page takes.
        let mut filled = serde_json::to_value(&skeleton).unwrap();
        filled["page"]["frontmatter"]["summary"] = "Nodes and edges".into();
        let arguments: crate::wiki_request::CommitArguments = serde_json::from_value(filled).unwrap();
        let (plan, _) =
            crate::wiki::plan(&vault, &arguments, &texts).unwrap_or_else(|refused| panic!("{}", crate::error::Failure::message(&refused)));
        assert_eq!(plan.edits.len(), 2);
    }

    #[test]
    fn an_existing_page_is_returned_and_nothing_is_proposed() {
        let (vault, texts) = vault(&[("Graph.md", "# Graph\n"), ("A.md", "a graph\n")]);
        let mut read = |path: &str| texts.get(path).cloned();
        let answer = draft(&vault, &asked("graph", None, None), &mut read).unwrap();
        assert_eq!(answer.verdict, "exists");
        assert_eq!(answer.candidates[0].path, "Graph.md");
        assert!(answer.skeleton.is_none() && answer.link_from.is_empty());
        assert_eq!(page_name("What? A: B/C."), "What A B C");
    }

    /// Issue 37: 15 of 20 notes saying "opportunity attacks" were missed for "Opportunity
    /// attack". Plural and possessive mentions propose the note too.
    #[test]
    fn notes_mentioning_the_topic_in_another_inflection_are_proposed() {
        let (vault, texts) = crate::testing::vault_with(&[
            ("Rules/Combat.md", "Creatures make opportunity attacks when you leave their reach.\n"),
            ("Rules/Reach.md", "An opportunity attack's range is your reach.\n"),
            ("Rules/Other.md", "Nothing about it.\n"),
        ]);
        let arguments = DraftArguments {
            topic: "Opportunity attack".to_owned(),
            page_type: None,
            source: None,
            response_format: ResponseFormat::Concise,
        };
        let answer = draft(&vault, &arguments, &mut |path| texts.get(path).cloned()).unwrap_or_else(|error| panic!("{error:?}"));
        let proposed: Vec<&str> = answer.link_from.iter().map(|note| note.path.as_str()).collect();
        assert_eq!(proposed, ["Rules/Combat.md", "Rules/Reach.md"]);
    }
}

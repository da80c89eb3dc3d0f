//! The pure link engine of vaultlink: parse, index and query the links of an Obsidian vault.
//!
//! Everything here takes text and paths as plain data and returns plain data. Nothing in this
//! crate reads a file, opens a socket, looks at a clock or knows about JavaScript, so every
//! function can be tested with inline strings and runs the same natively and in wasm.
//!
//! Where things are (the modules, as ARCHITECTURE.md's map points to them):
//!
//! The pure library. `parse`: a note as Obsidian reads it (`parse_note`): body and property links
//! with exact byte spans, headings, block ids, tags, aliases, diagnostics. `frontmatter`: the
//! span-aware scan of the YAML block, which maps every decoded character of a property string back
//! to its raw bytes. `line_index`: the one place where byte offsets become lines and columns
//! (characters, or UTF-16 as JavaScript counts); `LineCounter` and `line_of` for a few lines
//! without an index. `resolve`: which file a link points to (relative wikilinks from the linking
//! note's folder; among notes of one name, one under that folder first), and `decided_by`, which
//! step of the rule decides among several candidates. `config`: Obsidian's `app.json` settings
//! (excluded files, attachment folder, link format), read from its text. `rename`: move plans
//! (`notes_to_read`, then `plan_move`; `bulk_moves` and `plan_bulk_move` for many moves as one
//! batch, ordered so a file moves once its destination is free); `move_error`: `MoveError`, why a
//! move or a rewrite was refused, worded once; `move_answer`: `MoveAnswer`, what a move or a
//! rewrite answers, paged; `names`: the limits on a name and the check of a new path against them
//! (`check_name`, `check_file_name`); `link_rewrite`:
//! `plan_rewrite_link`; `retarget`: what both share, writing a new path into a link and the proof
//! that a rewritten note reads back with each link the same but for its target, which lands where
//! it must; a move's plan reads the links of a note whose text has the index's
//! fingerprint (`facts::text_fingerprint`) from the index instead of parsing it, works out each
//! resolution and rewritten target once per kind of link, path and folder, and proves a rewritten
//! note by reading again only its rewritten links (`parse::link_alone`) and a frontmatter block
//! holding one (`parse::frontmatter_links`) when nothing else of its parse can change, else by
//! parsing it whole (see Decisions); a file whose links run past the index's limit
//! (`Vault::truncated_files`) is read whole, every link of it resolved and planned. `lint`: the
//! wiki lint, one file per rule with its code and built-in examples; `RULES` run by default,
//! `ON_REQUEST_RULES` (`dead_end`, noisy on real vaults) only when named in `kinds`; the rules'
//! names live below it in `rule_names`, which reading a `SCHEMA.md`'s `conventions` checks against
//! without importing the rules (which read the index, which reads the schema). `words`: the
//! words of a name as `find_existing_page` and `find_evidence` compare them. `answer`: what every
//! operation's answer shares (`ResponseFormat`, the page limits and cursors, `page_built`, which
//! builds only the items of the page asked for, `OpError`), so `ops` and `evidence` need not import
//! each other. `span`: the byte range everything in core speaks in (its own module, so
//! `frontmatter` and `parse` do not import each other). `canvas`: the links of a `.canvas` file
//! (JSON Canvas 1.0): a file card's `file` (a vault path, found by exact path as Obsidian does, its
//! `subpath` kept) and the links of a text card's Markdown (read by `parse_note` in the decoded
//! string, each span mapped back through the JSON escapes to the raw bytes), found by a strict,
//! depth-bounded JSON scanner of its own that keeps each string's raw span; `parse_file` reads any
//! file that holds links (a note or a canvas), and `json_string_content` writes a new target inside
//! a JSON string. A canvas is a source of links, not a note: it has backlinks out, no title,
//! properties or report of its own. `sketch`: the bottom-k MinHash sketch of a note body (a few
//! hundred bytes a note), from which `near_duplicate` finds similar notes without note text, and a
//! 64-bit hash of the body with its white space evened out, from which it finds identical ones
//! whatever their length; the index keeps a note's once `near_duplicate` asked for it
//! (`index::sketches`), and `ops::sketches_needed` says which notes a call needs sketched, for
//! both edges. `evidence`: `find_evidence`, which ranks the notes
//! that mention a concept and excerpts their prose; the edge hands it each note's text through a
//! callback. `delete`: safe-delete plans, the decision on a request, and the captured note. `hex`:
//! bytes as lowercase hex and back, for every hash, seal, key, cursor and token. `error`:
//! `ErrorCode`, the one closed list of error codes every error of core, the sidecar and the plugin
//! names (the README's table; `plugin/error-codes.ts` is generated from it and a test keeps it so);
//! `Failure`, the trait every typed error of core implements (code, message, hint, retryable); and
//! `CallError`, the one error type a call ends with, which each edge turns into its own in one
//! place (`ToolError::from` in the sidecar, serde in the wasm crate). `step`: `StepError`, what
//! carrying out a change can end with (a note changed under the batch, a failed step, an undo that
//! failed in part, a journal in the way), worded once for both edges, and `saved_over`, what an
//! edge does about a note saved over after the batch rewrote it (the save with the rewrite put
//! back, or the save left and its rewritten links named). `approval`: the approval decision of
//! `move_note` and `rewrite_link` (`decide_plan`) and the `PlanHistory` it decides with, made once
//! for both edges. `parameters`: every tool's parameters (name, kind, range, allowed values,
//! required, whether it is a path) and the rules between them, and `check`, the one argument check
//! both edges run (the sidecar before it forwards or runs a call, the plugin through wasm); the
//! sidecar's advertised schemas are tested against it. `existing`: `find_existing_page` (its own
//! module, so `draft` need not import `ops`), which compares the topic only with the notes the name
//! index gives (`Vault::notes_concerning`), and `find_existing_page_comparing_every_note`, the same
//! answer from every note, which tests hold the lookup to. `pages`: the names a note is known by
//! (file name, aliases, `title`, first H1), the forms they are compared in (`identity_key`,
//! `page_key`; lint re-exports them), and `PageNames`, those names indexed by page key, topic word
//! and Wikidata item to note ids, kept current by the index on every insert, replace and remove;
//! `concerning` gives the notes a topic can concern (its page key, its Wikidata item, or names
//! holding half of its words). `draft`: `draft_wiki_page` (find_existing_page's check, then the
//! link map from the index and find_evidence, the SCHEMA.md rules for the type, and a skeleton of
//! commit_wiki_page's arguments). `wiki`: `commit_wiki_page`'s plan (the page's text, its `link`
//! and `append` patches, and every rule checked in a copy of the index as it will be: links
//! resolve, SCHEMA.md met, a new linkable path, `prev_hashes` current); what it is asked (the page,
//! the patches) is `wiki_request`, which `page_checks` takes too. `page_checks`: what a new
//! page is checked for against the vault it joins (a note already known by one of its names,
//! `duplicate_page` unless `allow_duplicate`; links that find a note today and would find it or
//! several, always refused) and the `problems` that do not block the write. `sources`: the
//! read-only source folders a `SCHEMA.md` declares (`source_folders`): `check_plan` refuses any
//! plan that would create, edit or move a file in one (`read_only_source`), `leave_sources` takes a
//! move's or a rewrite's edits of a source out of its plan and lists the links left; every writing
//! operation of `change` asks them, so both edges carry out only what they allow. `conventions`: a
//! `SCHEMA.md`'s lint rules marked `severity: block`, and the findings of theirs a write would add
//! (`added_violations`), which `commit_wiki_page` refuses with the schema's other rules. `change`:
//! the writing operations (`move_note`, `bulk_move_notes`, `rewrite_link`, `delete_note`,
//! `update_properties`, `commit_wiki_page`) from their arguments to an answer and, when approved,
//! the steps. `properties`: `update_properties`' plan (whole top-level entries of the YAML block
//! replaced, removed or appended, every other byte kept, a link written quoted; an entry runs to
//! its last line that is not blank or a comment at the line's start, so block scalars and lists
//! with blank lines or comments inside are one entry) and its proof (the block read back with
//! `serde_yaml` holds exactly the asked change, or the edit is refused as `unwritable_note`;
//! `tests/spec/properties.md` holds the cases, `tests/properties_yaml.rs` and the `properties` fuzz
//! target the forms YAML is written in). `rewrite`: what a `rewrite_link` plan does to the links
//! that work today (`links_broken`), refused as `breaks_links` unless the call allows it.
//! `property_rules`: what `update_properties` checks of the note as the edit leaves it, as
//! `commit_wiki_page` checks a page (the governing SCHEMA.md's rules, through the lint's `schema`
//! rule, and the links set). `edge`: what an operation gets from the edge running it (`Edge`:
//! notes' texts as they are now, modification times, the tag of temporary files, the changes kept
//! for undo as `KeptChange`s; `ReadBefore`, an edge of texts read in advance) and what it hands
//! back (`Change`: a batch, or the move of a note to the trash; `Change::paths_to_guard`, every
//! path carrying it out touches, which both edges refuse to reach through a symbolic link).
//! `audit`: the rename audit (the links still naming a renamed file's old path, and the
//! `rewrite_link` calls that repoint them). `batch`: an approved plan turned into the steps both
//! edges carry out (each note's planned and new text, the files it creates (nothing may be there;
//! undone by removing them while they hold what was written), the moves with a case-only one
//! through a temporary name, the folders needed and those emptied, the journal entry); the edges
//! only execute and undo. `history`: the changes kept for `undo_change` (each applied batch's
//! journal with its `change_id`, in `.vaultlink/changes`, kept as part of the commit, the bounds on
//! how many and how large, which to forget, and `check_not_kept`, which refuses a journal whose
//! change is kept with a later one after it) and the undo of one, planned as a batch from the vault
//! as it is now (refused when a note it touched changed since), its moves back planned as moves
//! (`rename`), so links made since follow the files back, and a created page that notes link since
//! removed only with `force`; a delete is kept as a removal whose journal holds the note's text
//! (`batch::delete_batch`), undone by writing it back where its place is free. `history_list`:
//! `list_changes`, the kept changes newest first, paged with a cursor bound to them, each with what
//! it touched and whether it can be undone now, decided by planning its undo as `undo_change`
//! would. `lease`: whether the holder of a journal found in a vault is alive (`RENEW_MS`,
//! `HOLDER_STOP_MS`, `EXPIRE_MS`, `judge`, the one place a found journal is given its meaning from
//! what an edge observed, and `same_batch`, how both edges tell their own journal). `journal`: the
//! journal's format (defined once, for both edges), its seal (HMAC-SHA256 under the vault's sealing
//! key, binding the file's purpose, a journal or a kept change, and the key's id, which the file
//! names), the bound on a journal's or kept change's size (`MAX_FILE_BYTES`) and `open`, which
//! decides whether a file found in a vault may be acted on as the purpose asked. `undo_steps`: the
//! undo of a journal, decided once: `steps`, the ordered steps that undo it (temporary files
//! removed, what the batch removed put back, moves undone last first, created files removed,
//! rewritten notes restored, made folders removed, its kept change forgotten, a set-aside one put
//! back, the journal last), each with what the edge checks on the disk right before it acts (a note
//! restored only while it holds the batch's text, a move undone only when its destination is there
//! and its source free, a note saved over since kept and its text from before saved under
//! `.vaultlink/recovered/`), and `Undone`, what a step did, of which a recovery's report is made;
//! the sidecar's `journal::undo` carries them out on the folder and the plugin's `batch/execute.ts`
//! through the Vault API (for the batch's journal cut to the steps it made), and
//! `tests/vectors/undo_steps.json` holds the cases both languages check. `seal_key`: the vault's
//! sealing keys as data (`.vaultlink/keys/<id>.key`, which of them may be used, in what order and
//! how many are looked at, and `derive`, the key bound to the key file's identity, its inode or
//! Windows file index, so a copy of the vault never carries a usable key; SECURITY.md says why the
//! key may live in the vault). `presence`: the plugin's presence lease in the vault
//! (`.vaultlink/presence.json`: its format, `RENEW_MS` and `EXPIRE_MS`) and `judge`, the one place
//! a presence file found in a vault is judged (fresh, another machine's, ahead of the clock,
//! unreadable, expired, not a plain file) from its bytes and what the edge observed (its age by the
//! edge's clock, whether it is a plain file), with `holds_writes` and `unreachable_because` (why
//! the plugin cannot be reached from where the sidecar runs, and what to do). `paths`: the rules a
//! vault path must pass (a tool's; `hidden_path_problem`, no tool may name anything under
//! `.vaultlink`, `.trash`, the config folder or any hidden place; and the stricter rule for a path
//! the engine writes). `index`: the `Vault`: a file table (each file's path interned once, with an
//! id; a path order over the ids), each note's and canvas's links (kept by `index::link_store` as
//! fixed-size records over one string per file, a `Link` built only for the caller that reads
//! one) with what they resolve to as the target's id (an ambiguous link keeps its candidates), each file's backlinks and each name's
//! watching links as vectors of (note id, position), the `PageNames` of its notes, and the
//! unresolved links counted by missing target (`missing_targets`, `unresolved_link_count`), kept
//! current wherever a link's target is filed, changed or unfiled (so `find_unresolved_links` pages
//! through the kept missing targets, `missing_target_keys`, and looks up the links of a page's
//! targets only, among the links watching each one's name, `unresolved_links_to`, rather than
//! grouping every link of the vault for each page); `Vault::prepare` (parsing and reading a note,
//! with one YAML reading of its frontmatter for the links and the properties, independent of the
//! index, so an edge may run it on several threads), `insert_prepared_many` (many files at once,
//! each link resolved once against all of them) and `memory` (what each structure holds, counted in
//! `memory`, which the bench prints). `ops`: the single entry of every tool, reading or writing:
//! `request` (the arguments checked by `parameters` and parsed into a typed `Request`),
//! `notes_needed` (the notes a call will ask its edge for, part of what `needs::needs` says a call
//! reads before it runs, which an edge that reads asynchronously gathers first),
//! `Request::asks_to_apply` (whether a call asks for a change to be made, not
//! previewed: the sidecar takes the vault's lock before it plans one) and `run`/`call`, which
//! answer an `Outcome` (the answer, and for an approved change its `Change`); both the sidecar and
//! the wasm crate call these, which is why both paths answer alike. `graph`: the link graph's
//! reads, `find_link_paths` (the shortest link paths between two notes, breadth first, with the
//! link of each step) and `link_graph` (`hubs`: in-degree and petgraph's articulation points;
//! `islands`: petgraph's union-find; `cycles`: a bounded search inside each of petgraph's strongly
//! connected components; `health`: the counts and ratios), over the notes and the edges the index's
//! resolutions make, built once per call; petgraph's `page_rank` is not used, its cost being
//! quadratic in the notes. `repair`: `fix_broken_links` decided once: for each link in scope that
//! finds no note (or not its `#heading`), the candidates ranked with their evidence (a move the
//! edge saw, handed in as data, `Known`; the same name in another form; the one note of that name
//! elsewhere; an alias or title; the target's nearest heading; Jaro-Winkler similarity from
//! `strsim`), a confidence in 0–1, and a plan (proven as a rewrite's) repairing only links whose
//! best candidate reaches the floor and stands `MARGIN` clear of the next; links in template
//! expressions are listed, never changed, and sources are left by `sources::leave_sources`.

pub mod answer;
pub mod approval;
pub mod audit;
pub mod batch;
pub mod canvas;
pub mod change;
pub mod config;
pub mod conventions;
pub mod delete;
pub mod draft;
pub mod edge;
pub mod error;
pub mod evidence;
pub mod existing;
pub mod facts;
pub mod frontmatter;
pub mod graph;
pub mod hex;
pub mod history;
pub mod history_list;
pub mod index;
pub mod inflect;
pub mod journal;
pub mod kept_names;
pub mod lease;
pub mod line_index;
pub mod link_form;
pub mod link_rewrite;
pub mod lint;
pub mod memory;
pub mod mentions;
pub mod move_answer;
pub mod move_error;
pub mod moves_detected;
pub mod names;
pub mod needs;
pub mod ops;
pub mod own_files;
pub mod page_checks;
pub mod pages;
pub mod parameters;
pub mod parse;
pub mod paths;
pub mod plan;
pub mod presence;
pub mod properties;
pub mod property_rules;
pub mod rename;
pub mod repair;
pub mod reread;
pub mod resolve;
pub mod retarget;
pub mod rewrite;
pub mod rewrite_form;
pub mod rule_names;
pub mod schema_file;
pub mod seal_key;
pub mod seen;
pub mod seen_since;
pub mod sketch;
pub mod source_hashes;
pub mod sources;
pub mod span;
pub mod step;
pub mod tail;
pub mod tools;
pub mod undo_steps;
pub mod wiki;
pub mod wiki_request;
#[cfg(feature = "typescript")]
pub mod wire;
pub mod words;
pub mod yaml_text;

pub use index::Vault;
pub use line_index::LineIndex;
pub use parse::{parse_note, Link, LinkKind, LinkSource, ParseConfig, ParsedNote, Span};
pub use seen::SeenNote;

/// What the unit tests of several modules share.
#[cfg(test)]
pub(crate) mod testing {
    use std::collections::BTreeMap;

    use crate::index::{IndexConfig, Vault};

    /// A vault of `files` (path, text) as Obsidian's defaults index it, and the texts by path.
    pub fn vault_with(files: &[(&str, &str)]) -> (Vault, BTreeMap<String, String>) {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        let mut texts = BTreeMap::new();
        for (path, text) in files {
            vault.upsert(path, text);
            texts.insert((*path).to_owned(), (*text).to_owned());
        }
        (vault, texts)
    }
}

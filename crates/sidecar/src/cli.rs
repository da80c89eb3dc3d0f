//! The command line: `mcp` for agents, and readable commands for people that run the same
//! calls as the MCP tools.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use serde_json::{json, Value};

use crate::link_form::LinkFormOption;
use crate::standalone::canonical_vault;
use crate::tools::{Mode, Router, Served};

/// Prints a line of a command's output. A closed pipe (`vaultlink orphans … | head`) ends the
/// program quietly instead of panicking, as people expect of a command-line tool.
macro_rules! out {
    ($($arg:tt)*) => {{
        crate::output::print_line(&format!($($arg)*));
    }};
}

/// What `vaultlink --version` says after the name: the version and the bridge protocol, which
/// the plugin's settings tab reads to check the program it is configured with
/// (`plugin/settings/sidecar-check.ts`). A literal, as clap wants one; a test holds it to
/// `discovery::PROTOCOL`.
pub const VERSION_LINE: &str = concat!(env!("CARGO_PKG_VERSION"), " (bridge protocol 1)");

#[derive(Debug, Parser)]
#[command(name = "vaultlink", version = VERSION_LINE, about = "Links of an Obsidian vault, parsed and resolved as Obsidian does.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// How a command answers and where it runs, the same for every command over a vault.
#[derive(Debug, clap::Args)]
pub struct Output {
    /// Print JSON instead of text.
    #[arg(long)]
    json: bool,
    /// Where calls run: the plugin when it serves this vault (auto), only the plugin, or only the folder.
    #[arg(long, value_enum, default_value_t = Mode::Auto)]
    mode: Mode,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Serve MCP on stdio for an agent.
    Mcp {
        /// The vault folder.
        #[arg(long)]
        vault: PathBuf,
        /// Where calls run: the plugin when it serves this vault (auto), only the plugin, or only the folder.
        #[arg(long, value_enum, default_value_t = Mode::Auto)]
        mode: Mode,
        /// Serve MCP over Streamable HTTP at http://<ADDRESS>/mcp instead of stdio. Loopback
        /// addresses only (127.0.0.1:<port>, [::1]:<port>); clients must send the bearer token
        /// from VAULTLINK_HTTP_TOKEN or, when that is unset, the one printed on stderr.
        #[arg(long, value_name = "ADDRESS")]
        http: Option<String>,
        /// How long a write (or, with --mode plugin, any call) waits for a plugin that is still
        /// building its first index before it is refused.
        #[arg(long, value_name = "SECONDS", default_value_t = crate::tools::DEFAULT_STARTUP_WAIT.as_secs())]
        wait_for_plugin: u64,
        /// How a link rewritten on the folder is written: as Obsidian would under the vault's "New
        /// link format" (obsidian), or in the form it was written in (keep).
        #[arg(long, value_enum, default_value_t = LinkFormOption::Obsidian)]
        link_form: LinkFormOption,
    },
    /// Show a note's links and the links that point to it.
    Links {
        /// The vault folder.
        vault: PathBuf,
        /// The note's path relative to the vault, `.md` optional.
        note: String,
        #[command(flatten)]
        output: Output,
    },
    /// Show the links that point to a note.
    Backlinks {
        /// The vault folder.
        vault: PathBuf,
        /// The note's path relative to the vault, `.md` optional.
        note: String,
        #[command(flatten)]
        output: Output,
    },
    /// List links to notes that do not exist, by missing note.
    Unresolved {
        /// The vault folder.
        vault: PathBuf,
        #[command(flatten)]
        output: Output,
    },
    /// List notes that no other note links to.
    Orphans {
        /// The vault folder.
        vault: PathBuf,
        #[command(flatten)]
        output: Output,
    },
    /// Move or rename a note, attachment or folder, rewriting the links that must change.
    Mv {
        /// The vault folder.
        vault: PathBuf,
        /// The file or folder to move, relative to the vault.
        from: String,
        /// Its new path, relative to the vault.
        to: String,
        /// Show what would change, and change nothing.
        #[arg(long)]
        dry_run: bool,
        /// How a rewritten link is written: as Obsidian would under the vault's "New link format"
        /// (obsidian), or in the form it was written in (keep).
        #[arg(long, value_enum, default_value_t = LinkFormOption::Obsidian)]
        link_form: LinkFormOption,
        #[command(flatten)]
        output: Output,
    },
    /// Lint the wiki: broken, ambiguous and orphaned links, duplicates, frontmatter, SCHEMA.md.
    /// Exits with status 1 when there are findings of the chosen kinds.
    Lint {
        /// The vault folder.
        vault: PathBuf,
        /// The kinds to run, comma-separated (such as `orphan,unresolved_link`); every kind but `dead_end` when left out.
        #[arg(long, value_delimiter = ',')]
        kinds: Vec<String>,
        /// Only notes in this folder and below it.
        #[arg(long)]
        folder: Option<String>,
        #[command(flatten)]
        output: Output,
    },
    /// Delete a note to the trash, after showing what links to it. Previews unless --yes; a delete
    /// that links block is refused (exit status 2) unless --force.
    Rm {
        /// The vault folder.
        vault: PathBuf,
        /// The note to delete, relative to the vault.
        note: String,
        /// Delete even though links point to the note (they will dangle).
        #[arg(long)]
        force: bool,
        /// Delete; without it, only show what would happen.
        #[arg(long)]
        yes: bool,
        #[command(flatten)]
        output: Output,
    },
    /// Undo a change (a move, a rewrite) that was interrupted part way, from the journal it
    /// left in <vault>/.vaultlink. The sidecar also does this by itself before it next reads
    /// the vault.
    Recover {
        /// The vault folder.
        vault: PathBuf,
    },
    /// Count the vault's notes, attachments and links.
    Summary {
        /// The vault folder.
        vault: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
    /// Show the shortest chains of links from one note to another.
    Path {
        /// The vault folder.
        vault: PathBuf,
        /// The note the paths start from, relative to the vault.
        from: String,
        /// The note they end at.
        to: String,
        /// Also walk links backwards, from a link's target to the note holding it.
        #[arg(long)]
        any_direction: bool,
        /// The most links on a path (1 to 10).
        #[arg(long, default_value_t = vaultlink_core::graph::DEFAULT_PATH_LENGTH)]
        max_length: usize,
        #[command(flatten)]
        output: Output,
    },
    /// Show the shape of the link graph: the notes that hold it together (hubs), its islands,
    /// its link cycles, or its health in counts and ratios.
    Graph {
        /// The vault folder.
        vault: PathBuf,
        /// What to show.
        #[arg(value_enum)]
        question: crate::cli_graph::Question,
        /// For cycles: the fewest links on a cycle (2 to 8; 3 when left out).
        #[arg(long)]
        min_length: Option<usize>,
        /// For cycles: the most links on a cycle (2 to 8; 5 when left out).
        #[arg(long)]
        max_length: Option<usize>,
        /// The most entries to show (every one when left out).
        #[arg(long)]
        top: Option<usize>,
        #[command(flatten)]
        output: Output,
    },
    /// List the notes and folders moved outside vaultlink since the index last saw the vault,
    /// with the links each broke, and the cases that look like moves but are not taken for one.
    Moves {
        /// The vault folder.
        vault: PathBuf,
        #[command(flatten)]
        output: Output,
    },
    /// Rewrite the links that moves made outside vaultlink broke, as `vaultlink mv` would have
    /// (no file is moved). Previews unless --yes.
    Heal {
        /// The vault folder.
        vault: PathBuf,
        /// Show what would change, and change nothing (as `fix` and `mv` take it).
        #[arg(long)]
        dry_run: bool,
        /// Accepted for scripts written when the links were rewritten only with it; the links
        /// are rewritten unless `--dry-run` is given.
        #[arg(long, hide = true, conflicts_with = "dry_run")]
        yes: bool,
        #[command(flatten)]
        output: Output,
    },
    /// Repair links that find no note (or not their heading) to the notes they meant, where the
    /// evidence is confident; list the others with their candidates.
    Fix {
        /// The vault folder.
        vault: PathBuf,
        /// Only this note, or the notes of this folder.
        #[arg(long)]
        path: Option<String>,
        /// The floor a repair's confidence must reach, in percent (90 when left out).
        #[arg(long)]
        min_confidence: Option<u16>,
        /// Show what would change, and change nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        output: Output,
    },
    /// Link the plain-text mentions of notes' names (file names, aliases, titles), keeping the
    /// text; list the names several notes share.
    Mentions {
        /// The vault folder.
        vault: PathBuf,
        /// Only this note, or the notes of this folder.
        #[arg(long)]
        note: Option<String>,
        /// Only the first mention of each note in each note.
        #[arg(long)]
        first_only: bool,
        /// Show what would change, and change nothing.
        #[arg(long)]
        dry_run: bool,
        #[command(flatten)]
        output: Output,
    },
}

pub async fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Mcp { vault, mode, http, wait_for_plugin, link_form } => {
            crate::link_form::choose(link_form);
            let address = http.as_deref().map(crate::http::loopback_address).transpose()?;
            let vault = canonical_vault(&vault)?;
            tracing::info!("serving MCP for {} (mode {mode:?})", vault.display());
            match address {
                Some(address) => crate::http::serve_http(router(vault, mode, wait_for_plugin), address).await,
                None => crate::mcp::serve_stdio(router(vault, mode, wait_for_plugin)).await,
            }
        }
        Command::Links { vault, note, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let outgoing = call(&mut router, "get_outgoing_links", json!({ "path": note })).await?;
            let incoming = call_all(&mut router, "get_backlinks", json!({ "path": note }), "backlinks").await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&json!({"outgoing": outgoing, "backlinks": incoming}))?);
            } else {
                print_links(&outgoing, &incoming);
            }
            crate::output::exit_after_answer(0)
        }
        Command::Backlinks { vault, note, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let incoming = call_all(&mut router, "get_backlinks", json!({ "path": note }), "backlinks").await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&incoming)?);
            } else {
                print_backlinks(&incoming);
            }
            crate::output::exit_after_answer(0)
        }
        Command::Unresolved { vault, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let targets = call_all(&mut router, "find_unresolved_links", json!({}), "targets").await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&targets)?);
            } else {
                out!("{} missing notes are linked to:", targets.as_array().map_or(0, Vec::len));
                for target in targets.as_array().into_iter().flatten() {
                    let referrers = target["referrers"].as_array().cloned().unwrap_or_default();
                    let count = number(target, "referrer_count").max(referrers.len() as u64);
                    out!("\n  {}  ({count} links)", text(target, "target"));
                    for referrer in &referrers {
                        out!("    {}:{}", text(referrer, "source"), number(referrer, "line"));
                    }
                    if count > referrers.len() as u64 {
                        out!("    … and {} more", count - referrers.len() as u64);
                    }
                }
                // Links past the index's limit are in no target above: the files are named.
                let first = call(&mut router, "find_unresolved_links", with_limit(json!({}))).await?;
                for path in first["truncated_files"].as_array().into_iter().flatten() {
                    out!("\n  {} has more links than are read; those past the limit are not checked", path.as_str().unwrap_or_default());
                }
            }
            crate::output::exit_after_answer(0)
        }
        Command::Orphans { vault, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let orphans = call_all(&mut router, "find_orphans", json!({}), "orphans").await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&orphans)?);
            } else {
                out!("{} notes have no links pointing to them:", orphans.as_array().map_or(0, Vec::len));
                for orphan in orphans.as_array().into_iter().flatten() {
                    out!("  {}", orphan.as_str().unwrap_or_default());
                }
            }
            crate::output::exit_after_answer(0)
        }
        Command::Mv { vault, from, to, dry_run, link_form, output: Output { json, mode } } => {
            crate::link_form::choose(link_form);
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let answer = call(&mut router, "move_note", json!({ "from": from, "to": to, "dry_run": dry_run })).await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&answer)?);
                crate::output::exit_after_answer(0);
            }
            for file_move in answer["moves"].as_array().into_iter().flatten() {
                out!("{} {} -> {}", if dry_run { "would move" } else { "moved" }, text(file_move, "from"), text(file_move, "to"));
            }
            let changes = answer["changes"].as_array().cloned().unwrap_or_default();
            out!(
                "{} links in {} files {}:",
                changes.len(),
                number(&answer, "notes_edited"),
                if dry_run { "would be rewritten" } else { "rewritten" }
            );
            for change in &changes {
                out!(
                    "  {}:{}  {}  ->  {}  ({})",
                    text(change, "note"),
                    number(change, "line"),
                    text(change, "before"),
                    text(change, "after"),
                    text(change, "reason").replace('_', " ")
                );
            }
            for found in answer["newly_resolved"].as_array().into_iter().flatten() {
                out!(
                    "  note: {}:{} {} will now find {}",
                    text(found, "note"),
                    number(found, "line"),
                    text(found, "link"),
                    text(found, "resolves_to")
                );
            }
            if dry_run {
                out!("Nothing was changed (--dry-run).");
            }
            crate::output::exit_after_answer(0)
        }
        Command::Lint { vault, kinds, folder, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let mut arguments = json!({});
            if !kinds.is_empty() {
                arguments["kinds"] = json!(kinds.iter().map(|kind| kind.trim()).filter(|kind| !kind.is_empty()).collect::<Vec<_>>());
            }
            if let Some(folder) = folder {
                arguments["folder"] = json!(folder);
            }
            let first = call(&mut router, "lint_wiki", with_limit(arguments.clone())).await?;
            let proposals = call_all(&mut router, "lint_wiki", arguments, "proposals").await?;
            let found = proposals.as_array().map_or(0, Vec::len);
            if json {
                let report = json!({"total": first["total"], "counts": first["counts"], "skipped": first["skipped"], "proposals": proposals,
                    "health": first["health"]});
                out!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print_lint(&first, &proposals);
            }
            if found > 0 {
                crate::output::exit_after_answer(1);
            }
            crate::output::exit_after_answer(0)
        }
        Command::Rm { vault, note, force, yes, output: Output { json, mode } } => {
            let router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let answer = match router.call("delete_note", json!({ "path": note, "confirm": yes, "force": force })).await {
                (_, Ok(answer)) => answer,
                // Links block the delete: said in the command's own words (its flags, not the tool's).
                (_, Err(error)) if error.code == "has_backlinks" => {
                    bail!(
                        "{} ({})\nhint: Repoint the links first (vaultlink mv), or add --force to delete it anyway.",
                        error.message,
                        error.code
                    )
                }
                (_, Err(error)) => bail!("{} ({})\nhint: {}", error.message, error.code, error.hint),
            };
            if json {
                out!("{}", serde_json::to_string_pretty(&answer)?);
            } else {
                let backlinks = answer["backlinks"].as_array().cloned().unwrap_or_default();
                out!("{}: {} links point here", text(&answer, "path"), backlinks.len());
                for link in &backlinks {
                    let place = match link.get("key").and_then(Value::as_str) {
                        Some(key) => format!("property `{key}`"),
                        None => format!("line {}", number(link, "line")),
                    };
                    out!("  {} {place}: {}", text(link, "note"), text(link, "link"));
                }
                if let Some(trashed) = answer.get("trashed_to").and_then(Value::as_str) {
                    out!("Deleted: moved to {trashed}.{}", if answer["forced"] == true { " The links above now dangle." } else { "" });
                } else if answer["can_confirm"] == true {
                    out!("Nothing was changed. Run again with --yes to move it to the trash.");
                } else {
                    out!("Nothing was changed: {}. Add --force --yes to delete anyway.", blocked_text(&answer));
                }
            }
            crate::output::exit_after_answer(0)
        }
        Command::Recover { vault } => {
            let vault = canonical_vault(&vault)?;
            let found = crate::journal::find(&vault);
            if let Some(verdict) = crate::journal::judge(&vault, &found, "").filter(vaultlink_core::lease::Verdict::live) {
                let error = verdict.refusal(&vault.display().to_string(), "").error();
                bail!(
                    "{} (recovery would undo a live change; a change whose process is gone counts as interrupted once its journal has not been renewed for {} s)\nhint: {}",
                    error.message,
                    vaultlink_core::lease::EXPIRE_MS / 1000,
                    error.hint
                );
            }
            match crate::journal::recover(&crate::disk::RealDisk, &vault) {
                Ok(Some(recovery)) => out!("{}", crate::journal::describe(&vault, &recovery)),
                Ok(None) => out!("Nothing to recover: no change to {} was interrupted.", vault.display()),
                Err(error) => bail!("{} ({})\nhint: {}", error.message, error.code, error.hint),
            }
            crate::output::exit_after_answer(0)
        }
        Command::Path { vault, from, to, any_direction, max_length, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let direction = if any_direction { "any" } else { "forward" };
            let arguments = json!({ "from": from, "to": to, "direction": direction, "max_length": max_length });
            let first = call(&mut router, "find_link_paths", with_limit(arguments.clone())).await?;
            let paths = call_all(&mut router, "find_link_paths", arguments, "paths").await?;
            if json {
                let mut answer = first;
                answer["paths"] = paths;
                answer.as_object_mut().map(|answer| answer.remove("next_cursor"));
                out!("{}", serde_json::to_string_pretty(&answer)?);
            } else {
                crate::cli_graph::print_paths(&first, &paths);
            }
            crate::output::exit_after_answer(0)
        }
        Command::Graph { vault, question, min_length, max_length, top, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let mut arguments = json!({ "question": question.name() });
            if let Some(min_length) = min_length {
                arguments["min_length"] = json!(min_length);
            }
            if let Some(max_length) = max_length {
                arguments["max_length"] = json!(max_length);
            }
            let first = call(&mut router, "link_graph", with_limit(arguments.clone())).await?;
            let mut answer = first.clone();
            if let Some(items) = question.items() {
                let mut all = call_all(&mut router, "link_graph", arguments, items).await?;
                if let (Some(top), Some(list)) = (top, all.as_array_mut()) {
                    list.truncate(top);
                }
                answer[items] = all;
                answer.as_object_mut().map(|answer| answer.remove("next_cursor"));
            }
            if json {
                out!("{}", serde_json::to_string_pretty(&answer)?);
            } else {
                crate::cli_graph::print_graph(question, &answer);
            }
            crate::output::exit_after_answer(0)
        }
        Command::Moves { vault, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let first = call(&mut router, "detected_moves", with_limit(json!({}))).await?;
            let moves = call_all(&mut router, "detected_moves", json!({}), "moves").await?;
            let ambiguous = call_all(&mut router, "detected_moves", json!({}), "ambiguous").await?;
            if json {
                let report =
                    json!({"observed": first["observed"], "links_broken": first["links_broken"], "moves": moves, "ambiguous": ambiguous});
                out!("{}", serde_json::to_string_pretty(&report)?);
            } else {
                print_moves(&first, &moves, &ambiguous);
            }
            crate::output::exit_after_answer(0)
        }
        Command::Heal { vault, dry_run, yes: _, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let preview = call(&mut router, "heal_moves", json!({})).await?;
            let answer = if !dry_run && number(&preview, "links_changed") > 0 {
                call(&mut router, "heal_moves", json!({"approved_plan_hash": preview["plan_hash"]})).await?
            } else {
                preview
            };
            if json {
                out!("{}", serde_json::to_string_pretty(&answer)?);
                crate::output::exit_after_answer(0);
            }
            let applied = answer["applied"] == true;
            for healed in answer["healed"].as_array().into_iter().flatten() {
                out!("moved outside vaultlink: {} -> {}", text(healed, "from"), text(healed, "to"));
            }
            let changes = answer["changes"].as_array().cloned().unwrap_or_default();
            out!(
                "{} links in {} files {}:",
                number(&answer, "links_changed"),
                number(&answer, "notes_edited"),
                if applied { "rewritten" } else { "would be rewritten" }
            );
            for change in &changes {
                out!("  {}:{}  {}  ->  {}", text(change, "note"), number(change, "line"), text(change, "before"), text(change, "after"));
            }
            if number(&answer, "ambiguous") > 0 {
                out!("{} cases that look like moves were left alone: vaultlink moves lists them.", number(&answer, "ambiguous"));
            }
            if applied {
                out!("Done: undo_change takes it back (change {}).", text(&answer, "change_id"));
            } else if !changes.is_empty() {
                out!("Nothing was changed (--dry-run).");
            }
            crate::output::exit_after_answer(0)
        }
        Command::Summary { vault, json } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, Mode::Standalone);
            // server_health carries the index's counts, standalone as through the plugin.
            let health = call(&mut router, "server_health", json!({})).await?;
            let summary = health["index"].clone();
            if json {
                out!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                print_summary(router.vault(), &summary);
            }
            crate::output::exit_after_answer(0)
        }
        Command::Fix { vault, path, min_confidence, dry_run, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let mut arguments = json!({ "dry_run": dry_run });
            if let Some(path) = path {
                arguments["path"] = json!(path);
            }
            if let Some(floor) = min_confidence {
                arguments["min_confidence_percent"] = json!(floor);
            }
            // The first page holds the most repairs a page may; the count says how many there are.
            arguments["limit"] = json!(vaultlink_core::answer::MAX_LIMIT);
            let answer = call(&mut router, "fix_broken_links", arguments).await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&answer)?);
                crate::output::exit_after_answer(0);
            }
            out!(
                "{} links in {} files {}:",
                number(&answer, "links_repaired"),
                number(&answer, "notes_edited"),
                if dry_run { "would be repaired" } else { "repaired" }
            );
            for repair in answer["repairs"].as_array().into_iter().flatten() {
                out!(
                    "  {}:{}  {}  ->  {}  ({}, {:.2})",
                    text(repair, "note"),
                    number(repair, "line"),
                    text(repair, "before"),
                    text(repair, "after"),
                    text(repair, "evidence").replace('_', " "),
                    repair["confidence"].as_f64().unwrap_or_default()
                );
            }
            out!("{} broken links left:", number(&answer, "unrepaired_count"));
            for left in answer["unrepaired"].as_array().into_iter().flatten() {
                let candidates: Vec<String> = left["candidates"]
                    .as_array()
                    .into_iter()
                    .flatten()
                    .map(|candidate| format!("{} ({:.2})", text(candidate, "target"), candidate["confidence"].as_f64().unwrap_or_default()))
                    .collect();
                let reason = text(left, "reason").replace('_', " ");
                out!("  {}:{}  {}  {reason}  {}", text(left, "note"), number(left, "line"), text(left, "link"), candidates.join(", "));
            }
            if dry_run {
                out!("Nothing was changed (--dry-run).");
            }
            crate::output::exit_after_answer(0)
        }
        Command::Mentions { vault, note, first_only, dry_run, output: Output { json, mode } } => {
            let mut router = Router::for_one_command(canonical_vault(&vault)?, mode);
            let mut arguments = json!({ "dry_run": dry_run, "first_only": first_only });
            if let Some(note) = note {
                arguments["path"] = json!(note);
            }
            // The first page holds the most mentions a page may; the count says how many there are.
            arguments["limit"] = json!(vaultlink_core::answer::MAX_LIMIT);
            let answer = call(&mut router, "link_mentions", arguments).await?;
            if json {
                out!("{}", serde_json::to_string_pretty(&answer)?);
                crate::output::exit_after_answer(0);
            }
            out!(
                "{} mentions in {} files {}:",
                number(&answer, "mentions_linked"),
                number(&answer, "notes_edited"),
                if dry_run { "would be linked" } else { "linked" }
            );
            for mention in answer["mentions"].as_array().into_iter().flatten() {
                out!("  {}:{}  {}  ->  {}", text(mention, "note"), number(mention, "line"), text(mention, "text"), text(mention, "link"));
            }
            if number(&answer, "ambiguous_count") > 0 {
                out!("{} names several notes share were left:", number(&answer, "ambiguous_count"));
                for name in answer["ambiguous"].as_array().into_iter().flatten() {
                    let notes: Vec<&str> = name["notes"].as_array().into_iter().flatten().filter_map(Value::as_str).collect();
                    out!("  {}  ({} mentions)  {}", text(name, "name"), number(name, "mentions"), notes.join(", "));
                }
            }
            if dry_run {
                out!("Nothing was changed (--dry-run).");
            } else if answer["applied"] == json!(true) {
                out!("Done: undo_change takes it back (change {}).", text(&answer, "change_id"));
            }
            crate::output::exit_after_answer(0)
        }
    }
}

async fn call(router: &mut Router, tool: &str, arguments: Value) -> Result<Value> {
    match router.call(tool, arguments).await {
        (served, Ok(value)) => {
            if served == Served::Plugin {
                tracing::info!("{tool}: answered by the Obsidian plugin");
            }
            Ok(value)
        }
        (_, Err(error)) => bail!("{} ({})\nhint: {}", error.message, error.code, error.hint),
    }
}

/// Calls a paged tool until the last page and returns every item of the list `items`.
async fn call_all(router: &mut Router, tool: &str, arguments: Value, items: &str) -> Result<Value> {
    let mut all = Vec::new();
    let mut arguments = arguments;
    arguments["limit"] = json!(vaultlink_core::ops::MAX_LIMIT);
    loop {
        let page = call(router, tool, arguments.clone()).await?;
        all.extend(page[items].as_array().cloned().unwrap_or_default());
        match page.get("next_cursor").and_then(Value::as_str) {
            Some(cursor) => arguments["cursor"] = json!(cursor),
            None => return Ok(Value::Array(all)),
        }
    }
}

fn with_limit(mut arguments: Value) -> Value {
    arguments["limit"] = json!(1);
    arguments
}

/// The lint report for people: one section per kind, in the order the kinds run.
fn print_lint(first: &Value, proposals: &Value) {
    let proposals = proposals.as_array().cloned().unwrap_or_default();
    let mut kinds: Vec<&str> = Vec::new();
    for proposal in &proposals {
        let kind = text(proposal, "kind");
        if !kinds.contains(&kind) {
            kinds.push(kind);
        }
    }
    for kind in &kinds {
        let of_kind: Vec<&Value> = proposals.iter().filter(|proposal| text(proposal, "kind") == *kind).collect();
        let code = vaultlink_core::lint::rule(kind).map_or_else(|| kind.replace('_', "-"), |rule| rule.code.to_owned());
        out!("{code} ({})", of_kind.len());
        for proposal in of_kind {
            let place = match proposal.get("line").and_then(Value::as_u64) {
                Some(line) => format!("{}:{line}", text(proposal, "subject")),
                None => text(proposal, "subject").to_owned(),
            };
            out!("  {place}");
            if let Some(detail) = proposal.get("detail").and_then(Value::as_str) {
                out!("    {detail}");
            }
            out!("    fix: {}", text(proposal, "suggested_action"));
            if let (Some(tool), Some(arguments)) = (proposal.get("tool").and_then(Value::as_str), proposal.get("tool_args")) {
                out!("    tool: {tool} {arguments}");
            }
        }
        out!("");
    }
    for skipped in first["skipped"].as_array().into_iter().flatten() {
        out!("skipped {}: {}", text(skipped, "kind"), text(skipped, "reason"));
    }
    if proposals.is_empty() {
        out!("No findings.");
    } else {
        out!("{} findings.", proposals.len());
    }
    let health = &first["health"];
    let count = |key: &str| health[key].as_u64().unwrap_or(0);
    out!(
        "Link health: {} notes, {} links; {} broken, {} ambiguous, {} orphans, {} dead ends, {} islands.",
        count("notes"),
        count("links"),
        count("broken_links"),
        count("ambiguous_links"),
        count("orphans"),
        count("dead_ends"),
        count("island_count")
    );
}

fn print_backlinks(backlinks: &Value) {
    let backlinks = backlinks.as_array().cloned().unwrap_or_default();
    if backlinks.is_empty() {
        out!("  (none: nothing links here)");
    }
    for link in &backlinks {
        let place = match link.get("key").and_then(Value::as_str) {
            Some(key) => format!("property `{key}`"),
            None => format!("{}:{}", number(link, "line"), number(link, "column")),
        };
        out!("  {} {place}  {} {}", text(link, "source"), text(link, "kind"), text(link, "target"));
    }
}

fn blocked_text(answer: &Value) -> String {
    let reasons: Vec<String> = answer["blocked_reasons"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|reason| match reason {
            "has_backlinks" => "links point to it".to_owned(),
            "concurrent_modification" => "it changed since it was read".to_owned(),
            "plan_hash_mismatch" => "the preview is out of date".to_owned(),
            other => other.replace('_', " "),
        })
        .collect();
    reasons.join(", ")
}

/// The detected moves for people: each move with its evidence and the links it broke, then the
/// cases left alone and why.
fn print_moves(first: &Value, moves: &Value, ambiguous: &Value) {
    if first["observed"] != true {
        out!("No earlier view of this vault to compare with: moves made from now on will be detected.");
        return;
    }
    let (moves, ambiguous) = (moves.as_array().cloned().unwrap_or_default(), ambiguous.as_array().cloned().unwrap_or_default());
    out!("{} moves made outside vaultlink, {} links broken", moves.len(), number(first, "links_broken"));
    for found in &moves {
        out!("  {} {} -> {}  ({})", text(found, "kind"), text(found, "from"), text(found, "to"), text(found, "evidence"));
        for link in found["links_broken"].as_array().into_iter().flatten() {
            out!("    broke {}:{} {}", text(link, "note"), number(link, "line"), text(link, "target"));
        }
    }
    if !ambiguous.is_empty() {
        out!("{} left alone:", ambiguous.len());
        for found in &ambiguous {
            out!("  {} ({}): {}", text(found, "from"), text(found, "why").replace('_', " "), text(found, "detail"));
        }
    }
    if number(first, "links_broken") > 0 {
        out!("Run vaultlink heal to rewrite the broken links.");
    }
}

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn number(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn print_links(outgoing: &Value, incoming: &Value) {
    let links = outgoing["links"].as_array().cloned().unwrap_or_default();
    let backlinks = incoming.as_array().map_or(0, Vec::len);
    out!("{}: {} links out, {} links in", text(outgoing, "path"), links.len(), backlinks);
    out!("\nLinks out:");
    if links.is_empty() {
        out!("  (none)");
    }
    for link in &links {
        let shown = match link.get("display").and_then(Value::as_str) {
            Some(display) => format!("{} | {display}", text(link, "target")),
            None => text(link, "target").to_owned(),
        };
        let destination = match (text(link, "status"), text(link, "resolved_path")) {
            ("resolved", path) => path.to_owned(),
            ("ambiguous", path) => format!("{path} (ambiguous)"),
            _ => "unresolved".to_owned(),
        };
        out!("  {:>4}:{:<3} {:<14} {shown}  ->  {destination}", number(link, "line"), number(link, "column"), text(link, "kind"));
    }
    out!("\nLinks in:");
    print_backlinks(incoming);
}

fn print_summary(vault: &std::path::Path, summary: &Value) {
    out!("Vault {}", vault.display());
    out!("  notes             {}", number(summary, "notes"));
    out!("  attachments       {}", number(summary, "attachments"));
    out!("  links             {}", number(summary, "links"));
    out!("    resolved        {}", number(summary, "resolved_links"));
    out!("    ambiguous       {}", number(summary, "ambiguous_links"));
    out!("    unresolved      {}", number(summary, "unresolved_links"));
}

/// The server's router, waiting `wait_for_plugin` seconds for a plugin still indexing.
fn router(vault: PathBuf, mode: Mode, wait_for_plugin: u64) -> Router {
    let router = Router::new(vault, mode).with_startup_wait(std::time::Duration::from_secs(wait_for_plugin)).with_persistent_index();
    router.start_indexing();
    router
}

#[cfg(test)]
mod version_tests {
    #[test]
    fn the_version_line_names_the_protocol_the_bridge_speaks() {
        assert_eq!(super::VERSION_LINE, format!("{} (bridge protocol {})", env!("CARGO_PKG_VERSION"), crate::discovery::PROTOCOL));
    }
}

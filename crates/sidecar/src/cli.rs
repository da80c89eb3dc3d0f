//! The command line: `mcp` for agents, and readable commands for people that run the same
//! calls as the MCP tools.

use std::path::PathBuf;

use anyhow::{bail, Result};
use clap::{Parser, Subcommand};
use serde_json::{json, Value};

use crate::standalone::canonical_vault;
use crate::tools::{Mode, Router, Served};

#[derive(Debug, Parser)]
#[command(name = "vaultlink", version, about = "Links of an Obsidian vault, parsed and resolved as Obsidian does.")]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
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
    },
    /// Show a note's links and the links that point to it.
    Links {
        /// The vault folder.
        vault: PathBuf,
        /// The note's path relative to the vault, `.md` optional.
        note: String,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
        #[arg(long, value_enum, default_value_t = Mode::Auto)]
        mode: Mode,
    },
    /// Count the vault's notes, attachments and links.
    Summary {
        /// The vault folder.
        vault: PathBuf,
        /// Print JSON instead of text.
        #[arg(long)]
        json: bool,
    },
}

pub async fn run(cli: Cli) -> Result<()> {
    match cli.command {
        Command::Mcp { vault, mode } => {
            let vault = canonical_vault(&vault)?;
            tracing::info!("serving MCP for {} (mode {mode:?})", vault.display());
            crate::mcp::serve_stdio(Router::new(vault, mode)).await
        }
        Command::Links { vault, note, json, mode } => {
            let mut router = Router::new(canonical_vault(&vault)?, mode);
            let outgoing = call(&mut router, "get_outgoing_links", json!({ "path": note })).await?;
            let incoming = call(&mut router, "get_backlinks", json!({ "path": note })).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&json!({"outgoing": outgoing, "backlinks": incoming}))?);
            } else {
                print_links(&outgoing, &incoming);
            }
            Ok(())
        }
        Command::Summary { vault, json } => {
            let mut router = Router::new(canonical_vault(&vault)?, Mode::Standalone);
            let summary = call(&mut router, "vault_summary", json!({})).await?;
            if json {
                println!("{}", serde_json::to_string_pretty(&summary)?);
            } else {
                print_summary(router.vault(), &summary);
            }
            Ok(())
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

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or("")
}

fn number(value: &Value, key: &str) -> u64 {
    value.get(key).and_then(Value::as_u64).unwrap_or(0)
}

fn print_links(outgoing: &Value, incoming: &Value) {
    let links = outgoing["links"].as_array().cloned().unwrap_or_default();
    let backlinks = incoming["backlinks"].as_array().cloned().unwrap_or_default();
    println!("{}: {} links out, {} links in", text(outgoing, "path"), links.len(), backlinks.len());
    println!("\nLinks out:");
    if links.is_empty() {
        println!("  (none)");
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
        println!(
            "  {:>4}:{:<3} {:<14} {shown}  ->  {destination}",
            number(link, "line"),
            number(link, "column"),
            text(link, "kind")
        );
    }
    println!("\nLinks in:");
    if backlinks.is_empty() {
        println!("  (none: nothing links here)");
    }
    for link in &backlinks {
        println!(
            "  {}:{}:{}  {} {}",
            text(link, "source"),
            number(link, "line"),
            number(link, "column"),
            text(link, "kind"),
            text(link, "target")
        );
    }
}

fn print_summary(vault: &std::path::Path, summary: &Value) {
    println!("Vault {}", vault.display());
    println!("  notes             {}", number(summary, "notes"));
    println!("  attachments       {}", number(summary, "attachments"));
    println!("  links             {}", number(summary, "links"));
    println!("    resolved        {}", number(summary, "resolved_links"));
    println!("    ambiguous       {}", number(summary, "ambiguous_links"));
    println!("    unresolved      {}", number(summary, "unresolved_links"));
}

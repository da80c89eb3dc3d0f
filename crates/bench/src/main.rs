//! `vaultlink-bench`: measures the core on vault folders and prints a Markdown table.
//!
//! Usage: `cargo run --release -p vaultlink-bench -- parse <vault folder>...`
//!        `cargo run --release -p vaultlink-bench -- index <vault folder>...`
//!
//! Each figure is the median of several runs on one core, beside a floor measured in the same
//! run: absolute times drift on shared machines, ratios much less.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use pulldown_cmark::{Options, Parser};
use vaultlink_core::index::IndexConfig;
use vaultlink_core::parse::{parse_note, LinkSource, ParseConfig};
use vaultlink_core::Vault;

/// The process's resident memory in bytes (Linux), for the index's memory: the growth while
/// the index is built, with the note texts already loaded.
fn held_bytes() -> isize {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|line| line.strip_prefix("VmRSS:"))
        .and_then(|value| value.trim().trim_end_matches("kB").trim().parse::<isize>().ok())
        .map_or(0, |kilobytes| kilobytes * 1024)
}

/// Runs per figure; the median is reported.
const RUNS: usize = 9;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_default();
    let folders: Vec<PathBuf> = args.map(PathBuf::from).collect();
    if folders.is_empty() {
        bail!("usage: vaultlink-bench parse|index <vault folder>...");
    }
    match command.as_str() {
        "parse" => {
            println!("| vault | notes | MB | pulldown-cmark only | vaultlink parse_note | ratio | links | property links |");
            println!("|---|---:|---:|---:|---:|---:|---:|---:|");
            for folder in folders {
                parse(&folder)?;
            }
        }
        "index" => {
            println!("| vault | notes | floor: read files | floor: read + pulldown-cmark | index from disk | ratio to floor | in-memory rebuild | one-note update median / p99 | index memory / Markdown bytes |");
            println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            for folder in folders {
                index(&folder)?;
            }
        }
        // One in-memory build and nothing else, for a profiler (valgrind --tool=callgrind).
        "index-once" => {
            for folder in folders {
                let notes = read_vault(&folder)?;
                let mut vault = Vault::new(IndexConfig::obsidian_defaults());
                for note in &notes {
                    vault.upsert(&note.path, &note.text);
                }
                println!("{}: {} notes", folder.display(), vault.note_count());
            }
        }
        _ => bail!("usage: vaultlink-bench parse|index|index-once <vault folder>..."),
    }
    Ok(())
}

struct Note {
    path: String,
    text: String,
}

fn read_vault(root: &Path) -> Result<Vec<Note>> {
    let mut notes = Vec::new();
    let mut stack = vec![root.to_path_buf()];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).with_context(|| format!("reading {}", dir.display()))? {
            let path = entry?.path();
            if path.file_name().is_some_and(|name| name.to_string_lossy().starts_with('.')) {
                continue;
            }
            if path.is_dir() {
                stack.push(path);
            } else if path.extension().is_some_and(|extension| extension == "md") {
                let text = String::from_utf8_lossy(&std::fs::read(&path)?).into_owned();
                let relative = path.strip_prefix(root)?.to_string_lossy().replace('\\', "/");
                notes.push(Note { path: relative, text });
            }
        }
    }
    notes.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(notes)
}

fn median(mut run: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..RUNS)
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[RUNS / 2]
}

fn megabytes_per_second(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64()
}

fn parse(folder: &Path) -> Result<()> {
    let notes = read_vault(folder)?;
    let bytes: usize = notes.iter().map(|note| note.text.len()).sum();
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH;
    let floor = median(|| {
        let events: usize = notes.iter().map(|note| Parser::new_ext(&note.text, options).into_offset_iter().count()).sum();
        std::hint::black_box(events);
    });
    let ours = median(|| {
        for note in &notes {
            std::hint::black_box(parse_note(&note.path, &note.text, &ParseConfig::OBSIDIAN));
        }
    });
    let (mut links, mut property_links) = (0, 0);
    for note in &notes {
        let parsed = parse_note(&note.path, &note.text, &ParseConfig::OBSIDIAN);
        links += parsed.links.len();
        property_links += parsed.links.iter().filter(|link| matches!(link.source, LinkSource::Property { .. })).count();
    }
    let name = folder.file_name().map_or_else(|| folder.display().to_string(), |name| name.to_string_lossy().into_owned());
    println!(
        "| {name} | {} | {:.1} | {:.0} MB/s ({:.1} ms) | {:.0} MB/s ({:.1} ms) | {:.2} | {links} | {property_links} |",
        notes.len(),
        bytes as f64 / 1e6,
        megabytes_per_second(bytes, floor),
        floor.as_secs_f64() * 1e3,
        megabytes_per_second(bytes, ours),
        ours.as_secs_f64() * 1e3,
        ours.as_secs_f64() / floor.as_secs_f64(),
    );
    Ok(())
}

fn milliseconds(time: Duration) -> String {
    format!("{:.1} ms", time.as_secs_f64() * 1e3)
}

fn index(folder: &Path) -> Result<()> {
    let notes = read_vault(folder)?;
    let bytes: usize = notes.iter().map(|note| note.text.len()).sum();
    // Memory first, before other runs leave freed memory for the index to reuse.
    let before = held_bytes();
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    for note in &notes {
        vault.upsert(&note.path, &note.text);
    }
    let memory = held_bytes() - before;
    drop(vault);
    let read_floor = median(|| {
        std::hint::black_box(read_vault(folder).expect("the vault reads"));
    });
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH;
    let parse_floor = median(|| {
        let notes = read_vault(folder).expect("the vault reads");
        let events: usize = notes.iter().map(|note| Parser::new_ext(&note.text, options).into_offset_iter().count()).sum();
        std::hint::black_box(events);
    });
    let from_disk = median(|| {
        let notes = read_vault(folder).expect("the vault reads");
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        for note in &notes {
            vault.upsert(&note.path, &note.text);
        }
        std::hint::black_box(vault);
    });
    let in_memory = median(|| {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        for note in &notes {
            vault.upsert(&note.path, &note.text);
        }
        std::hint::black_box(vault);
    });
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    for note in &notes {
        vault.upsert(&note.path, &note.text);
    }
    // Re-index notes one at a time, as an edit does; every 13th note, for a spread of sizes.
    let mut updates: Vec<Duration> = notes
        .iter()
        .step_by(13)
        .map(|note| {
            let start = Instant::now();
            vault.upsert(&note.path, &note.text);
            start.elapsed()
        })
        .collect();
    updates.sort();
    let update_median = updates[updates.len() / 2];
    let update_p99 = updates[(updates.len() * 99 / 100).min(updates.len() - 1)];
    let name = folder.file_name().map_or_else(|| folder.display().to_string(), |name| name.to_string_lossy().into_owned());
    println!(
        "| {name} | {} | {} | {} | {} | {:.2} | {} | {:.1} µs / {:.1} µs | {:.1} MB / {:.1} MB ({:.2}) |",
        notes.len(),
        milliseconds(read_floor),
        milliseconds(parse_floor),
        milliseconds(from_disk),
        from_disk.as_secs_f64() / parse_floor.as_secs_f64(),
        milliseconds(in_memory),
        update_median.as_secs_f64() * 1e6,
        update_p99.as_secs_f64() * 1e6,
        memory as f64 / 1e6,
        bytes as f64 / 1e6,
        memory as f64 / bytes as f64,
    );
    Ok(())
}

//! `vaultlink-bench`: measures the core on vault folders and prints a Markdown table.
//!
//! Usage: `cargo run --release -p vaultlink-bench -- parse <vault folder>...`
//!        `cargo run --release -p vaultlink-bench -- index <vault folder>...`
//!        `cargo run --release -p vaultlink-bench -- lint <vault folder>...`
//!        `cargo run --release -p vaultlink-bench -- move <vault folder>...`
//!        `cargo run --release -p vaultlink-bench -- generate <notes> <new folder> [seed]`
//!        `cargo run --release -p vaultlink-bench -- find-page <vault folder>`
//!
//! Each figure is the median of several runs on one core, beside a floor measured in the same
//! run: absolute times drift on shared machines, ratios much less.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};
use vaultlink_core::error::Failure;

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

/// Appends one figure to the file named by `VAULTLINK_BENCH_FIGURES`, one JSON object a line,
/// for `vaultlink-bench targets`; does nothing when the variable is not set.
fn record(vault: &str, figure: &str, value: f64) {
    let Some(file) = std::env::var_os("VAULTLINK_BENCH_FIGURES") else { return };
    let line = serde_json::json!({"vault": vault, "figure": figure, "value": value}).to_string();
    let written = std::fs::OpenOptions::new().create(true).append(true).open(&file).and_then(|mut out| {
        use std::io::Write;
        writeln!(out, "{line}")
    });
    if let Err(error) = written {
        eprintln!("vaultlink-bench: cannot record to {}: {error}", Path::new(&file).display());
    }
}

/// The last component of a folder, as the tables name vaults.
fn vault_name(folder: &Path) -> String {
    folder.file_name().map_or_else(|| folder.display().to_string(), |name| name.to_string_lossy().into_owned())
}

/// Runs per figure on a vault under `LARGE_NOTES` notes; the median is reported.
const RUNS: usize = 9;

/// Runs per figure from `LARGE_NOTES` notes on, where one run takes seconds: three still give a
/// median, and nine would hold the whole benchmark for many minutes.
const LARGE_RUNS: usize = 3;
const LARGE_NOTES: usize = 50_000;

/// How many runs each figure of the vault being measured takes (`RUNS` or `LARGE_RUNS`), set by
/// `runs_for` once its notes are read.
static RUNS_NOW: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(RUNS);

/// Sets the runs for a vault of `notes` notes and answers them.
fn runs_for(notes: usize) -> usize {
    let runs = if notes >= LARGE_NOTES { LARGE_RUNS } else { RUNS };
    RUNS_NOW.store(runs, std::sync::atomic::Ordering::Relaxed);
    runs
}

fn runs() -> usize {
    RUNS_NOW.load(std::sync::atomic::Ordering::Relaxed)
}

mod generate;
mod goals;

fn main() -> Result<()> {
    let mut args = std::env::args().skip(1);
    let command = args.next().unwrap_or_default();
    if command == "targets" {
        let file = args.next().context("usage: vaultlink-bench targets <figures.jsonl>")?;
        return targets(Path::new(&file));
    }
    // The index's memory for one vault, in a process of its own: in a process that indexed
    // another vault before, the new index reuses the memory the old one freed.
    if command == "index-memory" {
        let folder = PathBuf::from(args.next().context("usage: vaultlink-bench index-memory <vault folder>")?);
        let notes = read_vault(&folder)?;
        let before = held_bytes();
        let vault = build(&notes);
        println!("{}", held_bytes() - before);
        // The same index counted structure by structure, on the next line.
        println!("{}", serde_json::to_string(&vault.memory())?);
        drop(vault);
        return Ok(());
    }
    if command == "most-linked" {
        let folder = PathBuf::from(args.next().context("usage: vaultlink-bench most-linked <vault folder>")?);
        let vault = build(&read_vault(&folder)?);
        println!("{}", most_linked(&vault).context("the vault has no notes")?);
        return Ok(());
    }
    // The floor's one pass as a whole process, timed from outside beside vaultlink's whole
    // processes (scripts/bench_first_answer.py): the same start, reading and exit costs.
    if command == "floor-once" {
        let folder = PathBuf::from(args.next().context("usage: vaultlink-bench floor-once <vault folder>")?);
        println!("{}", parse_floor_pass(&folder)?);
        return Ok(());
    }
    if command == "find-page" {
        let folder = PathBuf::from(args.next().context("usage: vaultlink-bench find-page <vault folder>")?);
        return find_page(&folder);
    }
    if command == "generate" {
        let usage = "usage: vaultlink-bench generate <notes> <new folder> [seed]";
        let count: usize = args.next().and_then(|count| count.parse().ok()).context(usage)?;
        let dir = PathBuf::from(args.next().context(usage)?);
        let seed = args.next().map(|seed| seed.parse::<u64>()).transpose().context(usage)?.unwrap_or(1);
        let bytes = generate::write_vault(&dir, count, seed)?;
        println!("{}: {count} notes, {:.1} MB of Markdown (seed {seed})", dir.display(), bytes as f64 / 1e6);
        return Ok(());
    }
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
            println!("| vault | notes | floor: read files | floor: read + pulldown-cmark + YAML | index from disk (one core) | ratio to floor | in-memory rebuild | one-note update median / p99 | index memory / Markdown bytes |");
            println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            let mut breakdowns = Vec::new();
            for folder in folders {
                breakdowns.push(index(&folder)?);
            }
            println!();
            println!("Index memory by structure (counted by `Vault::memory`: bytes asked of the allocator, beside the resident memory measured above):");
            println!();
            println!("| vault | notes (file table, headings, block ids) | links | resolutions | reverse index | names | sketches | facts | counted | measured | per note |");
            println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            for row in breakdowns {
                println!("{row}");
            }
        }
        "lint" => {
            println!(
                "| vault | notes | index in memory | lint without near_duplicate | ratio | near_duplicate pass | sketching every body (once, on the first near_duplicate) | findings | find_existing_page (median of 9 topics) |"
            );
            println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|");
            for folder in folders {
                lint(&folder)?;
            }
        }
        "move" => {
            println!("| vault | what moves | notes edited | links changed | plan and proof (median) |");
            println!("|---|---|---:|---:|---:|");
            for folder in folders {
                moves(&folder)?;
            }
        }
        // The plan and proof of the most-linked note's move, once each, for a profiler
        // (`perf record`, or valgrind --tool=callgrind --toggle-collect='*plan_move*').
        "move-once" => {
            for folder in folders {
                let notes = read_vault(&folder)?;
                let texts: std::collections::HashMap<String, String> =
                    notes.iter().map(|note| (note.path.clone(), note.text.clone())).collect();
                let vault = build(&notes);
                let from = most_linked(&vault).map(str::to_owned).context("the vault has no notes")?;
                let to = format!("moved/{} (renamed).md", from.rsplit('/').next().unwrap_or(&from).trim_end_matches(".md"));
                let start = Instant::now();
                let needed = vaultlink_core::rename::notes_to_read(&vault, &from, &to)?;
                let named = start.elapsed();
                let wanted: std::collections::BTreeMap<String, String> =
                    needed.into_iter().map(|path| (path.clone(), texts[&path].clone())).collect();
                let read = start.elapsed();
                let plan = vaultlink_core::rename::plan_move(&vault, &from, &to, &wanted)?;
                println!(
                    "{}: {from}: {} notes edited, {} links changed; notes_to_read {}, texts {}, plan_move {}",
                    folder.display(),
                    plan.edits.len(),
                    plan.changes.len(),
                    milliseconds(named),
                    milliseconds(read - named),
                    milliseconds(start.elapsed() - read)
                );
            }
        }
        // The plan of many moves, each as its hash or its refusal, to compare two builds.
        "move-hashes" => {
            for folder in folders {
                let notes = read_vault(&folder)?;
                let texts: std::collections::BTreeMap<String, String> =
                    notes.iter().map(|note| (note.path.clone(), note.text.clone())).collect();
                let vault = build(&notes);
                let paths: Vec<&str> = vault.paths().collect();
                let mut cases: Vec<(String, String)> = Vec::new();
                if let Some(most) = most_linked(&vault) {
                    cases.push((
                        most.to_owned(),
                        format!("moved/{} (renamed).md", most.rsplit('/').next().unwrap_or(most).trim_end_matches(".md")),
                    ));
                    cases.push((most.to_owned(), "Elsewhere.md".to_owned()));
                }
                let step = (paths.len() / 60).max(1);
                for (at, path) in paths.iter().enumerate().step_by(step) {
                    let name = path.rsplit('/').next().unwrap_or(path);
                    let other = paths[(at * 7 + 3) % paths.len()];
                    let other_folder = other.rsplit_once('/').map_or("", |(folder, _)| folder);
                    cases.push(((*path).to_owned(), format!("{other_folder}/{name}").trim_start_matches('/').to_owned()));
                    cases.push(((*path).to_owned(), format!("x/{}", other.rsplit('/').next().unwrap_or(other))));
                    if let Some((folder, _)) = path.rsplit_once('/') {
                        cases.push((folder.to_owned(), format!("archive/{folder}")));
                    }
                }
                for (from, to) in cases {
                    let planned = vaultlink_core::rename::notes_to_read(&vault, &from, &to).and_then(|needed| {
                        let wanted: std::collections::BTreeMap<String, String> =
                            needed.into_iter().map(|path| (path.clone(), texts[&path].clone())).collect();
                        vaultlink_core::rename::plan_move(&vault, &from, &to, &wanted)
                    });
                    match planned {
                        Ok(plan) => {
                            println!("{from} -> {to}: {} ({} edits, {} changes)", plan.plan_hash, plan.edits.len(), plan.changes.len())
                        }
                        Err(error) => println!("{from} -> {to}: refused: {}", error.message()),
                    }
                }
            }
        }
        // One in-memory build and nothing else, for a profiler (valgrind --tool=callgrind).
        "index-once" => {
            for folder in folders {
                // Built as the sidecar builds it (`build`), for a profile of what the index
                // bench times.
                let notes = read_vault(&folder)?;
                let vault = build(&notes);
                println!("{}: {} notes", folder.display(), vault.note_count());
            }
        }
        _ => bail!("usage: vaultlink-bench parse|index|lint|move|move-once|index-once <vault folder>..."),
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

/// The memory an index of the vault at `folder` holds, measured in a new process of this
/// program (`index-memory`), so no memory freed by earlier work is reused: the growth of the
/// resident memory, and the index's own count by structure.
fn index_memory(folder: &Path) -> Result<(isize, serde_json::Value)> {
    let output = std::process::Command::new(std::env::current_exe()?).arg("index-memory").arg(folder).output()?;
    if !output.status.success() {
        bail!("measuring the index's memory failed: {}", String::from_utf8_lossy(&output.stderr));
    }
    let output = String::from_utf8_lossy(&output.stdout);
    let mut lines = output.lines();
    let resident = lines.next().unwrap_or_default().trim().parse().context("index-memory printed no number")?;
    let counted = serde_json::from_str(lines.next().unwrap_or_default()).context("index-memory printed no count by structure")?;
    Ok((resident, counted))
}

/// The note with the most links in (the first by path among equals).
fn most_linked(vault: &Vault) -> Option<&str> {
    vault.note_paths().max_by_key(|path| (vault.backlinks(path).len(), std::cmp::Reverse(*path)))
}

/// An index of `notes` built as the sidecar builds one (each note prepared, then all inserted
/// at once), on this one thread.
fn build(notes: &[Note]) -> Vault {
    let mut vault = Vault::new(IndexConfig::obsidian_defaults());
    let parse = vault.config().parse;
    let prepared = notes.iter().map(|note| (note.path.clone(), Vault::prepare(&parse, &note.path, &note.text))).collect();
    vault.insert_prepared_many(prepared);
    vault
}

fn median(mut run: impl FnMut()) -> Duration {
    let mut times: Vec<Duration> = (0..runs())
        .map(|_| {
            let start = Instant::now();
            run();
            start.elapsed()
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

/// `median` of a call that answers something: what it answers (and what it holds) is dropped
/// once its time is taken, since freeing a plan is no part of making it.
fn median_answer<T>(mut run: impl FnMut() -> T) -> Duration {
    let mut times: Vec<Duration> = (0..runs())
        .map(|_| {
            let start = Instant::now();
            let answer = std::hint::black_box(run());
            let time = start.elapsed();
            drop(answer);
            time
        })
        .collect();
    times.sort();
    times[times.len() / 2]
}

fn megabytes_per_second(bytes: usize, time: Duration) -> f64 {
    bytes as f64 / 1e6 / time.as_secs_f64()
}

fn parse(folder: &Path) -> Result<()> {
    let notes = read_vault(folder)?;
    runs_for(notes.len());
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
    let name = vault_name(folder);
    record(&name, "parse_mb_per_s", megabytes_per_second(bytes, ours));
    record(&name, "parse_ms", ours.as_secs_f64() * 1e3);
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

/// The floor: read every file, run pulldown-cmark over it and serde_yaml over its frontmatter,
/// and keep nothing; answers the number of events seen, so the work cannot be left out.
fn parse_floor_pass(folder: &Path) -> Result<usize> {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH | Options::ENABLE_MATH;
    let notes = read_vault(folder)?;
    Ok(notes
        .iter()
        .map(|note| {
            let yaml = vaultlink_core::frontmatter::find_block(&note.text)
                .map(|block| serde_yaml::from_str::<serde_yaml::Value>(&note.text[block.content.range()]).is_ok());
            Parser::new_ext(&note.text, options).into_offset_iter().count() + usize::from(yaml == Some(true))
        })
        .sum())
}

/// The index table's row for the vault at `folder`; answers the row of the memory table.
fn index(folder: &Path) -> Result<String> {
    let notes = read_vault(folder)?;
    runs_for(notes.len());
    let bytes: usize = notes.iter().map(|note| note.text.len()).sum();
    let (memory, counted) = index_memory(folder)?;
    let read_floor = median(|| {
        std::hint::black_box(read_vault(folder).expect("the vault reads"));
    });
    let parse_floor = median(|| {
        std::hint::black_box(parse_floor_pass(folder).expect("the vault reads"));
    });
    let from_disk = median(|| {
        let notes = read_vault(folder).expect("the vault reads");
        std::hint::black_box(build(&notes));
    });
    let in_memory = median(|| {
        std::hint::black_box(build(&notes));
    });
    let mut vault = build(&notes);
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
    let name = vault_name(folder);
    record(&name, "notes", notes.len() as f64);
    record(&name, "read_floor_ms", read_floor.as_secs_f64() * 1e3);
    record(&name, "parse_floor_ms", parse_floor.as_secs_f64() * 1e3);
    record(&name, "index_from_disk_ms", from_disk.as_secs_f64() * 1e3);
    record(&name, "in_memory_ms", in_memory.as_secs_f64() * 1e3);
    record(&name, "update_median_us", update_median.as_secs_f64() * 1e6);
    record(&name, "update_p99_us", update_p99.as_secs_f64() * 1e6);
    record(&name, "index_memory_mb", memory as f64 / 1e6);
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
    record(&name, "index_ms_per_note", from_disk.as_secs_f64() * 1e3 / notes.len().max(1) as f64);
    record(&name, "index_memory_bytes_per_note", memory as f64 / notes.len().max(1) as f64);
    let parts = ["notes", "links", "resolutions", "reverse_index", "names", "sketches", "facts"];
    let mut row = format!("| {name} |");
    let mut total = 0.0;
    for part in parts {
        let value = counted[part].as_f64().unwrap_or(0.0);
        total += value;
        record(&name, &format!("memory_{part}_mb"), value / 1e6);
        row.push_str(&format!(" {:.1} MB |", value / 1e6));
    }
    record(&name, "memory_counted_mb", total / 1e6);
    row.push_str(&format!(" {:.1} MB | {:.1} MB | {:.0} B |", total / 1e6, memory as f64 / 1e6, memory as f64 / notes.len().max(1) as f64));
    Ok(row)
}

/// Plans (with its proof) the move of the most-linked note and of the folder nearest 500
/// notes, from texts in memory, as the sidecar does after reading them.
fn moves(folder: &Path) -> Result<()> {
    let notes = read_vault(folder)?;
    runs_for(notes.len());
    // The texts as an edge holds them once read; a hash map, so that looking up the notes a plan
    // names costs no more than the edge's read would.
    let texts: std::collections::HashMap<String, String> = notes.iter().map(|note| (note.path.clone(), note.text.clone())).collect();
    let vault = build(&notes);
    let most_linked = most_linked(&vault).map(str::to_owned).context("the vault has no notes")?;
    let mut folder_sizes: std::collections::BTreeMap<String, usize> = std::collections::BTreeMap::new();
    // Notes in each folder and below it: moving a folder moves them all.
    for path in vault.note_paths() {
        for (at, _) in path.match_indices('/') {
            *folder_sizes.entry(path[..at].to_owned()).or_default() += 1;
        }
    }
    let folder_to_move = folder_sizes.iter().min_by_key(|(_, count)| count.abs_diff(500)).map(|(folder, count)| (folder.clone(), *count));
    let name = vault_name(folder);
    // A rename, so every link to the note must be rewritten.
    let renamed = format!("moved/{} (renamed).md", most_linked.rsplit('/').next().unwrap_or(&most_linked).trim_end_matches(".md"));
    let mut cases = vec![(
        "move_most_linked_ms",
        format!("{most_linked} ({} links in), renamed", vault.backlinks(&most_linked).len()),
        most_linked.clone(),
        renamed,
    )];
    if let Some((folder_path, count)) = folder_to_move {
        record(&name, "move_folder_notes", count as f64);
        cases.push((
            "move_folder_ms",
            format!("folder {folder_path} ({count} notes)"),
            folder_path.clone(),
            format!("moved/{folder_path}"),
        ));
    }
    for (figure, what, from, to) in cases {
        // The plan and the texts it was made from, both dropped after the time is taken.
        let plan_once = || {
            let needed = vaultlink_core::rename::notes_to_read(&vault, &from, &to)?;
            let wanted: std::collections::BTreeMap<String, String> =
                needed.into_iter().map(|path| (path.clone(), texts[&path].clone())).collect();
            vaultlink_core::rename::plan_move(&vault, &from, &to, &wanted).map(|plan| (plan, wanted))
        };
        match plan_once() {
            Ok((plan, _)) => {
                let time = median_answer(|| plan_once().expect("planned once already"));
                record(&name, figure, time.as_secs_f64() * 1e3);
                println!("| {name} | {what} | {} | {} | {} |", plan.edits.len(), plan.changes.len(), milliseconds(time));
            }
            Err(error) => println!("| {name} | {what} | refused: {} | | |", error.code()),
        }
    }
    Ok(())
}

/// `find_existing_page` on every title of the vault and on every distinct word of those titles
/// as a topic of its own (a word shared by many names is the costly case): each the fastest of
/// three runs, the median, 99th percentile and slowest printed, with the slowest topic.
fn find_page(folder: &Path) -> Result<()> {
    use vaultlink_core::ops::{self, FindPageArguments, ResponseFormat};
    let notes = read_vault(folder)?;
    let vault = build(&notes);
    let titles: Vec<String> =
        notes.iter().map(|note| note.path.rsplit('/').next().unwrap_or(&note.path).trim_end_matches(".md").to_owned()).collect();
    let mut words: Vec<String> = titles.iter().flat_map(|title| vaultlink_core::words::topic_words(title)).collect();
    words.sort_unstable();
    words.dedup();
    type Find = fn(&Vault, &FindPageArguments) -> Result<ops::ExistingPage, ops::OpError>;
    let every_note: Find = vaultlink_core::existing::find_existing_page_comparing_every_note;
    // Comparing every note takes milliseconds a topic: a spread of 300 titles.
    let spread: Vec<String> = titles.iter().step_by(titles.len() / 300 + 1).cloned().collect();
    let runs: [(&str, &Vec<String>, Find); 3] = [
        ("titles", &titles, ops::find_existing_page),
        ("words of titles", &words, ops::find_existing_page),
        ("titles compared with every note (the reference, as before the index of names)", &spread, every_note),
    ];
    for (what, topics, find) in runs {
        let mut times: Vec<(Duration, &str)> = topics
            .iter()
            .map(|topic| {
                let arguments = FindPageArguments { topic: topic.clone(), limit: None, response_format: ResponseFormat::Concise };
                // The fastest of three: a topic's own cost, not the moment the machine was busy.
                let fastest = (0..3)
                    .map(|_| {
                        let start = Instant::now();
                        std::hint::black_box(find(&vault, &arguments).ok());
                        start.elapsed()
                    })
                    .min()
                    .unwrap_or_default();
                (fastest, topic.as_str())
            })
            .collect();
        times.sort();
        let at = |share: f64| times[((times.len() - 1) as f64 * share) as usize].0.as_secs_f64() * 1e3;
        let slowest: Vec<String> =
            times.iter().rev().take(3).map(|(time, topic)| format!("{topic:?} {:.3} ms", time.as_secs_f64() * 1e3)).collect();
        println!(
            "{}: {} {what}: median {:.3} ms, p99 {:.3} ms, slowest {}",
            vault_name(folder),
            times.len(),
            at(0.5),
            at(0.99),
            slowest.join(", ")
        );
    }
    Ok(())
}

/// The whole lint (every kind that can run) beside the index build it queries, and
/// `find_existing_page` for a spread of the vault's own titles.
fn lint(folder: &Path) -> Result<()> {
    use vaultlink_core::ops::{self, FindPageArguments, LintArguments, ResponseFormat};
    let notes = read_vault(folder)?;
    runs_for(notes.len());
    let build = || {
        let mut vault = Vault::new(IndexConfig::obsidian_defaults());
        for note in &notes {
            vault.upsert(&note.path, &note.text);
        }
        vault
    };
    let index_time = median(|| {
        std::hint::black_box(build());
    });
    let mut vault = build();
    // The sketches `near_duplicate` asks for, made once as an edge makes them before the first lint.
    let texts: std::collections::HashMap<&str, &str> = notes.iter().map(|note| (note.path.as_str(), note.text.as_str())).collect();
    vault.sketch_notes(&mut |path| texts.get(path).map(|text| (*text).to_owned()));
    let arguments = LintArguments {
        folder: None,
        excluded_folders: Vec::new(),
        kinds: None,
        limit: Some(ops::MAX_LIMIT),
        cursor: None,
        response_format: ResponseFormat::Concise,
    };
    let findings = ops::lint_wiki(&vault, &arguments).map(|report| report.total).unwrap_or(0);
    let others: Vec<String> =
        vaultlink_core::lint::RULES.iter().filter(|rule| rule.kind != "near_duplicate").map(|rule| rule.kind.to_owned()).collect();
    let without_near = LintArguments { kinds: Some(others), ..arguments.clone() };
    let lint_time = median(|| {
        std::hint::black_box(ops::lint_wiki(&vault, &without_near).ok());
    });
    let near_only = LintArguments { kinds: Some(vec!["near_duplicate".to_owned()]), ..arguments.clone() };
    let near_time = median(|| {
        std::hint::black_box(ops::lint_wiki(&vault, &near_only).ok());
    });
    let sketch_time = median(|| {
        for note in &notes {
            let body_start = vaultlink_core::frontmatter::find_block(&note.text).map_or(0, |block| block.span.end);
            std::hint::black_box(vaultlink_core::sketch::Sketch::of_body(&note.text[body_start..]));
        }
    });
    let topics: Vec<String> = notes
        .iter()
        .step_by(notes.len() / 9 + 1)
        .map(|note| note.path.rsplit('/').next().unwrap_or(&note.path).trim_end_matches(".md").to_owned())
        .collect();
    let mut page_times: Vec<Duration> = topics
        .iter()
        .map(|topic| {
            let arguments = FindPageArguments { topic: topic.clone(), limit: None, response_format: ResponseFormat::Concise };
            let start = Instant::now();
            std::hint::black_box(ops::find_existing_page(&vault, &arguments).ok());
            start.elapsed()
        })
        .collect();
    page_times.sort();
    let name = vault_name(folder);
    let page_median = page_times[page_times.len() / 2];
    record(&name, "lint_ms", lint_time.as_secs_f64() * 1e3);
    record(&name, "lint_index_ms", index_time.as_secs_f64() * 1e3);
    record(&name, "near_duplicate_ms", near_time.as_secs_f64() * 1e3);
    record(&name, "find_existing_page_ms", page_median.as_secs_f64() * 1e3);
    println!(
        "| {name} | {} | {} | {} | {:.2} | {} | {} | {findings} | {:.2} ms |",
        notes.len(),
        milliseconds(index_time),
        milliseconds(lint_time),
        lint_time.as_secs_f64() / index_time.as_secs_f64(),
        milliseconds(near_time),
        milliseconds(sketch_time),
        page_median.as_secs_f64() * 1e3,
    );
    Ok(())
}

/// One row of the targets table: what is measured, on which vault, the figure the issue gave
/// when it set the target, the target, and this run's figure (`None` when the run did not
/// measure it). `value` is what the target compares, `shown` how the figure is written.
struct Target {
    what: String,
    vault: String,
    now: &'static str,
    target: &'static str,
    figure: Option<(f64, String)>,
    /// The value must be at most this (or, with `at_least`, at least this).
    limit: f64,
    at_least: bool,
}

impl Target {
    /// The row with the issue's figure and the target in columns of their own, or (for an
    /// earlier target, named with its limit) without them.
    fn row(&self, with_now: bool) -> String {
        let (shown, result) = match &self.figure {
            Some((value, shown)) => {
                let met = if self.at_least { *value >= self.limit } else { *value <= self.limit };
                (shown.clone(), if met { "met" } else { "**missed**" })
            }
            None => ("not measured".to_owned(), "—"),
        };
        if with_now {
            format!("| {} | {} | {} | {} | {shown} | {result} |", self.what, self.vault, self.now, self.target)
        } else {
            format!("| {} | {} | {shown} | {result} |", self.what, self.vault)
        }
    }
}

/// The targets against the figures recorded in `file`: issue 20's, each beside the figure the
/// issue started from, then the earlier issues' that still hold, met or missed. A target whose
/// figure this run did not record (its vault was not measured, or its bench did not run) says so.
fn targets(file: &Path) -> Result<()> {
    let text = std::fs::read_to_string(file).with_context(|| format!("reading {}", file.display()))?;
    let mut figures: std::collections::BTreeMap<(String, String), f64> = std::collections::BTreeMap::new();
    for line in text.lines().filter(|line| !line.trim().is_empty()) {
        let value: serde_json::Value = serde_json::from_str(line).with_context(|| format!("a line of {}: {line}", file.display()))?;
        if let (Some(vault), Some(figure), Some(number)) = (value["vault"].as_str(), value["figure"].as_str(), value["value"].as_f64()) {
            figures.insert((vault.to_owned(), figure.to_owned()), number);
        }
    }
    let get = |vault: &str, figure: &str| figures.get(&(vault.to_owned(), figure.to_owned())).copied();
    let vaults: std::collections::BTreeSet<String> = figures.keys().map(|(vault, _)| vault.clone()).collect();
    let corpus = "yoshixi-zettelkasten";
    let large = "generated-100000";
    let small = "generated-1000";
    let ms = |value: f64| (value, format!("{value:.1} ms"));
    let target = |what: &str, vault: &str, now: &'static str, target: &'static str, figure: Option<(f64, String)>, limit: f64| Target {
        what: what.to_owned(),
        vault: vault.to_owned(),
        now,
        target,
        figure,
        limit,
        at_least: false,
    };

    let mut issue20 = vec![
        target(
            "longest UI-thread block while `lint_wiki` runs through the bridge (event-loop delay in the renderer host)",
            corpus,
            "500–800 ms",
            "≤ 50 ms",
            get(corpus, "ui_block_lint_ms").map(ms),
            50.0,
        ),
        target(
            "standalone `get_backlinks` median",
            corpus,
            "35 ms",
            "≤ 2 ms",
            get(corpus, "backlinks_standalone_median_ms").map(|value| (value, format!("{value:.2} ms"))),
            2.0,
        ),
        target(
            "standalone `get_backlinks` median",
            large,
            "297 ms",
            "≤ 5 ms",
            get(large, "backlinks_standalone_median_ms").map(|value| (value, format!("{value:.2} ms"))),
            5.0,
        ),
    ];
    for (vault, now, shown_target, limit) in [(corpus, "2.1 ×", "≤ 1.3 ×", 1.3), (large, "4.0 ×", "≤ 1.5 ×", 1.5)] {
        let ratio = get(vault, "index_from_disk_ms").zip(get(vault, "parse_floor_ms")).map(|(index, floor)| index / floor);
        issue20.push(target(
            "index from disk, one core, ratio to the read + pulldown-cmark + YAML floor",
            vault,
            now,
            shown_target,
            ratio.map(|ratio| (ratio, format!("{ratio:.2} ×"))),
            limit,
        ));
    }
    issue20.push(target(
        "whole `vaultlink summary` (walk, read, parse on every core, index)",
        large,
        "6.1 s",
        "≤ 2.5 s",
        get(large, "sidecar_index_ms").map(|value| (value, format!("{:.2} s", value / 1e3))),
        2500.0,
    ));
    issue20.push(target(
        "sidecar peak RSS (the MCP server after indexing)",
        large,
        "692 MB",
        "< 400 MB",
        get(large, "sidecar_rss_mb").map(|value| (value, format!("{value:.0} MB"))),
        400.0,
    ));
    issue20.push(target(
        "wasm linear memory after the first index (Node)",
        large,
        "517 MB",
        "< 300 MB",
        get(large, "wasm_memory_mb").map(|value| (value, format!("{value:.0} MB"))),
        300.0,
    ));
    issue20.push(target(
        "plan + proof, the most-linked note renamed (`notes_to_read` + `plan_move`)",
        large,
        "2.1 s",
        "≤ 500 ms",
        get(large, "move_most_linked_ms").map(ms),
        500.0,
    ));
    issue20.push(target(
        "`find_existing_page` (median of 9 of the vault's titles)",
        corpus,
        "8.1 ms",
        "≤ 1 ms",
        get(corpus, "find_existing_page_ms").map(|value| (value, format!("{value:.2} ms"))),
        1.0,
    ));
    // The issue's "1.0–2.2 ×" task by task, from the run it quotes (hyalo's median over vaultlink's).
    let before = [
        (
            corpus,
            [
                ("broken links", "hyalo_ratio_broken_links", "1.32 ×"),
                ("orphans", "hyalo_ratio_orphans", "2.22 ×"),
                ("a move's dry run", "hyalo_ratio_move_dry_run", "1.93 ×"),
            ],
        ),
        (
            large,
            [
                ("broken links", "hyalo_ratio_broken_links", "0.95 ×"),
                ("orphans", "hyalo_ratio_orphans", "1.18 ×"),
                ("a move's dry run", "hyalo_ratio_move_dry_run", "1.15 ×"),
            ],
        ),
    ];
    for (vault, tasks) in before {
        for (task, figure, now) in tasks {
            issue20.push(Target {
                at_least: true,
                ..target(
                    &format!("each shared task against hyalo, same run: {task} (hyalo's time over vaultlink's, median of paired runs)"),
                    vault,
                    now,
                    "≥ 3 ×",
                    get(vault, figure).map(|ratio| (ratio, format!("{ratio:.2} ×"))),
                    3.0,
                )
            });
        }
    }
    // Per note at 100,000 notes over per note at 1,000: how the cost grows with the vault.
    let growth = |figure: &str| {
        let per_note = |vault: &str| get(vault, figure).zip(get(vault, "notes")).map(|(value, notes)| value / notes);
        per_note(large).zip(per_note(small)).map(|(large, small)| large / small)
    };
    issue20.push(target(
        "cost per note from 1,000 to 100,000 notes: index from disk (one core) per note, 100,000 over 1,000",
        &format!("{small} → {large}"),
        "grows",
        "≤ 1.2 ×",
        growth("index_from_disk_ms").map(|ratio| (ratio, format!("{ratio:.2} ×"))),
        1.2,
    ));
    issue20.push(target(
        "cost per note from 1,000 to 100,000 notes: index memory per note, 100,000 over 1,000",
        &format!("{small} → {large}"),
        "grows",
        "≤ 1.2 ×",
        growth("index_memory_mb").map(|ratio| (ratio, format!("{ratio:.2} ×"))),
        1.2,
    ));

    let mut earlier = vec![target(
        "index from disk ≤ 250 ms (the sidecar's whole `summary` run)",
        corpus,
        "",
        "≤ 250 ms",
        get(corpus, "sidecar_index_ms").map(|value| (value, format!("{value:.0} ms"))),
        250.0,
    )];
    for vault in &vaults {
        for (figure, runtime) in [("wasm_node_in_memory_ms", "Node"), ("wasm_chromium_in_memory_ms", "headless Chromium")] {
            let ratio = get(vault, figure).zip(get(vault, "in_memory_ms")).map(|(wasm, native)| wasm / native);
            if ratio.is_some() {
                earlier.push(target(
                    &format!("wasm in-memory index ≤ 1.5 × native ({runtime})"),
                    vault,
                    "",
                    "≤ 1.5 ×",
                    ratio.map(|ratio| (ratio, format!("{ratio:.2} ×"))),
                    1.5,
                ));
            }
        }
    }
    earlier.push(target(
        "one-note update p99 ≤ 1 ms",
        large,
        "",
        "≤ 1 ms",
        get(large, "update_p99_us").map(|value| (value, format!("{value:.0} µs"))),
        1000.0,
    ));
    earlier.push(target(
        "move plan and proof, most-linked note ≤ 10 ms",
        corpus,
        "",
        "≤ 10 ms",
        get(corpus, "move_most_linked_ms").map(ms),
        10.0,
    ));
    for vault in [corpus, large] {
        let folder = get(vault, "move_folder_notes").map_or(String::new(), |notes| format!(" ({notes:.0} notes)"));
        earlier.push(target(
            "move plan and proof, a folder of about 500 notes ≤ 200 ms",
            vault,
            "",
            "≤ 200 ms",
            get(vault, "move_folder_ms").map(|value| (value, format!("{value:.1} ms{folder}"))),
            200.0,
        ));
    }
    earlier.push(target(
        "get_backlinks through the bridge ≤ 2 ms median",
        corpus,
        "",
        "≤ 2 ms",
        get(corpus, "backlinks_bridge_median_ms").map(|value| (value, format!("{value:.2} ms"))),
        2.0,
    ));
    earlier.push(target(
        "parse at 150 MB/s or more (one core; compared as seconds per 150 MB)",
        corpus,
        "",
        "≥ 150 MB/s",
        get(corpus, "parse_mb_per_s").map(|rate| (150.0 / rate, format!("{rate:.0} MB/s"))),
        1.0,
    ));
    earlier.push(target(
        "lint without near_duplicate ≤ 2 × the index build",
        corpus,
        "",
        "≤ 2 ×",
        get(corpus, "lint_ms").zip(get(corpus, "lint_index_ms")).map(|(lint, index)| (lint / index, format!("{:.2} ×", lint / index))),
        2.0,
    ));
    earlier.push(target(
        "near_duplicate pass ≤ 1 s",
        corpus,
        "",
        "≤ 1 s",
        get(corpus, "near_duplicate_ms").map(|value| (value, format!("{value:.0} ms"))),
        1000.0,
    ));

    println!("Issue 20 (scale and responsiveness): each target beside the figure the issue started from.");
    println!();
    println!("| target | vault | issue 20's figure | target | this run | result |");
    println!("|---|---|---:|---:|---:|---|");
    for row in &issue20 {
        println!("{}", row.row(true));
    }
    println!();
    println!("Earlier targets (issues 3 to 9) that still hold; those issue 20 replaced (the index's ratio to its floor, `summary` and memory at 100,000 notes, the most-linked move at 100,000 notes, `find_existing_page`) are above.");
    println!();
    println!("| target | vault | this run | result |");
    println!("|---|---|---:|---|");
    for row in &earlier {
        println!("{}", row.row(false));
    }
    println!();
    goals::print(&get);
    Ok(())
}

//! `vaultlink`: the MCP server for agents and the command line for people. This file only wires
//! things up; stdout belongs to the command (for `mcp`, to the protocol), logs go to stderr. Exit
//! status: 0 done, 1 `lint` found something, 2 an error.
//!
//! Where things are (the modules, as ARCHITECTURE.md's map points to them):
//!
//! The binary. `main.rs` wires things up. `cli`: the commands for people (`links`, `backlinks`,
//! `unresolved`, `orphans`, `mv`, `summary`) and `mcp`. `mcp`: the MCP server (rmcp): the
//! instructions, tools/list from the catalogue, tools/call through the router with progress
//! notifications, on stdio or, through `http`, with `--http` on Streamable HTTP. `http`: rmcp's
//! Streamable HTTP service under a hyper listener on loopback, behind a bearer token, with its
//! limits (connections, with the oldest one without the token closed to make room; a header's and
//! the token's deadlines; a pause after a failed `accept`; warnings at most once an interval;
//! sessions, capped and closed when idle) and the token file, removed when the server stops.
//! `catalogue`: every tool's name, title, description, schemas and annotations, defined once for
//! both paths (the parameters' kinds and rules are core's `parameters`, which a test holds the
//! schemas to). `tools`: the `Router`: reads a call once into core's typed request (`ops::request`, which
//! checks the arguments with core's `parameters::check` first) and hands that request down, decides
//! where a call runs (plugin or folder, by mode; writes one at a time, waiting for a plugin still
//! indexing, and on the folder only with evidence that no Obsidian has the vault open),
//! `server_health` (with that evidence); on the folder a call is core's `ops::run` with the folder
//! as its edge (`standalone::FolderEdge`), then `apply::carry_out`; a call that makes a change
//! (core's `Request::asks_to_apply`) takes the vault's lock (`lock::VaultLock`) before it reads the
//! folder to plan and holds it until the change is made (`run_locked`), and a read or a preview
//! first waits, up to 5 s, while another live process's change is in flight, reading again if a
//! journal came or went while it read (`refresh_for_reading`), so that no plan or answer comes from
//! a change half made. A read-only tool holds the folder's index shared with other reads (bringing
//! it up to date only when no other call holds it: a read that holds it did so as it began, a write
//! reads the folder again once made), so a read never waits behind a long read; a refresh, a
//! preview and a write hold it alone. `progress`: progress reports from any thread, turned into
//! notifications. `bridge`: the authenticated socket client, with several calls in flight matched
//! by id; its `hello` says the sidecar's version and protocol, and `incompatibility` words a
//! version skew as the plugin does (`tests/vectors/version_skew.json` holds the cases both check).
//! `discovery`: the discovery folder (from the home folder alone), the vault's key and its one
//! normalisation (`canonical_form`, shared test vectors in `tests/vectors/vault_keys.json`), and
//! the discovery file with its checks. `presence`: the vault's presence lease as the sidecar finds
//! it (the file's bytes, its age by this machine's clock, whether it and `.vaultlink` are plain),
//! handed to core's `presence::judge`; in `--mode auto` a lease that holds writes refuses a write
//! no plugin could be reached for, whatever Obsidian's configuration says. `obsidian`: what
//! Obsidian itself records (`obsidian.json`, its single-instance lock), the evidence the router
//! needs before a write in `--mode auto` may go to the folder. `standalone`: the vault folder on
//! disk, indexed by core (the text of notes and canvases read, other files indexed by path), and
//! paths kept inside it (a note that is not UTF-8 is indexed with U+FFFD for its other bytes, so
//! its links are read, but a writing call's edge reads notes exactly, `read_exact_text`, and
//! refuses it as `unwritable_note`); before it reads the folder it recovers a change a gone process
//! left half made. The MCP server's index is live: each call first reads only the paths the watcher
//! reported since the last (a folder that appeared, moved or changed itself is walked; what is gone
//! at or below a path is forgotten), by the walk's rules (hidden names, symbolic links, the size
//! limit, a name spelt exactly so on a folder that ignores case); a whole walk (reading the files
//! whose size or time changed) when the watcher could not start, overflowed, failed or missed its
//! barrier, then live again (twice in a row: walks for a minute first), which `server_health`
//! reports as `folder_index`; one command of the command line walks once. `.obsidian/app.json` is
//! read again when it changes. `watch`: the folder watched through `notify` (inotify, on Linux
//! only): one watch per folder the walk enters, added before the walk reads it; the event thread
//! only records paths; before a call, a barrier (an entry made in a private folder outside the
//! vault, watched by the same inotify instance, whose event comes after every earlier change's)
//! proves every change made before the call was reported; a filesystem not known to be local (NFS,
//! SMB, FUSE, 9p) is not watched. `apply`: carries out core's batch on the folder all or nothing
//! (checks what the folder holds, before and again once the lock is held; journal; each note moved
//! aside, checked and replaced by renames that never replace, so another program's save is never
//! written over; a last look before the commit; undo from the journal on failure), and nothing
//! else. `history`: the changes kept for `undo_change` on the folder (core's `history` decides what
//! and how many): kept as part of a batch's commit (synced before its journal goes; recovery
//! removes the record of a batch it undoes), read for an undo (only those core's `journal::open`
//! accepts), removed once undone. `trash`: carries out a delete (one rename into `.trash`, if the
//! note still holds the text core planned on); `apply` keeps the delete's change first, and takes
//! it back out when the rename fails. `error`: `ToolError`, the error a call ends with, below every
//! module that fails. `journal`: the journal of a batch (`<vault>/.vaultlink/journal.json`,
//! pre-images before the first change, sealed by core) and recovery from it (`vaultlink recover`),
//! only from a journal core's `journal::open` accepts and whose paths pass through no symbolic
//! link. `lock`: the lock on the vault, the journal file taken by a rename that never replaces and
//! released only by its holder; `VaultLock`, the same file holding a journal of no steps while a
//! writing call plans, which the batch's journal then replaces; `wait_for_changes`, a reader's
//! bounded wait for another process's change. `replace`: `replace_note` (a note replaced without
//! losing a save made meanwhile), `remove_if_holds`, `create_file`, `write_atomically` and
//! `read_bounded`. `lease`: the lease the sidecar holds on its journal (the file's time renewed by
//! a thread, an exclusive `flock` taken before the file is put in place), the holder's check before
//! each change (`Lost::Lapsed`, `Lost::Taken`), and what an observer measures (a file's age,
//! whether another process holds its lock) for core's `lease::judge`. `state`: the user's vaultlink
//! folder outside every vault, found from the home folder alone (the discovery folder's home; no
//! trust hangs on it). `seal_keys`: the vault's sealing keys (`.vaultlink/keys/<id>.key`, core's
//! `seal_key` carried out on the folder: read without following a link, made 0600 through a
//! temporary file and a rename that never replaces), with which journals and kept changes are
//! sealed and opened. `disk`: the `Disk` trait every change to the folder goes through, each given
//! the vault's root: `RealDisk` makes every change relative to folders opened from the root without
//! following a link (`openat2` `RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS` on Linux, else `openat`
//! `O_NOFOLLOW` name by name; a link met is `LinkOnTheWay`, which the batch answers as
//! `ThroughLink`) and opens the changed folder again after each step to check it is still in place
//! (its `rename_new` never replaces: renameat2 `RENAME_NOREPLACE` or `RENAME_EXCL`, else a hard
//! link then an unlink; `copy_attributes` gives a note's new file its mode, owner, group and, on
//! Linux, extended attributes; `read_beneath`, the last look's read), and the refusal of a
//! destination reached through a symbolic link; tests drive failing, stopping, case-insensitive and
//! folder-swapping disks through it. `cli`'s `fix` runs `fix_broken_links` (`--dry-run` to
//! preview).

mod apply;
mod bridge;
mod catalogue;
mod catalogue_numbers;
mod cli;
mod cli_graph;
mod discovery;
mod disk;
mod error;
mod history;
mod http;
mod journal;
mod lease;
mod link_form;
mod lock;
mod mcp;
mod moves;
mod obsidian;
mod output;
// Only Windows has named pipes to check; the decision is tested everywhere.
#[cfg(any(windows, test))]
mod pipe_owner;
mod presence;
mod progress;
mod replace;
mod seal_keys;
mod standalone;
mod state;
mod store;
mod tools;
mod trash;
mod watch;

use clap::Parser;

fn main() -> std::process::ExitCode {
    let cli = cli::Cli::parse();
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            tracing_subscriber::EnvFilter::try_from_env("VAULTLINK_LOG").unwrap_or_else(|_| tracing_subscriber::EnvFilter::new("warn")),
        )
        .with_ansi(false)
        .init();
    let runtime = match tokio::runtime::Builder::new_current_thread().enable_all().build() {
        Ok(runtime) => runtime,
        Err(error) => {
            eprintln!("vaultlink: could not start: {error}");
            return std::process::ExitCode::from(2);
        }
    };
    match runtime.block_on(cli::run(cli)) {
        Ok(()) => std::process::ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("vaultlink: {error:#}");
            std::process::ExitCode::from(2)
        }
    }
}

//! Routes a tool call to where it runs: the plugin over the bridge, or the core on the vault
//! folder. Both paths take the same name and arguments and give the same JSON.

use std::path::{Path, PathBuf};
use vaultlink_core::error::ErrorCode;

use serde_json::{json, Value};

use std::sync::Arc;

use crate::bridge::{BridgeClient, ConnectError};
use crate::catalogue::ToolSpec;
use crate::discovery;
use crate::progress::Progress;
use crate::standalone::FolderIndex;
use vaultlink_core::ops::Request;

pub use crate::error::ToolError;

/// The router's own errors: the plugin unreachable or gone.
impl ToolError {
    /// The plugin went away (or stopped answering) after a call reached it.
    fn plugin_lost(reason: &str, writes: bool) -> ToolError {
        let message = if writes {
            format!("the vaultlink plugin stopped answering during the call ({reason}); the sidecar wrote nothing itself")
        } else {
            format!("the vaultlink plugin stopped answering during the call ({reason})")
        };
        ToolError::new(
            ErrorCode::PluginUnavailable,
            message,
            "Call again once Obsidian is running with the vaultlink plugin; the sidecar reconnects by itself. For a move, rewrite or delete, preview it again first (dry run): the plugin may have applied part of it before it went away.",
            true,
        )
    }

    pub fn internal(message: &str) -> ToolError {
        ToolError::new(ErrorCode::Internal, message, "This is a bug in vaultlink; report it with the call that caused it.", false)
    }

    fn plugin_unavailable(reason: &str) -> ToolError {
        ToolError::new(
            ErrorCode::PluginUnavailable,
            format!("the vaultlink plugin is not serving this vault: {reason}"),
            "Open the vault in Obsidian with the vaultlink plugin enabled (reload the plugin if it is), then call again. With --mode auto (the default) the sidecar works on the folder itself only while no plugin serves the vault.",
            true,
        )
    }

    /// The plugin has announced itself but not yet built its first index.
    fn plugin_starting(reason: &str, waited: std::time::Duration, writes: bool) -> ToolError {
        let wrote = if writes { "; the sidecar wrote nothing" } else { "" };
        ToolError::new(
            ErrorCode::PluginUnavailable,
            format!("the vaultlink plugin is still indexing the vault ({reason}), after {} s of waiting for it{wrote}", waited.as_secs()),
            "Wait for the plugin to finish indexing (Obsidian shows a notice with its progress on a big vault), then call again. A read made with --mode auto (the default) answers from the folder meanwhile.",
            true,
        )
    }

    /// No plugin serves the vault, and Obsidian has it open: a write on the folder now could be
    /// lost under Obsidian's own saves, or half seen by it.
    fn obsidian_open(reason: &str, evidence: &str) -> ToolError {
        ToolError::new(
            ErrorCode::PluginUnavailable,
            format!("Obsidian has this vault open ({evidence}), but the vaultlink plugin does not serve it ({reason}); the sidecar wrote nothing, so that Obsidian and the sidecar never write the vault at once"),
            "Enable the vaultlink plugin in Obsidian (Settings → Community plugins, and \"Let agents connect\" in its settings) and wait for it to finish indexing, or close Obsidian, then call again. To write on the folder anyway, run the sidecar with --mode standalone.",
            true,
        )
    }

    /// No plugin could be reached, but the vault's presence lease says Obsidian holds the vault
    /// (see [`crate::presence`]): the sidecar is somewhere the plugin cannot be reached from.
    fn plugin_unreachable(presence: &vaultlink_core::presence::Presence, reason: &str, why: &str, what: &str) -> ToolError {
        ToolError::new(
            ErrorCode::PluginUnavailable,
            format!(
                "Obsidian has this vault open ({}), but its vaultlink plugin cannot be reached from here ({reason}): {why}; the sidecar wrote nothing, so that Obsidian and the sidecar never write the vault at once",
                presence.describe()
            ),
            format!("{what} Reads are still answered from the folder. To write on the folder anyway, run the sidecar with --mode standalone."),
            true,
        )
    }

    fn io(message: String) -> ToolError {
        ToolError::new(ErrorCode::VaultUnreadable, message, "Check that the vault folder exists and is readable, then call again.", true)
    }
}

/// Where calls may run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Mode {
    /// The plugin when a live bridge exists for the vault, else the folder.
    Auto,
    /// The plugin only; fail when it is not running.
    Plugin,
    /// The folder only; never the plugin.
    Standalone,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Auto => "auto",
            Mode::Plugin => "plugin",
            Mode::Standalone => "standalone",
        }
    }
}

/// Which path answered a call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Served {
    Plugin,
    Standalone,
}

/// While a call waits for the plugin, a progress notification this often.
const PLUGIN_HEARTBEAT: std::time::Duration = std::time::Duration::from_secs(2);

/// How long `server_health` waits for the index begun at the start before it answers that the
/// folder is being indexed.
const HEALTH_INDEX_WAIT: std::time::Duration = std::time::Duration::from_secs(1);

/// How long a call that needs the plugin waits, by default, for one still indexing.
pub const DEFAULT_STARTUP_WAIT: std::time::Duration = std::time::Duration::from_secs(30);

/// While a call waits for the plugin to finish indexing, the discovery file is read this often.
const STARTUP_POLL: std::time::Duration = std::time::Duration::from_millis(250);

/// Why no plugin answered a call.
enum NoPlugin {
    /// No plugin serves the vault: no discovery file, or nothing listens on its socket (a
    /// crash left the file). Reads may use the folder; a write only when Obsidian itself does
    /// not have the vault open (see [`Router::call_with`]).
    Absent(String),
    /// The plugin has announced itself and listens, but its first index is not built yet.
    Starting(String),
    /// Something claims the vault (a discovery file we cannot use, a socket that would not
    /// serve us): a plugin may be live, so the sidecar must not write behind its back.
    Unusable(String),
    /// The call reached the plugin, which went away before answering. It may have acted.
    Lost(String),
}

/// The last time the bridge failed, for `server_health`.
#[derive(Debug, Clone)]
struct BridgeFailure {
    message: String,
    at_unix_ms: u64,
}

/// Runs calls for one vault. Shared by every session of the server: reads run at once;
/// writes run one at a time.
#[derive(Debug)]
pub struct Router {
    vault: PathBuf,
    mode: Mode,
    bridge: tokio::sync::Mutex<Option<Arc<BridgeClient>>>,
    /// The folder's index: a read holds it shared, so that it never waits behind another read
    /// (`get_backlinks` behind a long `find_evidence`); a refresh, a preview and a write hold it
    /// alone.
    folder: Arc<std::sync::RwLock<Option<FolderIndex>>>,
    writes: tokio::sync::Mutex<()>,
    last_bridge_error: std::sync::Mutex<Option<BridgeFailure>>,
    /// How long a call that needs the plugin waits for one still indexing.
    startup_wait: std::time::Duration,
    /// Whether the folder's index is brought up to date before every call (a server, which
    /// lives while others edit the vault: its index is live, see `standalone`) or only before
    /// the first (one command, which may page through many calls in a moment).
    fresh: Freshness,
    /// Whether the folder's index starts from, and is kept in, the persistent index (`store`).
    persistent: bool,
    /// True while the index the server began at its start is being built: `server_health`
    /// says so rather than wait for it.
    indexing: Arc<std::sync::atomic::AtomicBool>,
    /// The progress of that index, to the calls that wait for it.
    relay: crate::progress::Relay,
}

/// When a standalone router looks at the folder again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Freshness {
    EveryCall,
    FirstCall,
}

impl Router {
    /// `vault` must be canonical (see [`crate::standalone::canonical_vault`]).
    pub fn new(vault: PathBuf, mode: Mode) -> Router {
        Router {
            vault,
            mode,
            bridge: tokio::sync::Mutex::new(None),
            folder: Arc::new(std::sync::RwLock::new(None)),
            writes: tokio::sync::Mutex::new(()),
            last_bridge_error: std::sync::Mutex::new(None),
            startup_wait: DEFAULT_STARTUP_WAIT,
            fresh: Freshness::EveryCall,
            persistent: false,
            indexing: Arc::new(std::sync::atomic::AtomicBool::new(false)),
            relay: crate::progress::Relay::default(),
        }
    }

    /// The same router, its folder's index started from the persistent index and kept in it.
    pub fn with_persistent_index(mut self) -> Router {
        self.persistent = true;
        self
    }

    /// Begins the folder's index now, on a blocking thread, rather than at the first call: a
    /// server's first answer then waits for what is left of it, not for all of it. Calls that
    /// need the index wait for it (they take its lock, which the build holds); `server_health`
    /// and `tools/list` do not. A router that only forwards to the plugin has no folder index.
    pub fn start_indexing(&self) {
        if self.mode == Mode::Plugin {
            return;
        }
        let folder = Arc::clone(&self.folder);
        let indexing = Arc::clone(&self.indexing);
        let relay = self.relay.clone();
        let (vault, made, persistent) = (self.vault.clone(), self.fresh, self.persistent);
        indexing.store(true, std::sync::atomic::Ordering::SeqCst);
        tokio::task::spawn_blocking(move || {
            if let Ok(mut slot) = folder.write() {
                wait_for_debug_gate();
                if slot.is_none() {
                    let mut index = make_index(made, vault, persistent);
                    match refresh_for_reading(&mut index, &relay.progress()) {
                        Ok(()) => *slot = Some(index),
                        // The first call tries again, and answers with the error if it stays.
                        Err(error) => tracing::warn!("the vault could not be indexed at start: {}", error.message),
                    }
                }
            }
            relay.finish();
            indexing.store(false, std::sync::atomic::Ordering::SeqCst);
        });
    }

    /// Whether the index begun at the start is still being built after a short wait for it:
    /// on a small vault `server_health` then counts the index it would otherwise only announce,
    /// and on a big one it still answers within [`HEALTH_INDEX_WAIT`], saying it is indexing.
    async fn index_still_building(&self) -> bool {
        let began = std::time::Instant::now();
        while self.indexing.load(std::sync::atomic::Ordering::SeqCst) {
            if began.elapsed() >= HEALTH_INDEX_WAIT {
                return true;
            }
            tokio::time::sleep(std::time::Duration::from_millis(10)).await;
        }
        false
    }

    /// How long a call that needs the plugin waits for one still building its first index.
    pub fn with_startup_wait(mut self, startup_wait: std::time::Duration) -> Router {
        self.startup_wait = startup_wait;
        self
    }

    /// A router for one command of the command line: the folder is read once, however many
    /// calls the command makes (the writes still check every file they change against the
    /// disk before writing).
    pub fn for_one_command(vault: PathBuf, mode: Mode) -> Router {
        let mut router = Router::new(vault, mode);
        router.fresh = Freshness::FirstCall;
        router.persistent = true;
        router
    }

    pub fn vault(&self) -> &Path {
        &self.vault
    }

    pub async fn call(&self, tool: &str, arguments: Value) -> (Served, Result<Value, ToolError>) {
        self.call_with(tool, arguments, &Progress::none()).await
    }

    /// Runs one call where the mode says, reporting progress to `progress`. Whichever path
    /// answered, the answer is held under core's ceiling (`answer::bound`).
    pub async fn call_with(&self, tool: &str, arguments: Value, progress: &Progress) -> (Served, Result<Value, ToolError>) {
        let (served, answer) = self.call_routed(tool, arguments, progress).await;
        (
            served,
            answer.map(|mut answer| {
                vaultlink_core::answer::bound(&mut answer);
                answer
            }),
        )
    }

    async fn call_routed(&self, tool: &str, arguments: Value, progress: &Progress) -> (Served, Result<Value, ToolError>) {
        let default_served = if self.mode == Mode::Standalone { Served::Standalone } else { Served::Plugin };
        let Some(spec) = crate::catalogue::find(tool) else {
            return (
                default_served,
                Err(ToolError::new(
                    ErrorCode::UnknownTool,
                    format!("there is no tool `{tool}`"),
                    "Call tools/list to see the tools.",
                    false,
                )),
            );
        };
        if tool == "server_health" {
            if let Err(error) = validate(spec, &arguments) {
                return (default_served, Err(error));
            }
            let (served, answer) = self.health(progress).await;
            let concise = arguments.get("response_format").and_then(Value::as_str) == Some("concise");
            return (
                served,
                answer.map(|mut answer| {
                    if concise {
                        if let Some(fields) = answer.as_object_mut() {
                            fields.remove("index");
                        }
                        answer["plugin"] = json!({"connected": answer["plugin"]["connected"]});
                        if let Some(writes) = answer.get_mut("writes").and_then(Value::as_object_mut) {
                            writes.remove("evidence");
                        }
                    }
                    answer
                }),
            );
        }
        // The call is read here, once, into core's request (its parameters checked, errors worded
        // by core): the folder runs that request, and whether it writes is core's table's word.
        // The plugin is handed the arguments as they came, and reads them at its own boundary.
        let request = match vaultlink_core::ops::request(tool, &arguments) {
            Ok(request) => request,
            Err(error) => return (default_served, Err(error.into())),
        };
        let writes = request.writes();
        // One write at a time, whichever path runs it: a plan is made and applied against
        // the vault as it is, not as another write is leaving it.
        let _write_turn = if writes { Some(self.writes.lock().await) } else { None };
        // Where the call runs, decided here and nowhere else. A write reaches the folder only
        // with `--mode standalone`, or in `--mode auto` with positive evidence that no Obsidian
        // has the vault open: no plugin has announced itself (or the one that did is gone), and
        // Obsidian's own records say the vault is not open in a running Obsidian.
        if self.mode != Mode::Standalone {
            let waits = self.mode == Mode::Plugin || writes;
            match self.forward_when_ready(tool, &arguments, progress, waits).await {
                Ok(answer) => return (Served::Plugin, answer),
                Err(NoPlugin::Lost(reason)) => {
                    self.record(&reason);
                    return (Served::Plugin, Err(ToolError::plugin_lost(&reason, writes)));
                }
                Err(NoPlugin::Starting(reason)) if waits => {
                    return (Served::Plugin, Err(ToolError::plugin_starting(&reason, self.startup_wait, writes)));
                }
                // `connection` has recorded why the plugin could not be used.
                Err(NoPlugin::Unusable(reason)) if waits => {
                    return (Served::Plugin, Err(ToolError::plugin_unavailable(&reason)));
                }
                Err(NoPlugin::Absent(reason)) if self.mode == Mode::Plugin => {
                    return (Served::Plugin, Err(ToolError::plugin_unavailable(&reason)));
                }
                Err(NoPlugin::Absent(reason)) if writes => {
                    if let Some(held) = self.presence().await.filter(vaultlink_core::presence::Presence::holds_writes) {
                        let (why, what) = vaultlink_core::presence::unreachable_because(&held, &crate::presence::here());
                        self.record(&format!("refused a write on the folder: {}; {why}", held.describe()));
                        return (Served::Plugin, Err(ToolError::plugin_unreachable(&held, &reason, &why, &what)));
                    }
                    let evidence = self.obsidian_evidence().await;
                    if let Some(open) = evidence.open {
                        self.record(&format!("refused a write on the folder: {open}"));
                        return (Served::Plugin, Err(ToolError::obsidian_open(&reason, &open)));
                    }
                    tracing::info!(
                        "no plugin ({reason}) and no Obsidian with the vault open ({}); writing on the folder",
                        evidence.seen.join("; ")
                    );
                }
                Err(NoPlugin::Absent(reason) | NoPlugin::Unusable(reason) | NoPlugin::Starting(reason)) => {
                    tracing::debug!("no bridge ({reason}); answering from the folder");
                }
            }
        }
        (Served::Standalone, self.call_folder(request, progress).await)
    }

    /// What the vault's presence lease says (see [`crate::presence`]).
    async fn presence(&self) -> Option<vaultlink_core::presence::Presence> {
        let vault = self.vault.clone();
        tokio::task::spawn_blocking(move || crate::presence::look(&vault)).await.unwrap_or_else(|error| {
            Some(vaultlink_core::presence::Presence::Unreadable { reason: format!("it could not be looked at ({error})"), age_ms: 0 })
        })
    }

    /// What Obsidian's own configuration says about the vault (see [`crate::obsidian`]).
    async fn obsidian_evidence(&self) -> crate::obsidian::Evidence {
        let vault = self.vault.clone();
        tokio::task::spawn_blocking(move || crate::obsidian::look(&vault)).await.unwrap_or_else(|error| crate::obsidian::Evidence {
            open: Some(format!("Obsidian's records could not be read ({error})")),
            seen: Vec::new(),
        })
    }

    /// [`Router::forward`], waiting (when `waits`) up to the startup wait for a plugin that is
    /// still building its first index, with a progress step every heartbeat.
    async fn forward_when_ready(
        &self,
        tool: &str,
        arguments: &Value,
        progress: &Progress,
        waits: bool,
    ) -> Result<Result<Value, ToolError>, NoPlugin> {
        let started = std::time::Instant::now();
        let mut said = None::<std::time::Instant>;
        loop {
            match self.forward(tool, arguments, progress).await {
                Err(NoPlugin::Starting(reason)) if waits && started.elapsed() < self.startup_wait => {
                    if said.is_none_or(|at| at.elapsed() >= PLUGIN_HEARTBEAT) {
                        said = Some(std::time::Instant::now());
                        progress.step(format!(
                            "{reason}; waiting for it ({} of at most {} s)",
                            started.elapsed().as_secs(),
                            self.startup_wait.as_secs()
                        ));
                    }
                    tokio::time::sleep(STARTUP_POLL).await;
                }
                outcome => return outcome,
            }
        }
    }

    fn record(&self, reason: &str) {
        tracing::warn!("the bridge failed: {reason}");
        let at_unix_ms = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |since| since.as_millis() as u64);
        if let Ok(mut last) = self.last_bridge_error.lock() {
            *last = Some(BridgeFailure { message: reason.to_owned(), at_unix_ms });
        }
    }

    /// A live connection to the plugin, made anew when there is none or the last one ended.
    async fn connection(&self) -> Result<Arc<BridgeClient>, NoPlugin> {
        let mut slot = self.bridge.lock().await;
        if let Some(client) = slot.as_ref().filter(|client| !client.is_closed()) {
            return Ok(Arc::clone(client));
        }
        *slot = None;
        let discovery = match discovery::read(&self.vault) {
            Ok(Some(discovery)) => discovery,
            Ok(None) => return Err(NoPlugin::Absent("no discovery file: Obsidian is closed or the plugin is off".to_owned())),
            Err(error) => {
                let reason = format!("{error:#}");
                self.record(&reason);
                return Err(NoPlugin::Unusable(reason));
            }
        };
        let starting = discovery.state == discovery::PluginState::Starting;
        match BridgeClient::connect(&discovery).await {
            // It listens, so it is alive; the connection is not kept, so that the next call
            // reads the file again and sees when the index is ready.
            Ok(_) if starting => Err(NoPlugin::Starting(format!("the plugin (pid {}) has not finished its first index", discovery.pid))),
            Ok(client) => {
                tracing::info!("connected to {} (pid {})", client.server, discovery.pid);
                let client = Arc::new(client);
                *slot = Some(Arc::clone(&client));
                Ok(client)
            }
            Err(ConnectError::NothingListens(error)) => Err(NoPlugin::Absent(format!(
                "the discovery file names a socket nothing listens on ({error:#}); the plugin is not running"
            ))),
            Err(ConnectError::Refused(error)) => {
                let reason = format!("{error:#}");
                self.record(&reason);
                Err(NoPlugin::Unusable(reason))
            }
        }
    }

    /// Forwards a call over the bridge. A connection found closed before the request was
    /// sent is replaced once; a request that may have reached the plugin is never sent again.
    async fn forward(&self, tool: &str, arguments: &Value, progress: &Progress) -> Result<Result<Value, ToolError>, NoPlugin> {
        for _attempt in 0..2 {
            let client = self.connection().await?;
            let long = vaultlink_core::tools::is_long(tool) && progress.is_wanted();
            if long {
                progress.step(format!("forwarded {tool} to the Obsidian plugin"));
            }
            let call = client.call(tool, arguments.clone(), progress.cancellation());
            tokio::pin!(call);
            let answer = loop {
                tokio::select! {
                    answer = &mut call => break answer,
                    _ = tokio::time::sleep(PLUGIN_HEARTBEAT), if long => {
                        progress.step(format!("the plugin is still working on {tool}"));
                    }
                }
            };
            match answer {
                Ok(answer) => {
                    if long {
                        progress.step(format!("the plugin answered {tool}"));
                    }
                    return Ok(answer);
                }
                Err(lost) if lost.delivered => return Err(NoPlugin::Lost(lost.reason)),
                Err(lost) => tracing::info!("the bridge connection had ended ({}); connecting again", lost.reason),
            }
        }
        let reason = "the plugin's connection ended twice before a call could be sent";
        self.record(reason);
        Err(NoPlugin::Unusable(reason.to_owned()))
    }

    /// Runs a call on the folder, on a blocking thread: the folder is read with `std::fs`. A call
    /// that makes a change (core's `Request::asks_to_apply`) takes the vault's lock before it reads
    /// the folder to plan; a read shares the folder's index with other reads.
    async fn call_folder(&self, request: Request, progress: &Progress) -> Result<Value, ToolError> {
        if request.asks_to_apply() {
            // The first index of the folder is built as for a read (not holding the lock, which
            // would keep every other process waiting while a big vault is read); then the
            // folder is read again holding the lock.
            return self
                .on_folder_with(progress, Freshness::FirstCall, move |folder, progress| {
                    run_locked(&crate::disk::RealDisk, folder, &request, progress)
                })
                .await;
        }
        // A lint that runs near_duplicate keeps the sketches it makes in the index, so it holds
        // the index alone, as a write does.
        let sketches = matches!(&request, Request::LintWiki(arguments) if vaultlink_core::ops::wants_sketches(arguments));
        if !request.writes() && !sketches {
            return self.on_folder_reading(progress, move |folder, progress| run_reading(folder, &request, progress)).await;
        }
        self.on_folder(progress, move |folder, progress| run_on_folder(folder, &request, progress)).await
    }

    /// Runs a read on the folder's index, shared with other reads, on a blocking thread. The
    /// index is brought up to date first when no other call holds it; when one does, it is a
    /// read that brought it up to date as it began, or a write, which is waited for (and which
    /// reads the folder again once its change is made).
    async fn on_folder_reading<T: Send + 'static>(
        &self,
        progress: &Progress,
        work: impl FnOnce(&FolderIndex, &Progress) -> Result<T, ToolError> + Send + 'static,
    ) -> Result<T, ToolError> {
        let folder = Arc::clone(&self.folder);
        let vault = self.vault.clone();
        let progress = progress.clone();
        let (made, fresh, persistent) = (self.fresh, self.fresh, self.persistent);
        let relay = self.relay.clone();
        let poisoned = || ToolError::internal("the folder index's lock was poisoned by an earlier failure");
        let work = tokio::task::spawn_blocking(move || {
            // While the index begun at the start is built, this call hears its progress.
            let _joined = relay.join(&progress);
            let refresh = |slot: &mut Option<FolderIndex>| {
                let first = slot.is_none();
                let folder = slot.get_or_insert_with(|| make_index(made, vault.clone(), persistent));
                if first || fresh == Freshness::EveryCall {
                    refresh_for_reading(folder, &progress)?;
                }
                Ok::<(), ToolError>(())
            };
            match folder.try_write() {
                Ok(mut slot) => refresh(&mut slot)?,
                Err(std::sync::TryLockError::WouldBlock) => {}
                Err(std::sync::TryLockError::Poisoned(_)) => return Err(poisoned()),
            }
            let slot = folder.read().map_err(|_| poisoned())?;
            match slot.as_ref() {
                Some(index) => work(index, &progress),
                None => {
                    // The index was not made yet, and another call held it: make it now.
                    drop(slot);
                    let mut slot = folder.write().map_err(|_| poisoned())?;
                    refresh(&mut slot)?;
                    drop(slot);
                    let slot = folder.read().map_err(|_| poisoned())?;
                    let index = slot.as_ref().ok_or_else(|| ToolError::internal("the folder index was not made"))?;
                    work(index, &progress)
                }
            }
        });
        work.await.unwrap_or_else(|error| Err(ToolError::internal(&format!("the call stopped unexpectedly: {error}"))))
    }

    /// Runs `work` on the folder's index, brought up to date first, on a blocking thread.
    async fn on_folder<T: Send + 'static>(
        &self,
        progress: &Progress,
        work: impl FnOnce(&mut FolderIndex, &Progress) -> Result<T, ToolError> + Send + 'static,
    ) -> Result<T, ToolError> {
        self.on_folder_with(progress, self.fresh, work).await
    }

    /// Runs `work` on the folder's index on a blocking thread, the index brought up to date
    /// first for a read (on the first call, or on every call with `Freshness::EveryCall`).
    async fn on_folder_with<T: Send + 'static>(
        &self,
        progress: &Progress,
        fresh: Freshness,
        work: impl FnOnce(&mut FolderIndex, &Progress) -> Result<T, ToolError> + Send + 'static,
    ) -> Result<T, ToolError> {
        let folder = Arc::clone(&self.folder);
        let vault = self.vault.clone();
        let progress = progress.clone();
        let (made, persistent) = (self.fresh, self.persistent);
        let relay = self.relay.clone();
        let work = tokio::task::spawn_blocking(move || {
            let joined = relay.join(&progress);
            let mut slot = folder.write().map_err(|_| ToolError::internal("the folder index's lock was poisoned by an earlier failure"))?;
            let first = slot.is_none();
            let folder = slot.get_or_insert_with(|| make_index(made, vault, persistent));
            drop(joined);
            if first || fresh == Freshness::EveryCall {
                refresh_for_reading(folder, &progress)?;
            }
            work(folder, &progress)
        });
        work.await.unwrap_or_else(|error| Err(ToolError::internal(&format!("the call stopped unexpectedly: {error}"))))
    }

    /// `server_health`: where calls run now, where a write would go and on what evidence, what
    /// the index holds (and, on the folder, whether it is live), and the last bridge error.
    async fn health(&self, progress: &Progress) -> (Served, Result<Value, ToolError>) {
        let mut plugin = json!({"connected": false});
        let mut served = Served::Standalone;
        let mut index = None;
        let mut writes = json!({"go_to": "folder", "evidence": ["--mode standalone: every call runs on the folder"]});
        let mut reads = Value::Null;
        if self.mode != Mode::Standalone {
            match self.forward("vault_summary", &json!({}), progress).await {
                Ok(Ok(summary)) => {
                    served = Served::Plugin;
                    index = Some(summary);
                    plugin["state"] = json!("ready");
                    if let Some(client) = self.bridge.lock().await.as_ref() {
                        plugin = json!({"connected": true, "state": "ready", "server": client.server});
                        if let Some(version) = &client.plugin_version {
                            plugin["version"] = json!(version);
                        }
                    }
                    writes =
                        json!({"go_to": "plugin", "evidence": ["the plugin's discovery file says it is ready, and its bridge answers"]});
                }
                Ok(Err(error)) => {
                    self.record(&format!("the plugin could not count its index: {}", error.message));
                    writes = json!({"go_to": "plugin", "evidence": ["the plugin's bridge answers, but could not count its index"]});
                }
                Err(NoPlugin::Starting(reason)) => {
                    plugin["state"] = json!("starting");
                    reads = json!({"go_to": "folder", "evidence": [format!("{reason}: reads are answered from the folder meanwhile")]});
                    writes = json!({"go_to": "plugin", "evidence": [format!("{reason}: a write waits up to {} s for it, then is refused", self.startup_wait.as_secs())]});
                    plugin["reason"] = json!(reason);
                }
                Err(NoPlugin::Absent(reason)) => {
                    writes = if self.mode == Mode::Plugin {
                        json!({"go_to": "refused", "evidence": [format!("--mode plugin, and no plugin: {reason}")]})
                    } else {
                        let mut seen = vec![reason.clone()];
                        let presence = self.presence().await;
                        if let Some(found) = &presence {
                            seen.push(found.describe());
                        }
                        if let Some(held) = presence.filter(vaultlink_core::presence::Presence::holds_writes) {
                            let (why, what) = vaultlink_core::presence::unreachable_because(&held, &crate::presence::here());
                            seen.push(format!("its plugin cannot be reached from here: {why}"));
                            reads = json!({"go_to": "folder", "evidence": [format!(
                                "Obsidian has the vault open but its plugin cannot be reached from here ({why}): reads are answered from the folder, as Obsidian last saved it, and writes are refused. {what}"
                            )]});
                            json!({"go_to": "refused", "evidence": seen})
                        } else {
                            let evidence = self.obsidian_evidence().await;
                            seen.extend(evidence.seen);
                            json!({"go_to": if evidence.open.is_some() { "refused" } else { "folder" }, "evidence": seen})
                        }
                    };
                    plugin["reason"] = json!(reason);
                }
                Err(NoPlugin::Unusable(reason)) => {
                    writes =
                        json!({"go_to": "refused", "evidence": [format!("a plugin may serve the vault but cannot be used: {reason}")]});
                    plugin["reason"] = json!(reason);
                }
                Err(NoPlugin::Lost(reason)) => {
                    self.record(&reason);
                    writes = json!({"go_to": "refused", "evidence": [format!("the plugin went away: {reason}")]});
                    plugin["reason"] = json!(reason);
                }
            }
        }
        let mut folder_index = None;
        if index.is_none() {
            if self.mode == Mode::Plugin {
                served = Served::Plugin;
            } else if self.index_still_building().await {
                // The index begun at the start is not built yet: health answers now, saying so.
                folder_index = Some(json!({
                    "mode": "indexing",
                    "reason": "the vault folder is being indexed since the server started; calls that need the index wait for it"
                }));
            } else {
                let summary = self.on_folder(progress, |folder, progress| {
                    run_on_folder(folder, &Request::VaultSummary {}, progress).map(|summary| (summary, folder.updates()))
                });
                match summary.await {
                    Ok((summary, updates)) => (index, folder_index) = (Some(summary), Some(updates)),
                    Err(error) => return (Served::Standalone, Err(error)),
                }
            }
        }
        if reads.is_null() {
            reads = match (served, self.mode) {
                (Served::Plugin, _) if index.is_some() => json!({"go_to": "plugin", "evidence": ["the plugin's bridge answers"]}),
                (_, Mode::Plugin) => json!({"go_to": "refused", "evidence": ["--mode plugin, and no plugin answers"]}),
                (_, Mode::Standalone) => json!({"go_to": "folder", "evidence": ["--mode standalone: every call runs on the folder"]}),
                _ => json!({"go_to": "folder", "evidence": ["no plugin answers: reads are answered from the folder"]}),
            };
        }
        let mut answer = json!({
            "mode": match (served, index.is_some()) {
                (Served::Plugin, true) => "plugin",
                (Served::Plugin, false) => "unavailable",
                (Served::Standalone, _) => "standalone",
            },
            "requested_mode": self.mode.name(),
            "vault": self.vault.to_string_lossy(),
            "sidecar_version": env!("CARGO_PKG_VERSION"),
            "plugin": plugin,
            "writes": writes,
            "reads": reads,
        });
        if let Some(index) = index {
            answer["index"] = index;
        }
        if let Some(folder_index) = folder_index {
            answer["folder_index"] = folder_index;
        }
        if let Some(failure) = self.last_bridge_error.lock().ok().and_then(|last| last.clone()) {
            answer["last_bridge_error"] = json!({"message": failure.message, "at_unix_ms": failure.at_unix_ms});
        }
        (served, Ok(answer))
    }
}

/// A command's index is left to the process's exit rather than freed: the command ends with the
/// process, and freeing every link and name of a big vault one by one took a good part of a
/// whole command's time (issue 39). A server frees its index as any value.
impl Drop for Router {
    fn drop(&mut self) {
        if self.fresh == Freshness::FirstCall {
            if let Ok(mut slot) = self.folder.write() {
                std::mem::forget(slot.take());
            }
        }
    }
}

/// A new index of the folder: live for a server, read once for a command; kept between starts
/// when `persistent`.
fn make_index(made: Freshness, vault: PathBuf, persistent: bool) -> FolderIndex {
    let index = match made {
        Freshness::EveryCall => FolderIndex::live(vault),
        Freshness::FirstCall => FolderIndex::new(vault),
    };
    if persistent {
        index.persistent()
    } else {
        index
    }
}

/// In a debug build only: the index begun at the server's start waits until the file
/// `VAULTLINK_DEBUG_INDEX_GATE` exists, so that a test can see the server answer while it is
/// still indexing, without timing.
fn wait_for_debug_gate() {
    #[cfg(debug_assertions)]
    if let Some(gate) = std::env::var_os("VAULTLINK_DEBUG_INDEX_GATE").filter(|gate| !gate.is_empty()) {
        let gate = PathBuf::from(gate);
        while !gate.exists() {
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
}

/// Runs `work`, a call of `request`'s tool on the folder's `notes()` notes, saying to `progress`
/// when it begins and when it is done if the tool is long (core's table of tools says which).
/// The notes are counted only then: counting goes over every file, and a command that pages
/// through a list of tens of thousands of items makes as many calls as pages.
fn reporting<T>(
    request: &Request,
    notes: impl FnOnce() -> usize,
    progress: &Progress,
    work: impl FnOnce() -> Result<T, ToolError>,
) -> Result<T, ToolError> {
    let tool = request.name();
    let long = vaultlink_core::tools::is_long(tool);
    if long {
        progress.step(format!("running {tool} on {} notes", notes()));
    }
    let done = work();
    if long && done.is_ok() {
        progress.step(format!("{tool} done"));
    }
    done
}

/// A read-only tool on the folder's index as it is, shared with other reads: it plans nothing
/// and writes nothing, so it needs neither the plan history nor the index alone.
fn run_reading(folder: &FolderIndex, request: &Request, progress: &Progress) -> Result<Value, ToolError> {
    reporting(
        request,
        || folder.vault().note_count(),
        progress,
        || {
            let mut plans = vaultlink_core::approval::PlanHistory::default();
            let outcome = vaultlink_core::ops::run(folder.vault(), request, &mut folder.edge(request.name(), false, progress), &mut plans)?;
            serde_json::to_value(outcome.answer).map_err(|error| ToolError::internal(&error.to_string()))
        },
    )
}

/// Runs a call on the folder's index (brought up to date by the caller): core's operation, with
/// the folder as its edge, then the steps of an approved change carried out on the disk.
fn run_on_folder(folder: &mut FolderIndex, request: &Request, progress: &Progress) -> Result<Value, ToolError> {
    run_holding(&crate::disk::RealDisk, folder, request, progress, None)
}

/// A call given as its tool's name and JSON arguments, read into core's request (as the router
/// reads a call) and run on a given disk, on the index as it is (the caller brought it up to
/// date): how the tests of the folder's changes call a tool.
#[cfg(test)]
pub(crate) fn run_on_folder_with(
    disk: &dyn crate::disk::Disk,
    folder: &mut FolderIndex,
    tool: &str,
    arguments: &Value,
    progress: &Progress,
) -> Result<Value, ToolError> {
    run_holding(disk, folder, &vaultlink_core::ops::request(tool, arguments)?, progress, None)
}

/// A call that makes a change, on the folder: the vault's lock is taken first (waiting a few
/// seconds for another process's change), then the index is brought up to date and the change
/// planned and made, the lock held throughout, so that the plan is made on a vault no one else is
/// changing and no other process's change lands between the plan and its batch.
pub(crate) fn run_locked(
    disk: &dyn crate::disk::Disk,
    folder: &mut FolderIndex,
    request: &Request,
    progress: &Progress,
) -> Result<Value, ToolError> {
    let lock = crate::lock::VaultLock::take(disk, folder.root(), request.name(), crate::lock::WAIT_FOR_CHANGE, progress)?;
    let answer = folder
        .refresh_with(progress)
        .map_err(|error| ToolError::io(format!("{error:#}")))
        .and_then(|()| run_holding(disk, folder, request, progress, Some(&lock)));
    lock.release(disk, folder.root());
    answer
}

/// Brings the index up to date for a read (or a preview): waits first, a few seconds at most,
/// while another process's change is being made, and reads again when one began or ended while
/// the folder was read, so that no answer comes from a change half made.
pub(crate) fn refresh_for_reading(folder: &mut FolderIndex, progress: &Progress) -> Result<(), ToolError> {
    let started = std::time::Instant::now();
    loop {
        let left = crate::lock::WAIT_FOR_CHANGE.saturating_sub(started.elapsed());
        crate::lock::wait_for_changes(folder.root(), left, progress)?;
        let before = crate::lock::lock_stamp(folder.root());
        folder.refresh_with(progress).map_err(|error| ToolError::io(format!("{error:#}")))?;
        if crate::lock::lock_stamp(folder.root()) == before {
            return Ok(());
        }
        tracing::debug!("a change to the vault began or ended while it was read; reading it again");
    }
}

fn run_holding(
    disk: &dyn crate::disk::Disk,
    folder: &mut FolderIndex,
    request: &Request,
    progress: &Progress,
    held: Option<&crate::lock::VaultLock>,
) -> Result<Value, ToolError> {
    // The sketches `near_duplicate` compares, made now for the notes that lack one.
    folder.sketch_for(request);
    let notes = folder.vault().note_count();
    reporting(
        request,
        || notes,
        progress,
        || {
            let tool = request.name();
            let mut plans = std::mem::take(&mut folder.plans);
            let outcome = vaultlink_core::ops::run(folder.vault(), request, &mut folder.edge(tool, request.writes(), progress), &mut plans);
            folder.plans = plans;
            let outcome = outcome?;
            // The moves a heal about to be carried out heals, to be dropped from those kept pending once
            // it is: they are healed, and listing them again would offer a heal with nothing to do.
            let healed = match (&outcome.change, tool) {
                (Some(vaultlink_core::edge::Change::Batch { .. }), "heal_moves") => {
                    let observed = vaultlink_core::edge::Edge::observed(&mut folder.edge(tool, false, progress));
                    observed.map(|observed| vaultlink_core::moves_detected::detect(folder.vault(), &observed).pairs).unwrap_or_default()
                }
                _ => Vec::new(),
            };
            let answer = crate::apply::carry_out(disk, folder, outcome, held);
            if answer.is_ok() {
                crate::store::forget_healed(folder.root(), &healed);
            }
            answer
        },
    )
}

/// Checks arguments against the tool's parameters: core's one check (`parameters::check`), whose
/// errors name the parameter. The sidecar's own `server_health` is held to it; core's tools are
/// read whole into core's request (`ops::request`), which makes the same check first.
pub fn validate(spec: &ToolSpec, arguments: &Value) -> Result<(), ToolError> {
    vaultlink_core::parameters::check(spec.name, arguments).map_err(ToolError::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(tool: &str, arguments: Value) -> Result<(), String> {
        let spec = crate::catalogue::find(tool).expect("a catalogued tool");
        validate(spec, &arguments).map_err(|error| format!("{} {}", error.code, error.message))
    }

    #[test]
    fn arguments_are_checked_against_the_advertised_schema() {
        assert_eq!(check("get_backlinks", json!({"path": "A", "limit": 5, "response_format": "concise"})), Ok(()));
        let refusals = [
            (json!({}), "missing parameter `path`"),
            (json!({"path": "A", "text": "x"}), "unknown parameter `text`"),
            (json!({"path": 3}), "parameter `path` must be a string"),
            (json!({"path": "A", "limit": 0}), "from 1 to 1000"),
            (json!({"path": "A", "limit": 1001}), "from 1 to 1000"),
            (json!({"path": "A", "response_format": "short"}), "must be one of"),
            (json!({"path": "x".repeat(4097)}), "4097 characters, over the 4096"),
            (json!(["A"]), "must be a JSON object"),
        ];
        for (arguments, expected) in refusals {
            let refusal = check("get_backlinks", arguments.clone()).expect_err("refused");
            assert!(refusal.starts_with("invalid_arguments") && refusal.contains(expected), "{arguments}: {refusal}");
        }
    }

    #[test]
    fn rules_between_parameters_name_the_parameter() {
        assert_eq!(check("delete_note", json!({"path": "A", "force": true, "confirm": true})), Ok(()));
        assert_eq!(check("delete_note", json!({"path": "A", "force": false})), Ok(()));
        let refusal = check("delete_note", json!({"path": "A", "force": true})).expect_err("force alone");
        assert!(refusal.starts_with("invalid_arguments") && refusal.contains("`force` needs `confirm: true`"), "{refusal}");
        let refusal = check("move_note", json!({"from": "A", "to": "B", "dry_run": true, "approved_plan_hash": "x"})).expect_err("both");
        assert!(refusal.contains("`approved_plan_hash` cannot be combined with `dry_run: true`"), "{refusal}");
        assert_eq!(check("rewrite_link", json!({"from_target": "A", "to_target": "B", "approved_plan_hash": "x"})), Ok(()));
    }

    #[test]
    fn paths_that_leave_the_vault_are_refused() {
        for (path, problem) in [
            ("../x.md", "a `..` segment"),
            ("a/../../x.md", "a `..` segment"),
            ("/etc/passwd", "absolute"),
            ("~/x.md", "home folder"),
            ("C:\\x.md", "absolute"),
            ("\\\\server\\share\\x.md", "absolute"),
            ("a\\..\\..\\x.md", "a `..` segment"),
            ("%2e%2e/x.md", "percent-decodes"),
            ("a/%2E%2e/%2e%2e/x.md", "percent-decodes"),
            ("a/%2e/x.md", "percent-decodes"),
            ("a\0.md", "NUL byte"),
            ("a.md\0/../../etc/passwd", "NUL byte"),
        ] {
            for tool in ["read_note", "get_backlinks"] {
                let refusal = check(tool, json!({ "path": path })).expect_err(path);
                assert!(refusal.starts_with("invalid_path") && refusal.contains(problem), "{path}: {refusal}");
            }
            let refusal = check("move_note", json!({ "from": "A.md", "to": path })).expect_err(path);
            assert!(refusal.starts_with("invalid_path") && refusal.contains("`to`"), "{path}: {refusal}");
        }
        for fine in ["a/b..c/x.md", "100%.md", "a%2e.md"] {
            assert_eq!(check("read_note", json!({ "path": fine })), Ok(()), "{fine}");
        }
        // Issue 21: nothing under a folder Obsidian does not index may be named.
        for hidden in ["...md", ".hidden/x.md", ".vaultlink/journal.json", "a/.trash/x.md"] {
            let refusal = check("read_note", json!({ "path": hidden })).expect_err(hidden);
            assert!(refusal.starts_with("invalid_path") && refusal.contains("not a place of the vault's notes"), "{hidden}: {refusal}");
        }
    }

    /// Issue 38: a call's arguments were checked three times before it ran, and a call they
    /// passed whose parameters core could not read (a `moves` entry without its `to`) went on
    /// to the plugin to be refused there, or was refused for want of one. The router reads the
    /// call once into core's request, and refuses such a call itself, whichever path would run it.
    #[tokio::test]
    async fn a_call_core_cannot_read_is_refused_before_it_is_routed() {
        let (_dir, root) = vault_of(&[("A.md", "# A\n")]);
        for mode in [Mode::Plugin, Mode::Auto, Mode::Standalone] {
            let router = Router::new(root.clone(), mode);
            let (_, answer) = router.call("bulk_move_notes", json!({"moves": [{"from": "A.md"}], "dry_run": false})).await;
            let refusal = answer.expect_err("refused");
            assert_eq!(refusal.code, "invalid_arguments", "{mode:?}: {refusal:?}");
            assert!(refusal.message.contains("`to`"), "{mode:?}: {refusal:?}");
        }
        assert!(root.join("A.md").exists() && !root.join(".vaultlink").exists(), "nothing was written");
    }

    /// Another process (a second server, a command, the plugin) making a change: a live process
    /// of its own, and its sealed journal in the vault, here of a move of `B.md` into `sub/`.
    struct OtherProcess(std::process::Child);

    impl OtherProcess {
        fn start() -> OtherProcess {
            OtherProcess(std::process::Command::new("sleep").arg("60").spawn().unwrap())
        }

        fn begins_its_batch(&self, root: &Path) {
            use vaultlink_core::journal::{self as format, Journal, JournalMove};
            let journal = Journal {
                version: format::VERSION,
                pid: self.0.id(),
                holder: String::new(),
                tool: "move_note".to_owned(),
                started_unix_ms: crate::lease::now_unix_ms(),
                machine: crate::journal::machine(),
                writes: Vec::new(),
                moves: vec![JournalMove { from: "f/B.md".to_owned(), to: "sub/B.md".to_owned(), via: None, hash: None }],
                made_folders: vec!["sub".to_owned()],
                change_id: String::new(),
                forget: None,
            };
            crate::journal::plant(root, &journal);
        }

        fn ends_its_batch(root: &Path) {
            std::fs::remove_file(root.join(".vaultlink/journal.json")).unwrap();
            let _ = std::fs::remove_dir(root.join(".vaultlink"));
        }
    }

    impl Drop for OtherProcess {
        fn drop(&mut self) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }

    fn vault_of(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let full = dir.path().join(path);
            std::fs::create_dir_all(full.parent().unwrap()).unwrap();
            std::fs::write(full, text).unwrap();
        }
        let root = crate::standalone::canonical_vault(dir.path()).unwrap();
        (dir, root)
    }

    /// Issue 34: `commit_wiki_page` could not write a page over 4,096 characters. A 100 KB page
    /// and a 10 KB appended text are written whole, through the argument check both edges run.
    #[tokio::test]
    async fn commit_wiki_page_writes_a_page_of_100_kb() {
        let (_dir, root) = vault_of(&[("Topic.md", "# Topic\n")]);
        let router = Router::new(root.clone(), Mode::Standalone);
        let body = format!("See [[Topic]].\n\n{}", "A line of the long page, written out in full.\n".repeat(2_200));
        assert!(body.len() > 100_000);
        let text = "An appended paragraph of some length.\n".repeat(270);
        let arguments = json!({
            "page": {"path": "Long page.md", "body": body},
            "patches": [{"path": "Topic.md", "kind": "append", "text": text}],
            "dry_run": false
        });
        let committed = router.call("commit_wiki_page", arguments).await.1.unwrap();
        assert_eq!(committed["applied"], true, "{committed}");
        let page = std::fs::read_to_string(root.join("Long page.md")).unwrap();
        assert!(page.contains(&body), "the page holds its whole body");
        assert!(std::fs::read_to_string(root.join("Topic.md")).unwrap().contains(&text));
    }

    /// Issue 34: a note with 60,000 `[[Target]]` and a canvas with 60,000 cards moved
    /// `applied` with 10,000 links in each still naming `Target`, and neither
    /// `find_unresolved_links` nor lint said so. Both files are planned from their whole text,
    /// and the index's reports name them.
    #[tokio::test]
    async fn a_move_rewrites_every_link_of_a_file_past_the_links_limit() {
        let note = "[[Target]] ".repeat(60_000);
        let cards: Vec<String> = (0..60_000).map(|at| format!(r#"{{"id":"c{at}","type":"file","file":"Target.md"}}"#)).collect();
        let canvas = format!(r#"{{"nodes":[{}]}}"#, cards.join(","));
        let (_dir, root) = vault_of(&[("Target.md", "# T\n"), ("Many.md", &note), ("Board.canvas", &canvas)]);
        let router = Router::new(root.clone(), Mode::Standalone);
        let unresolved = router.call("find_unresolved_links", json!({})).await.1.unwrap();
        assert_eq!(unresolved["truncated_files"], json!(["Board.canvas", "Many.md"]), "{unresolved}");
        let lint = router.call("lint_wiki", json!({"kinds": ["links_truncated"]})).await.1.unwrap();
        let subjects: Vec<&str> = lint["proposals"].as_array().unwrap().iter().map(|found| found["subject"].as_str().unwrap()).collect();
        assert_eq!(subjects, ["Board.canvas", "Many.md"], "{lint}");

        let moved = router.call("move_note", json!({"from": "Target.md", "to": "Sub/Renamed.md", "dry_run": false})).await.1.unwrap();
        assert_eq!(moved["applied"], true, "{moved}");
        assert_eq!(moved["links_changed"], 120_000, "{moved}");
        let note = std::fs::read_to_string(root.join("Many.md")).unwrap();
        assert_eq!((note.matches("[[Renamed]]").count(), note.contains("Target")), (60_000, false));
        let canvas = std::fs::read_to_string(root.join("Board.canvas")).unwrap();
        assert_eq!((canvas.matches("Sub/Renamed.md").count(), canvas.contains("Target")), (60_000, false));
    }

    /// Issue 21: a server read the vault while another process's batch was half made (its
    /// journal there, its process alive), and answered from it. A read now waits for that batch
    /// to end, reporting progress, and reads the vault as the batch left it; a batch that does
    /// not end within the wait makes the read answer `change_in_progress` (retryable), the vault
    /// not read.
    #[tokio::test]
    async fn a_read_waits_for_another_process_change_and_never_answers_from_it_half_made() {
        let (_dir, root) = vault_of(&[("A.md", "[x](f/B.md)\n"), ("f/B.md", "# B\n")]);
        let router = Router::new(root.clone(), Mode::Standalone);
        let unresolved = |answer: &Value| answer["total_targets"].as_u64();
        let before = router.call("find_unresolved_links", json!({})).await.1.unwrap();
        assert_eq!(unresolved(&before), Some(0), "{before}");

        // Half made: B moved, A not rewritten yet.
        let other = OtherProcess::start();
        other.begins_its_batch(&root);
        std::fs::create_dir(root.join("sub")).unwrap();
        std::fs::rename(root.join("f/B.md"), root.join("sub/B.md")).unwrap();
        // The other batch ends once the call says it is waiting for it.
        let (waiting, told) = std::sync::mpsc::channel::<()>();
        let finishing = {
            let root = root.clone();
            std::thread::spawn(move || {
                let _ = told.recv();
                std::fs::write(root.join("A.md"), "[x](sub/B.md)\n").unwrap();
                OtherProcess::ends_its_batch(&root);
            })
        };
        let (progress, mut steps) = Progress::channel();
        let first_step = async {
            let first = steps.recv().await;
            let _ = waiting.send(());
            first
        };
        let ((_, answer), first) = tokio::join!(router.call_with("find_unresolved_links", json!({}), &progress), first_step);
        let answer = answer.unwrap();
        finishing.join().unwrap();
        assert_eq!(unresolved(&answer), Some(0), "answered from the batch whole, not half made: {answer}");
        let said: Vec<String> = first.into_iter().chain(std::iter::from_fn(|| steps.try_recv().ok())).map(|step| step.message).collect();
        assert!(
            said.iter().any(|step| step.contains("waiting for it before reading") && step.contains("move_note by process")),
            "{said:?}"
        );

        // A batch that does not end: refused, retryable, saying what to do.
        other.begins_its_batch(&root);
        let refusal = router.call("get_backlinks", json!({"path": "sub/B.md"})).await.1.unwrap_err();
        assert_eq!(refusal.code, "change_in_progress", "{refusal:?}");
        assert!(refusal.retryable);
        assert!(refusal.message.contains("the vault was not read") && refusal.hint.contains("Call again in a moment"), "{refusal:?}");
        drop(other);
        crate::journal::expire_lease(&root);
        // Its process gone and its lease run out, the next call undoes what it left (here: B moved back) and reads.
        let answer = router.call("find_unresolved_links", json!({})).await.1.unwrap();
        assert!(root.join("f/B.md").exists() && !root.join(".vaultlink/journal.json").exists());
        assert_eq!(unresolved(&answer), Some(1), "A links sub/B.md, moved back to f/ by recovery: {answer}");
    }

    /// Issue 21: a writing call planned before it took the vault's lock, so a batch of another
    /// process that ended between the plan and the lock (here: a note made to link the moved
    /// note) left a link the plan never saw. The lock is now taken first (waiting for the other
    /// batch), and the plan made once it is held, on the vault as that batch left it.
    #[tokio::test]
    async fn a_writing_call_takes_the_lock_before_it_plans() {
        let (_dir, root) = vault_of(&[("A.md", "[x](f/B.md)\n"), ("f/B.md", "# B\n")]);
        let router = Router::new(root.clone(), Mode::Standalone);
        router.call("list_notes", json!({})).await.1.unwrap();
        let other = OtherProcess::start();
        other.begins_its_batch(&root);
        // The other batch ends once the call says it is waiting for it.
        let (waiting, told) = std::sync::mpsc::channel::<()>();
        let finishing = {
            let root = root.clone();
            std::thread::spawn(move || {
                let _ = told.recv();
                std::fs::write(root.join("C.md"), "[y](f/B.md)\n").unwrap();
                OtherProcess::ends_its_batch(&root);
            })
        };
        let (progress, mut steps) = Progress::channel();
        let first_step = async {
            let first = steps.recv().await;
            let _ = waiting.send(());
            first
        };
        let ((_, moved), first) = tokio::join!(
            router.call_with("move_note", json!({"from": "f/B.md", "to": "Archive/B.md", "dry_run": false}), &progress),
            first_step
        );
        finishing.join().unwrap();
        let moved = moved.unwrap();
        assert_eq!(moved["applied"], true, "{moved}");
        assert_eq!(
            std::fs::read_to_string(root.join("C.md")).unwrap(),
            "[y](B.md)\n",
            "the note the other batch made is in the plan (its link written as Obsidian writes it)"
        );
        assert_eq!(std::fs::read_to_string(root.join("A.md")).unwrap(), "[x](B.md)\n");
        let said: Vec<String> = first.into_iter().chain(std::iter::from_fn(|| steps.try_recv().ok())).map(|step| step.message).collect();
        assert!(said.iter().any(|step| step.contains("waiting for it")), "{said:?}");
        assert!(!root.join(".vaultlink/journal.json").exists(), "the lock is released");

        // A preview takes no lock: it plans as a read does, and leaves nothing.
        let preview = router.call("move_note", json!({"from": "Archive/B.md", "to": "B.md"})).await.1.unwrap();
        assert_eq!(preview["applied"], false, "{preview}");
        assert!(!root.join(".vaultlink/journal.json").exists());
    }
}

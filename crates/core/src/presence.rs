//! The plugin's presence lease in the vault, as data: its format, its timings, and the one
//! judgement of what a presence file found in a vault means.
//!
//! While the plugin runs it keeps `<vault>/.vaultlink/presence.json`, rewritten every
//! [`RENEW_MS`] and removed on unload. A sidecar that finds no plugin to reach (another home,
//! another namespace or OS, another version) may still see this file, since it shares the vault
//! folder and nothing else with Obsidian: while the lease is fresh, the sidecar in `--mode auto`
//! never writes on the folder. Liveness rests on the file's modification time alone, measured by
//! the edge against its own clock; no pid, home folder or environment variable enters into it.
//!
//! The file is untrusted input: it may have arrived with the vault (a sync service, git) or be
//! damaged. It can only ever *hold back* a write (or name a reason in a message); nothing it says
//! is followed, opened or executed. So doubt about a file the lease keeps fresh counts as a live
//! plugin, and everything else lets it go.

use serde::{Deserialize, Serialize};

/// Where the lease is, in the vault.
pub const PRESENCE_FILE: &str = concat!(crate::own_files::own_folder!(), "/presence.json");

/// The version of the lease this engine writes.
pub const VERSION: u32 = 1;

/// How often the plugin rewrites its lease. Short enough that a sidecar sees a plugin that has
/// just loaded within a couple of seconds, long enough that the write (a few hundred bytes,
/// renamed over the old file) costs nothing measurable on Obsidian's main thread.
pub const RENEW_MS: u64 = 2_000;

/// How long after its last renewal a lease still counts as live. Seven renewals can be missed
/// (a main thread busy with a long lint or a big vault's first index, a laptop's disk spun down, a
/// slow network filesystem) before a live Obsidian is taken for gone; a crashed one holds writes
/// back for at most this long.
pub const EXPIRE_MS: u64 = 15_000;

/// The largest presence file read; the plugin writes a few hundred bytes.
pub const MAX_BYTES: usize = 4_096;

/// What the plugin writes in its lease: who holds the vault and how it could be reached. Nothing
/// secret (the bridge's token stays in the discovery file, outside the vault).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Lease {
    pub version: u32,
    /// A random id of this plugin load, so that an unload removes only its own lease.
    pub instance: String,
    /// The host name of the machine Obsidian runs on.
    pub machine: String,
    /// Node's `process.platform` inside Obsidian (`linux`, `darwin`, `win32`).
    pub platform: String,
    pub plugin_version: String,
    /// The bridge protocol's version.
    pub protocol: u32,
    /// Whether the plugin's bridge is turned on ("Let agents connect").
    pub bridge: bool,
    /// The folder the plugin keeps its discovery file in, for the messages: a sidecar that looks
    /// elsewhere is told where to look. Never read or followed from here.
    #[serde(default)]
    pub discovery_dir: String,
}

/// What an edge observed of the file, beside its bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Observed {
    /// Whether the file, and the `.vaultlink` folder it is in, are a plain file and a plain folder
    /// (not symbolic links, not a folder in the file's place).
    pub plain_file: bool,
    /// The edge's clock minus the file's modification time, in milliseconds; negative when the
    /// file's time is ahead of the clock.
    pub age_ms: i64,
    /// This machine's host name, as the edge knows it.
    pub machine: String,
}

/// What a presence file found in the vault means.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Presence {
    /// Renewed within the lease by a plugin on this machine: Obsidian has the vault open.
    Fresh { lease: Lease, age_ms: i64 },
    /// Renewed within the lease, naming another machine: a container or VM sharing this folder
    /// (whose host name differs though it writes the same disk), or another computer whose
    /// Obsidian has the vault open and whose sync keeps delivering the renewals. Either way a
    /// second writer here would race it, so it holds writes back as a fresh lease does.
    OtherMachine { lease: Lease, age_ms: i64 },
    /// Its time is ahead of this machine's clock: written by a clock set differently (another
    /// machine, or this one's clock stepped back). Taken for live, since it cannot be told.
    Ahead { lease: Option<Lease>, ahead_ms: i64 },
    /// Renewed within the lease but not a lease this engine reads (damaged, cut short, or a
    /// newer version's): taken for a live plugin of another version.
    Unreadable { reason: String, age_ms: i64 },
    /// Not renewed for longer than the lease: what a crashed or killed Obsidian leaves. No
    /// evidence of anything.
    Expired { lease: Option<Lease>, age_ms: i64 },
    /// Not a plain file in a plain folder: never what the plugin writes, so no evidence.
    NotPlain,
}

impl Presence {
    /// Whether the lease holds a write on the folder back (in `--mode auto`).
    pub fn holds_writes(&self) -> bool {
        matches!(self, Presence::Fresh { .. } | Presence::OtherMachine { .. } | Presence::Ahead { .. } | Presence::Unreadable { .. })
    }

    /// The lease read from the file, when it could be.
    pub fn lease(&self) -> Option<&Lease> {
        match self {
            Presence::Fresh { lease, .. } | Presence::OtherMachine { lease, .. } => Some(lease),
            Presence::Ahead { lease, .. } | Presence::Expired { lease, .. } => lease.as_ref(),
            Presence::Unreadable { .. } | Presence::NotPlain => None,
        }
    }

    /// One sentence for a person: what the file says, and whether it counts.
    pub fn describe(&self) -> String {
        let seconds = |ms: &i64| format!("{:.1} s", *ms as f64 / 1000.0);
        let who = |lease: &Lease| {
            format!(
                "the vaultlink plugin {} on {:?} ({}, bridge {})",
                lease.plugin_version,
                lease.machine,
                lease.platform,
                if lease.bridge { "on" } else { "off" }
            )
        };
        match self {
            Presence::Fresh { lease, age_ms } => {
                format!("{PRESENCE_FILE} was renewed {} ago by {}: Obsidian has the vault open", seconds(age_ms), who(lease))
            }
            Presence::OtherMachine { lease, age_ms } => format!(
                "{PRESENCE_FILE} was renewed {} ago by {}, another machine than this one: Obsidian has the vault open there, or in a container or VM sharing this folder",
                seconds(age_ms),
                who(lease)
            ),
            Presence::Ahead { ahead_ms, .. } => format!(
                "{PRESENCE_FILE} was modified {} ahead of this machine's clock, so its age cannot be told; taking Obsidian for open",
                seconds(ahead_ms)
            ),
            Presence::Unreadable { reason, age_ms } => format!(
                "{PRESENCE_FILE} was written {} ago but cannot be read ({reason}); taking it for a plugin of another version that has the vault open",
                seconds(age_ms)
            ),
            Presence::Expired { lease, age_ms } => format!(
                "{PRESENCE_FILE} was last renewed {} ago, longer than its {} s lease{}: a closed or crashed Obsidian left it, and it no longer counts",
                seconds(age_ms),
                EXPIRE_MS / 1000,
                lease.as_ref().map(|lease| format!(" (by {})", who(lease))).unwrap_or_default()
            ),
            Presence::NotPlain => {
                format!("{PRESENCE_FILE} is not a plain file in a plain folder (a link, or a folder), which the plugin never writes; it does not count")
            }
        }
    }
}

/// Reads a lease from a file's bytes.
pub fn parse(bytes: &[u8]) -> Result<Lease, String> {
    if bytes.len() > MAX_BYTES {
        return Err(format!("it holds {} bytes, over the {MAX_BYTES} a lease takes", bytes.len()));
    }
    let lease: Lease = serde_json::from_slice(bytes).map_err(|error| format!("it is not a lease ({error})"))?;
    if lease.version != VERSION {
        return Err(format!("it is a version {} lease; this vaultlink reads version {VERSION}", lease.version));
    }
    Ok(lease)
}

/// What a presence file found in the vault means, from its bytes and what the edge observed.
/// The one place this is decided; both edges act on the answer.
pub fn judge(bytes: &[u8], observed: &Observed) -> Presence {
    if !observed.plain_file {
        return Presence::NotPlain;
    }
    let parsed = parse(bytes);
    if observed.age_ms < 0 {
        return Presence::Ahead { lease: parsed.ok(), ahead_ms: -observed.age_ms };
    }
    let age_ms = observed.age_ms;
    if age_ms > EXPIRE_MS as i64 {
        return Presence::Expired { lease: parsed.ok(), age_ms };
    }
    match parsed {
        Err(reason) => Presence::Unreadable { reason, age_ms },
        Ok(lease) if lease.machine != observed.machine => Presence::OtherMachine { lease, age_ms },
        Ok(lease) => Presence::Fresh { lease, age_ms },
    }
}

/// What the edge that cannot reach the plugin knows of itself, to say why it cannot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Here {
    pub machine: String,
    pub platform: String,
    pub protocol: u32,
    /// The folder this edge looked in for the plugin's discovery file.
    pub discovery_dir: String,
    /// Whether this edge runs in WSL (its kernel says so), for the messages only.
    pub wsl: bool,
}

/// Why a plugin whose lease holds the vault cannot be reached from here, most telling first, and
/// what to do about it, from what its lease says and what this edge knows of itself.
pub fn unreachable_because(presence: &Presence, here: &Here) -> (String, String) {
    let close = "or close Obsidian (its lease then runs out within 15 s) and call again";
    let Some(lease) = presence.lease() else {
        return (
            "its presence file does not say where it runs or how to reach it".to_owned(),
            format!("Run the sidecar where Obsidian runs, as the same user, with the same vaultlink version, {close}."),
        );
    };
    if !lease.bridge {
        return (
            "the plugin's bridge is turned off".to_owned(),
            format!("Turn on \"Let agents connect\" in the vaultlink plugin's settings in Obsidian, {close}."),
        );
    }
    if here.wsl && lease.platform == "win32" {
        return (
            "this sidecar runs in WSL and Obsidian on Windows: the plugin's bridge is a local socket of Windows, which WSL cannot reach".to_owned(),
            format!(
                "Run the agent and its sidecar on Windows (the Windows vaultlink.exe, on the vault's Windows path), {close}. Reads are still served from the folder."
            ),
        );
    }
    let windows_and_linux = [lease.platform.as_str(), here.platform.as_str()];
    if lease.platform != here.platform {
        let wsl = if windows_and_linux.contains(&"win32") && windows_and_linux.contains(&"linux") {
            " (an agent in WSL beside Obsidian on Windows, or the reverse)"
        } else {
            ""
        };
        return (
            format!(
                "Obsidian runs on {} and this sidecar on {}{wsl}, so its bridge's socket cannot be reached from here",
                lease.platform, here.platform
            ),
            format!(
                "Run the sidecar on the same side as Obsidian (for WSL: the Windows vaultlink.exe on the vault's Windows path), {close}."
            ),
        );
    }
    if lease.machine != here.machine {
        return (
            format!(
                "the plugin runs on the machine {:?} and this sidecar on {:?} (another computer syncing the vault, or a container or VM sharing its folder)",
                lease.machine, here.machine
            ),
            format!("Run the sidecar on {:?}, where Obsidian runs, {close}.", lease.machine),
        );
    }
    if lease.protocol != here.protocol {
        return (
            format!("the plugin speaks bridge protocol {} and this sidecar {}", lease.protocol, here.protocol),
            format!("Update the vaultlink plugin and the sidecar to the same version, {close}."),
        );
    }
    if !lease.discovery_dir.is_empty() && lease.discovery_dir == here.discovery_dir {
        return (
            "the plugin keeps its discovery file in the folder this sidecar looks in, so it has just stopped (a crash leaves its lease until it runs out) or is starting".to_owned(),
            format!("Call again in a moment; if Obsidian was closed or crashed, its lease runs out within {} s. Otherwise reload the vaultlink plugin in Obsidian, {close}.", EXPIRE_MS / 1000),
        );
    }
    let plugin_dir =
        if lease.discovery_dir.is_empty() { "its own home's state folder".to_owned() } else { format!("{:?}", lease.discovery_dir) };
    (
        format!(
            "the plugin keeps its discovery file in {plugin_dir}, and this sidecar looked in {:?} (another home folder, sandbox or user)",
            here.discovery_dir
        ),
        format!(
            "Start the sidecar as the user running Obsidian with the same HOME, or set VAULTLINK_RUNTIME_DIR to {plugin_dir} for both, {close}."
        ),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lease(machine: &str) -> Lease {
        Lease {
            version: VERSION,
            instance: "0123abcd".to_owned(),
            machine: machine.to_owned(),
            platform: "linux".to_owned(),
            plugin_version: "0.1.0".to_owned(),
            protocol: 1,
            bridge: true,
            discovery_dir: "/home/ada/.local/state/vaultlink/bridge".to_owned(),
        }
    }

    fn check(bytes: &[u8], plain_file: bool, age_ms: i64) -> Presence {
        judge(bytes, &Observed { plain_file, age_ms, machine: "desk".to_owned() })
    }

    fn bytes_of(lease: &Lease) -> Vec<u8> {
        serde_json::to_vec(lease).unwrap()
    }

    #[test]
    fn a_lease_renewed_within_its_time_is_a_live_plugin() {
        let ours = bytes_of(&lease("desk"));
        for age_ms in [0, RENEW_MS as i64, EXPIRE_MS as i64] {
            let found = check(&ours, true, age_ms);
            assert_eq!(found, Presence::Fresh { lease: lease("desk"), age_ms }, "{age_ms}");
            assert!(found.holds_writes());
        }
    }

    #[test]
    fn a_lease_past_its_time_by_any_margin_no_longer_counts() {
        let ours = bytes_of(&lease("desk"));
        for age_ms in [EXPIRE_MS as i64 + 1, 60_000, i64::MAX] {
            let found = check(&ours, true, age_ms);
            assert_eq!(found, Presence::Expired { lease: Some(lease("desk")), age_ms });
            assert!(!found.holds_writes());
            assert!(found.describe().contains("no longer counts"), "{}", found.describe());
        }
        // What a crash left, even damaged, stops counting too.
        let damaged = check(b"{\"version\":", true, 20_000);
        assert!(matches!(damaged, Presence::Expired { lease: None, .. }) && !damaged.holds_writes());
    }

    #[test]
    fn a_time_ahead_of_the_clock_counts_as_live_and_says_so() {
        for bytes in [bytes_of(&lease("desk")), b"garbage".to_vec()] {
            let found = check(&bytes, true, -90_000);
            assert!(matches!(found, Presence::Ahead { ahead_ms: 90_000, .. }), "{found:?}");
            assert!(found.holds_writes());
            assert!(found.describe().contains("ahead of this machine's clock"));
        }
    }

    #[test]
    fn another_machines_lease_is_reported_as_such_and_holds_writes_back() {
        let found = check(&bytes_of(&lease("laptop")), true, 1_000);
        assert_eq!(found, Presence::OtherMachine { lease: lease("laptop"), age_ms: 1_000 });
        assert!(found.holds_writes());
        assert!(found.describe().contains("another machine"));
        let here =
            Here { machine: "desk".to_owned(), platform: "linux".to_owned(), protocol: 1, discovery_dir: "/tmp/x".to_owned(), wsl: false };
        let (why, what) = unreachable_because(&found, &here);
        assert!(why.contains("\"laptop\"") && what.contains("Run the sidecar on \"laptop\""), "{why} / {what}");
    }

    #[test]
    fn garbage_in_a_fresh_file_is_taken_for_another_version() {
        let mut newer = serde_json::to_value(lease("desk")).unwrap();
        newer["version"] = serde_json::json!(2);
        let cases: Vec<(Vec<u8>, &str)> = vec![
            (b"".to_vec(), "not a lease"),
            (b"\xff\xfe\x00garbage".to_vec(), "not a lease"),
            (b"[1,2]".to_vec(), "not a lease"),
            (b"{\"version\":1}".to_vec(), "not a lease"),
            (serde_json::to_vec(&newer).unwrap(), "version 2 lease"),
            (vec![b' '; MAX_BYTES + 1], "over the 4096"),
        ];
        for (bytes, reason) in cases {
            let found = check(&bytes, true, 500);
            assert!(matches!(&found, Presence::Unreadable { reason: said, .. } if said.contains(reason)), "{found:?}");
            assert!(found.holds_writes());
            assert!(found.lease().is_none());
        }
    }

    #[test]
    fn what_is_not_a_plain_file_never_counts() {
        let found = check(&bytes_of(&lease("desk")), false, 0);
        assert_eq!(found, Presence::NotPlain);
        assert!(!found.holds_writes());
    }

    #[test]
    fn the_reason_a_plugin_cannot_be_reached_names_the_difference() {
        let here = Here {
            machine: "desk".to_owned(),
            platform: "linux".to_owned(),
            protocol: 1,
            discovery_dir: "/tmp/home/.local/state/vaultlink/bridge".to_owned(),
            wsl: false,
        };
        let of = |lease: Lease| unreachable_because(&Presence::Fresh { lease, age_ms: 0 }, &here);
        let (why, what) = of(lease("desk"));
        assert!(why.contains("/home/ada/.local/state/vaultlink/bridge") && why.contains("/tmp/home"), "{why}");
        assert!(what.contains("VAULTLINK_RUNTIME_DIR") && what.contains("close Obsidian"), "{what}");
        let (why, what) = of(Lease { platform: "win32".to_owned(), ..lease("desk") });
        assert!(why.contains("WSL") && what.contains("vaultlink.exe"), "{why} / {what}");
        // A sidecar that knows it runs in WSL says so, and what to do.
        let in_wsl = Here { wsl: true, ..here.clone() };
        let (why, what) =
            unreachable_because(&Presence::Fresh { lease: Lease { platform: "win32".to_owned(), ..lease("desk") }, age_ms: 0 }, &in_wsl);
        assert!(why.contains("runs in WSL and Obsidian on Windows"), "{why}");
        assert!(what.contains("on Windows") && what.contains("close Obsidian"), "{what}");
        let (why, _) = of(Lease { protocol: 2, ..lease("desk") });
        assert!(why.contains("protocol 2"), "{why}");
        let (why, what) = of(Lease { bridge: false, ..lease("desk") });
        assert!(why.contains("turned off") && what.contains("Let agents connect"), "{why}");
        let (why, what) = of(Lease { discovery_dir: here.discovery_dir.clone(), ..lease("desk") });
        assert!(why.contains("just stopped") && what.contains("Call again in a moment"), "{why} / {what}");
        let (why, _) = unreachable_because(&Presence::Unreadable { reason: "x".to_owned(), age_ms: 0 }, &here);
        assert!(why.contains("does not say"), "{why}");
    }

    /// The lease the plugin writes (`plugin/presence.ts`) and the timings it renews by are the
    /// shared vector's, read by both languages' tests.
    #[test]
    fn the_shared_vector_is_a_lease_this_engine_reads() {
        let text = include_str!("../../../tests/vectors/presence.json");
        let vector: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(vector["renew_ms"], RENEW_MS);
        assert_eq!(vector["expire_ms"], EXPIRE_MS);
        assert_eq!(vector["file"], PRESENCE_FILE);
        let lease = parse(vector["lease"].to_string().as_bytes()).unwrap();
        assert_eq!(lease.version, VERSION);
    }
}

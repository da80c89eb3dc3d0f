//! What Obsidian itself records about a vault, for the one decision that needs it: may a write
//! in `--mode auto` go to the folder when no plugin answers? Only when nothing says an Obsidian
//! has the vault open now (see `tools::Router`).
//!
//! Obsidian keeps, in its configuration folder, `obsidian.json`: `{"vaults": {"<id>": {"path":
//! "…", "ts": …, "open": true}}}`, `open` on the vaults whose windows are open (and left so when
//! it quits, to open them again). Whether it runs is told by Electron's single-instance lock in
//! the same folder: on Linux and macOS the symbolic link `SingletonLock` to `<hostname>-<pid>`,
//! on Windows the file `lockfile`, which the running app holds open so that no one else may
//! write it. The folders are found from the home folder (and `%APPDATA%` on Windows) alone, as
//! the journal key's is, for the same reason: an MCP client passes little else.

use std::path::{Path, PathBuf};

use crate::discovery::{canonical_form, PathStyle};

/// One place Obsidian keeps its configuration, and how it was installed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Install {
    pub kind: &'static str,
    pub dir: PathBuf,
}

/// The configuration folders Obsidian would use for this user, whether or not they exist.
pub fn candidates(home: Option<&Path>, appdata: Option<&Path>) -> Vec<Install> {
    let mut found = Vec::new();
    let mut add = |kind: &'static str, dir: PathBuf| found.push(Install { kind, dir });
    if cfg!(windows) {
        let roaming = appdata.map(Path::to_path_buf).or_else(|| home.map(|home| home.join("AppData").join("Roaming")));
        if let Some(roaming) = roaming {
            add("desktop", roaming.join("obsidian"));
        }
        return found;
    }
    let Some(home) = home else {
        return found;
    };
    if cfg!(target_os = "macos") {
        add("desktop", home.join("Library").join("Application Support").join("obsidian"));
        return found;
    }
    add("desktop", home.join(".config").join("obsidian"));
    add("flatpak", home.join(".var").join("app").join("md.obsidian.Obsidian").join("config").join("obsidian"));
    add("snap", home.join("snap").join("obsidian").join("current").join(".config").join("obsidian"));
    found
}

/// The configuration folders of this user's Obsidian that exist.
pub fn installs() -> Vec<Install> {
    let home = if cfg!(windows) { std::env::var_os("USERPROFILE") } else { std::env::var_os("HOME") };
    let home = home.filter(|home| !home.is_empty()).map(PathBuf::from);
    let appdata = std::env::var_os("APPDATA").filter(|dir| !dir.is_empty()).map(PathBuf::from);
    candidates(home.as_deref(), appdata.as_deref()).into_iter().filter(|install| install.dir.is_dir()).collect()
}

/// Whether an Obsidian runs on this configuration folder, and why we think so.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Running {
    Yes(String),
    No(String),
}

/// Reads the single-instance lock. What cannot be told for certain counts as running, so that
/// doubt never lets a write reach the folder behind a live Obsidian.
pub fn running(install: &Install) -> Running {
    if cfg!(windows) {
        return running_windows(&install.dir.join("lockfile"));
    }
    let lock = install.dir.join("SingletonLock");
    let target = match std::fs::read_link(&lock) {
        Ok(target) => target,
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            return Running::No(format!("no {} (Obsidian's single-instance lock)", lock.display()))
        }
        Err(error) => return Running::Yes(format!("{} cannot be read ({error}); taking Obsidian for running", lock.display())),
    };
    let target = target.to_string_lossy().into_owned();
    let Some((host, pid)) = target.rsplit_once('-').and_then(|(host, pid)| pid.parse::<u32>().ok().map(|pid| (host.to_owned(), pid)))
    else {
        return Running::Yes(format!("{} points to {target:?}, not <host>-<pid>; taking Obsidian for running", lock.display()));
    };
    let ours = gethostname::gethostname().to_string_lossy().into_owned();
    if host != ours {
        return Running::Yes(format!(
            "{} is held by pid {pid} on the machine {host:?}, not this one ({ours:?}); taking Obsidian for running",
            lock.display()
        ));
    }
    if install.kind == "flatpak" {
        // A Flatpak app counts its processes in a namespace of its own: its pid says nothing here.
        return Running::Yes(format!("{} is held by pid {pid} inside the Flatpak sandbox", lock.display()));
    }
    match process_alive(pid) {
        Some(true) => Running::Yes(format!("{} is held by pid {pid}, which is running", lock.display())),
        Some(false) => Running::No(format!("{} names pid {pid}, which is not running (a crash left it)", lock.display())),
        None => Running::Yes(format!("{} is held by pid {pid}, which cannot be checked; taking Obsidian for running", lock.display())),
    }
}

#[cfg(windows)]
fn running_windows(lock: &Path) -> Running {
    // The running app holds `lockfile` open, sharing it for reading only, and has it deleted
    // when it closes it: opening it for writing fails with a sharing violation (32) while it runs.
    match std::fs::OpenOptions::new().append(true).open(lock) {
        Ok(_) => Running::No(format!("{} is not held (a crash left it)", lock.display())),
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => Running::No(format!("no {}", lock.display())),
        Err(error) if error.raw_os_error() == Some(32) => Running::Yes(format!("{} is held by a running Obsidian", lock.display())),
        Err(error) => Running::Yes(format!("{} cannot be opened ({error}); taking Obsidian for running", lock.display())),
    }
}

#[cfg(not(windows))]
fn running_windows(lock: &Path) -> Running {
    Running::Yes(format!("{} is a Windows lock; taking Obsidian for running", lock.display()))
}

/// Whether a process of this machine runs; `None` when that cannot be told.
fn process_alive(pid: u32) -> Option<bool> {
    if cfg!(target_os = "linux") {
        return Some(Path::new("/proc").join(pid.to_string()).exists());
    }
    let status = std::process::Command::new("ps")
        .args(["-p", &pid.to_string()])
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .status()
        .ok()?;
    Some(status.success())
}

/// How `obsidian.json` records a vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Listed {
    /// Not among its vaults: this Obsidian never opened it.
    No,
    /// Among them, open (`"open": true`) or not.
    Yes { open: bool },
}

/// Finds the vault in the text of an `obsidian.json`. Each recorded path is made canonical by
/// `canonical` (the operating system's canonical path where it exists) and compared in
/// canonical form, ignoring case where the filesystem usually does (`ignore_case`), so that a
/// doubt counts as the same vault.
pub fn find_vault(
    text: &str,
    vault_form: &str,
    style: PathStyle,
    ignore_case: bool,
    canonical: &dyn Fn(&str) -> String,
) -> Result<Listed, String> {
    let json: serde_json::Value = serde_json::from_str(text).map_err(|error| format!("it is not JSON ({error})"))?;
    let Some(vaults) = json.get("vaults").and_then(serde_json::Value::as_object) else {
        return Err("it has no `vaults` object".to_owned());
    };
    let same = |a: &str, b: &str| if ignore_case { a.to_lowercase() == b.to_lowercase() } else { a == b };
    let mut listed = Listed::No;
    for entry in vaults.values() {
        let Some(path) = entry.get("path").and_then(serde_json::Value::as_str) else {
            continue;
        };
        if same(&canonical_form(&canonical(path), style), vault_form) {
            let open = entry.get("open").and_then(serde_json::Value::as_bool).unwrap_or(false);
            if open || listed == Listed::No {
                listed = Listed::Yes { open };
            }
        }
    }
    Ok(listed)
}

/// What the configuration folders say about a vault.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Evidence {
    /// Why an Obsidian is taken to have the vault open now, when one is.
    pub open: Option<String>,
    /// What was looked at, one sentence a place, for `server_health` and the messages.
    pub seen: Vec<String>,
}

/// Looks at every configuration folder of this user's Obsidian for the vault.
pub fn look(vault: &Path) -> Evidence {
    look_in(&installs(), vault)
}

/// [`look`] over given configuration folders.
pub fn look_in(installs: &[Install], vault: &Path) -> Evidence {
    let style = PathStyle::native();
    let vault_form = crate::discovery::vault_form(vault);
    let ignore_case = cfg!(any(windows, target_os = "macos"));
    let canonical =
        |path: &str| dunce::canonicalize(path).map(|path| path.to_string_lossy().into_owned()).unwrap_or_else(|_| path.to_owned());
    let mut evidence = Evidence { open: None, seen: Vec::new() };
    if installs.is_empty() {
        evidence
            .seen
            .push("no configuration folder of Obsidian's for this user (Obsidian is not installed, or is sandboxed elsewhere)".to_owned());
    }
    for install in installs {
        let file = install.dir.join("obsidian.json");
        let listed = match std::fs::read_to_string(&file) {
            Ok(text) => find_vault(&text, &vault_form, style, ignore_case, &canonical)
                .map_err(|problem| format!("{} cannot be used: {problem}", file.display())),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => Ok(Listed::No),
            Err(error) => Err(format!("{} cannot be read ({error})", file.display())),
        };
        let (open, said) = match &listed {
            Ok(Listed::No) => (false, format!("{} does not list this vault", file.display())),
            Ok(Listed::Yes { open: false }) => (false, format!("{} lists this vault as not open", file.display())),
            Ok(Listed::Yes { open: true }) => (true, format!("{} lists this vault as open", file.display())),
            // What cannot be read may say it is open: the lock decides.
            Err(problem) => (true, problem.clone()),
        };
        if !open {
            evidence.seen.push(format!("{} Obsidian: {said}", install.kind));
            continue;
        }
        match running(install) {
            Running::Yes(why) => {
                let line = format!("{} Obsidian: {said}, and it is running: {why}", install.kind);
                evidence.open.get_or_insert_with(|| line.clone());
                evidence.seen.push(line);
            }
            Running::No(why) => evidence.seen.push(format!("{} Obsidian: {said}, but it is not running: {why}", install.kind)),
        }
    }
    evidence
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(path: &str) -> String {
        path.to_owned()
    }

    #[test]
    fn a_vault_is_found_in_obsidian_json_by_its_canonical_form() {
        let text =
            r#"{"vaults":{"a1":{"path":"/home/ada/Other","ts":1},"b2":{"path":"/home/ada/Vault/","ts":2,"open":true}},"frame":"native"}"#;
        assert_eq!(find_vault(text, "/home/ada/Vault", PathStyle::Posix, false, &same), Ok(Listed::Yes { open: true }));
        assert_eq!(find_vault(text, "/home/ada/Other", PathStyle::Posix, false, &same), Ok(Listed::Yes { open: false }));
        assert_eq!(find_vault(text, "/home/ada/vault", PathStyle::Posix, false, &same), Ok(Listed::No));
        assert_eq!(find_vault(text, "/home/ada/vault", PathStyle::Posix, true, &same), Ok(Listed::Yes { open: true }));
        let windows = r#"{"vaults":{"c3":{"path":"c:\\Users\\Ada\\Vault","ts":3,"open":true}}}"#;
        assert_eq!(find_vault(windows, r"C:\Users\ada\Vault", PathStyle::Windows, true, &same), Ok(Listed::Yes { open: true }));
    }

    #[test]
    fn a_damaged_obsidian_json_is_an_error_not_a_panic() {
        for text in [
            "",
            "[]",
            "{\"vaults\": 3}",
            "{\"vaults\": {\"x\": 1, \"y\": {\"path\": 2}}}",
            "{\"vaults\":{\"z\":{\"path\":\"/v\",\"open\":\"yes\"}}}",
        ] {
            let found = find_vault(text, "/v", PathStyle::Posix, false, &same);
            assert!(matches!(found, Err(_) | Ok(Listed::No) | Ok(Listed::Yes { open: false })), "{text}: {found:?}");
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn the_lock_and_obsidian_json_together_say_whether_the_vault_is_open() {
        let home = tempfile::tempdir().unwrap();
        let vault = home.path().join("Vault");
        std::fs::create_dir(&vault).unwrap();
        let vault = dunce::canonicalize(&vault).unwrap();
        let install = Install { kind: "desktop", dir: home.path().join(".config").join("obsidian") };
        assert_eq!(candidates(Some(home.path()), None)[0], install);
        std::fs::create_dir_all(&install.dir).unwrap();
        let installs = [install.clone()];
        assert_eq!(look_in(&installs, &vault).open, None, "an Obsidian that never opened the vault");
        let record = serde_json::json!({"vaults": {"id": {"path": vault, "ts": 1, "open": true}}});
        std::fs::write(install.dir.join("obsidian.json"), record.to_string()).unwrap();
        let closed = look_in(&installs, &vault);
        assert_eq!(closed.open, None, "open, but Obsidian is not running: {closed:?}");
        assert!(closed.seen[0].contains("not running"), "{closed:?}");
        let host = gethostname::gethostname().to_string_lossy().into_owned();
        let lock = install.dir.join("SingletonLock");
        std::os::unix::fs::symlink(format!("{host}-{}", std::process::id()), &lock).unwrap();
        let open = look_in(&installs, &vault);
        assert!(open.open.as_deref().is_some_and(|why| why.contains("lists this vault as open") && why.contains("running")), "{open:?}");
        std::fs::remove_file(&lock).unwrap();
        // A pid far above any pid_max: a lock a crash left behind.
        std::os::unix::fs::symlink(format!("{host}-4294967"), &lock).unwrap();
        assert_eq!(look_in(&installs, &vault).open, None);
        std::fs::remove_file(&lock).unwrap();
        std::os::unix::fs::symlink("elsewhere-1", &lock).unwrap();
        assert!(look_in(&installs, &vault).open.is_some(), "a lock of another machine's counts as running");
        std::fs::write(install.dir.join("obsidian.json"), "{not json").unwrap();
        assert!(look_in(&installs, &vault).open.is_some_and(|why| why.contains("cannot be used")), "a damaged file with Obsidian running");
    }
}

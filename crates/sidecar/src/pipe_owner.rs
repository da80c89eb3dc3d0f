//! Who serves the named pipe the sidecar connects to on Windows, checked before the sidecar
//! sends it the token or a call: the user this sidecar runs as, as the Unix path checks that
//! the socket is the user's own (`discovery`).
//!
//! Pipe names are machine-wide, and the name `\\.\pipe\vaultlink-<key>` follows from the vault's
//! path alone, so another user of the machine can create it first while Obsidian is not running
//! and wait for a sidecar to tell it the token and the agent's calls. The plugin's pipe is
//! created by Node (`net.createServer`), which can set no security descriptor of its own: libuv
//! creates the first instance with `FILE_FLAG_FIRST_PIPE_INSTANCE` (so a plugin finding the name
//! taken fails to start, and says so) and the default descriptor, which gives the creator,
//! administrators and LocalSystem full control and Everyone and anonymous read access. Who
//! serves the pipe is therefore checked on the client's side: the server's process
//! (`GetNamedPipeServerProcessId`) must run as this sidecar's own user (the SIDs of both
//! processes' tokens, `OpenProcessToken`, `TokenUser`).
//!
//! The decision is pure ([`server_owner_problem`]) and tested on every system; the calls into
//! Windows are the one place of the sidecar that needs `unsafe`.

/// Why a pipe served by process `server_pid` running as `server_user` must not be trusted by a
/// sidecar running as `own_user` (both SIDs in their string form, `S-1-5-21-…`), as a sentence
/// saying what to do; `None` when it is this user's own. A SID's string form is compared
/// without regard to case, as Windows reads it.
pub fn server_owner_problem(pipe: &str, server_pid: u32, server_user: &str, own_user: &str) -> Option<String> {
    let wellformed = |sid: &str| {
        let bytes = sid.as_bytes();
        bytes.len() > 4 && bytes[..2].eq_ignore_ascii_case(b"S-") && bytes[2..].iter().all(|byte| byte.is_ascii_digit() || *byte == b'-')
    };
    if !wellformed(server_user) || !wellformed(own_user) {
        return Some(format!(
            "the named pipe {pipe} is served by process {server_pid}, whose user could not be told ({server_user:?}); refusing to send it the token. Reload the plugin in Obsidian, and check that no other program took the pipe's name"
        ));
    }
    if server_user.eq_ignore_ascii_case(own_user) {
        return None;
    }
    Some(format!(
        "the named pipe {pipe} is served by process {server_pid} of another user ({server_user}; you are {own_user}); refusing to send it the token. That user could read the agent's calls: close that process (or sign that user out), then reload the plugin in Obsidian, which makes its own pipe"
    ))
}

/// Checks that the server of the open client end `pipe` (named `name`) runs as this process's
/// user, before anything is written to it.
#[cfg(windows)]
pub fn check_server(pipe: &impl std::os::windows::io::AsRawHandle, name: &str) -> anyhow::Result<()> {
    use anyhow::Context as _;
    let server_pid =
        native::server_process_id(pipe.as_raw_handle()).with_context(|| format!("asking which process serves the named pipe {name}"))?;
    let server_user = native::process_user(Some(server_pid)).with_context(|| {
        format!("asking which user runs process {server_pid}, which serves the named pipe {name}; refusing to send it the token")
    })?;
    let own_user = native::process_user(None).context("asking which user this process runs as")?;
    match server_owner_problem(name, server_pid, &server_user, &own_user) {
        Some(problem) => anyhow::bail!("{problem}"),
        None => Ok(()),
    }
}

/// The calls into Windows' security API. Every pointer handed to Windows points at memory this
/// code owns for the whole call, and every handle opened is closed by [`Handle`]'s drop.
#[cfg(windows)]
#[allow(unsafe_code)]
mod native {
    use std::io;
    use std::os::windows::io::RawHandle;

    use windows_sys::Win32::Foundation::{CloseHandle, LocalFree, HANDLE, HLOCAL};
    use windows_sys::Win32::Security::Authorization::ConvertSidToStringSidW;
    use windows_sys::Win32::Security::{GetTokenInformation, TokenUser, TOKEN_QUERY, TOKEN_USER};
    use windows_sys::Win32::System::Pipes::GetNamedPipeServerProcessId;
    use windows_sys::Win32::System::Threading::{GetCurrentProcess, OpenProcess, OpenProcessToken, PROCESS_QUERY_LIMITED_INFORMATION};

    /// A handle this code opened, closed when dropped.
    struct Handle(HANDLE);

    impl Drop for Handle {
        fn drop(&mut self) {
            // SAFETY: the handle was opened by this module and is closed once, here.
            unsafe {
                CloseHandle(self.0);
            }
        }
    }

    /// The id of the process serving the pipe whose client end is `pipe`.
    pub fn server_process_id(pipe: RawHandle) -> io::Result<u32> {
        let mut pid = 0u32;
        // SAFETY: `pipe` is an open handle of the caller's for the whole call, and `pid` is a
        // local the call writes one u32 into.
        if unsafe { GetNamedPipeServerProcessId(pipe, &mut pid) } == 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(pid)
    }

    /// The string form of the SID of the user process `pid` runs as (`None`: this process).
    pub fn process_user(pid: Option<u32>) -> io::Result<String> {
        // SAFETY: plain calls with no pointer; the handle opened is owned by `opened`, and the
        // pseudo-handle of the current process needs no closing.
        let (process, _opened) = match pid {
            None => (unsafe { GetCurrentProcess() }, None),
            Some(pid) => {
                let process = unsafe { OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, 0, pid) };
                if process.is_null() {
                    return Err(io::Error::last_os_error());
                }
                (process, Some(Handle(process)))
            }
        };
        let mut token: HANDLE = std::ptr::null_mut();
        // SAFETY: `process` is open for the call, and `token` is a local the call writes into.
        if unsafe { OpenProcessToken(process, TOKEN_QUERY, &mut token) } == 0 {
            return Err(io::Error::last_os_error());
        }
        let token = Handle(token);
        let mut needed = 0u32;
        // SAFETY: asks for the size only (no buffer, length 0); `needed` is a local.
        unsafe { GetTokenInformation(token.0, TokenUser, std::ptr::null_mut(), 0, &mut needed) };
        if needed == 0 {
            return Err(io::Error::last_os_error());
        }
        // A buffer of u64s, so that the TOKEN_USER at its start is aligned as Windows writes it.
        let mut buffer = vec![0u64; (needed as usize).div_ceil(8)];
        // SAFETY: `buffer` holds at least `needed` bytes for the whole call.
        if unsafe { GetTokenInformation(token.0, TokenUser, buffer.as_mut_ptr().cast(), needed, &mut needed) } == 0 {
            return Err(io::Error::last_os_error());
        }
        // SAFETY: the call succeeded, so the buffer starts with a TOKEN_USER whose SID points
        // into the same buffer, which lives until the end of this function.
        let sid = unsafe { (*buffer.as_ptr().cast::<TOKEN_USER>()).User.Sid };
        let mut text: *mut u16 = std::ptr::null_mut();
        // SAFETY: `sid` is valid (above); `text` receives a string Windows allocates with
        // LocalAlloc, freed below once read.
        if unsafe { ConvertSidToStringSidW(sid, &mut text) } == 0 || text.is_null() {
            return Err(io::Error::last_os_error());
        }
        let mut length = 0usize;
        // SAFETY: the string Windows wrote ends with a NUL, which bounds the reads.
        let sid_text = unsafe {
            while *text.add(length) != 0 {
                length += 1;
            }
            String::from_utf16_lossy(std::slice::from_raw_parts(text, length))
        };
        // SAFETY: `text` was allocated by ConvertSidToStringSidW and is freed once.
        unsafe { LocalFree(text.cast::<core::ffi::c_void>() as HLOCAL) };
        Ok(sid_text)
    }
}

#[cfg(test)]
mod tests {
    use super::server_owner_problem;

    const PIPE: &str = r"\\.\pipe\vaultlink-0123456789abcdef";
    const ADA: &str = "S-1-5-21-3623811015-3361044348-30300820-1013";
    const BOB: &str = "S-1-5-21-3623811015-3361044348-30300820-1014";

    #[test]
    fn a_pipe_served_by_the_same_user_is_trusted() {
        assert_eq!(server_owner_problem(PIPE, 4242, ADA, ADA), None);
        assert_eq!(server_owner_problem(PIPE, 4242, &ADA.to_lowercase(), ADA), None);
    }

    /// Issue 41: pipe names are machine-wide, so another user can serve `vaultlink-<key>` first.
    #[test]
    fn a_pipe_served_by_another_user_is_refused_naming_both() {
        let problem = server_owner_problem(PIPE, 4242, BOB, ADA).unwrap_or_default();
        assert!(problem.contains(PIPE) && problem.contains("4242") && problem.contains(BOB) && problem.contains(ADA), "{problem}");
        assert!(problem.contains("refusing to send it the token"), "{problem}");
    }

    /// LocalSystem (`S-1-5-18`) and the administrators' group are not the user either.
    #[test]
    fn a_pipe_served_by_system_is_refused() {
        assert!(server_owner_problem(PIPE, 4, "S-1-5-18", ADA).is_some());
        assert!(server_owner_problem(PIPE, 4, "S-1-5-32-544", ADA).is_some());
    }

    #[test]
    fn a_user_that_cannot_be_told_is_refused() {
        for unknown in ["", "S-", "not a sid", "S-1-5-21-x", "aé-1-5-18"] {
            assert!(server_owner_problem(PIPE, 7, unknown, ADA).is_some(), "{unknown:?}");
            assert!(server_owner_problem(PIPE, 7, ADA, unknown).is_some(), "{unknown:?}");
        }
    }
}

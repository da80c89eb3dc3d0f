//! The MCP server over Streamable HTTP (`vaultlink mcp --http`): rmcp's service under hyper's
//! HTTP/1.1 server, on a loopback address only, behind a bearer token, and bounded against
//! clients of this machine that do not have the token: a cap on open connections that closes
//! the oldest one without the token to make room, deadlines for a header and for the token, a
//! pause after a failed `accept`, each warning at most once an interval, and a cap on sessions.

use std::collections::{HashMap, VecDeque};
use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use futures_core::Stream;
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use rmcp::model::{ClientJsonRpcMessage, ServerJsonRpcMessage};
use rmcp::transport::streamable_http_server::session::local::{LocalSessionManager, LocalSessionManagerError};
use rmcp::transport::streamable_http_server::session::ServerSseMessage;
use rmcp::transport::streamable_http_server::{SessionId, SessionManager, StreamableHttpServerConfig, StreamableHttpService};
use tokio::sync::{Notify, OwnedSemaphorePermit, Semaphore};
use tokio::time::Instant;

use crate::mcp::VaultlinkServer;
use crate::tools::Router;

/// Where `--http` listens: a loopback address only. `localhost:PORT` means 127.0.0.1.
pub fn loopback_address(given: &str) -> Result<SocketAddr> {
    let address: SocketAddr = match given.strip_prefix("localhost:") {
        Some(port) => format!("127.0.0.1:{port}").parse(),
        None => given.parse(),
    }
    .with_context(|| format!("--http {given:?} is not an address with a port; give one such as 127.0.0.1:8765"))?;
    if !address.ip().is_loopback() {
        bail!(
            "--http {given} is not a loopback address: it would let other machines reach the vault. \
             Give 127.0.0.1:<port> or [::1]:<port>"
        );
    }
    Ok(address)
}

/// The least length of a token given in `VAULTLINK_HTTP_TOKEN`.
const MIN_TOKEN_CHARS: usize = 32;

/// The bearer token HTTP clients must send: `VAULTLINK_HTTP_TOKEN` when set, else 256 random
/// bits written (mode 0600) to `<runtime dir>/<vault key>.http-token`. Returns the token and,
/// when generated, the file.
pub fn http_token(vault: &Path) -> Result<(String, Option<PathBuf>)> {
    if let Some(token) = std::env::var_os("VAULTLINK_HTTP_TOKEN").filter(|token| !token.is_empty()) {
        let token = token.into_string().map_err(|_| anyhow::anyhow!("VAULTLINK_HTTP_TOKEN is not UTF-8"))?;
        if token.chars().count() < MIN_TOKEN_CHARS || token.chars().any(|c| c.is_whitespace() || c.is_control()) {
            bail!("VAULTLINK_HTTP_TOKEN must be at least {MIN_TOKEN_CHARS} characters without spaces; `openssl rand -hex 32` makes one");
        }
        return Ok((token, None));
    }
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|error| anyhow::anyhow!("no random token could be made: {error}"))?;
    let token = vaultlink_core::hex::hex(&bytes);
    let dir = crate::discovery::bridge_dir()
        .ok_or_else(|| anyhow::anyhow!("the home folder is not known (HOME is not set), so there is no private folder for the token file; set HOME or VAULTLINK_HTTP_TOKEN"))?;
    create_private_dir(&dir)?;
    let file = dir.join(format!("{}.http-token", crate::discovery::vault_key(vault)));
    write_private(&file, &token).with_context(|| format!("writing the token to {}", file.display()))?;
    Ok((token, Some(file)))
}

#[cfg(unix)]
fn create_private_dir(dir: &Path) -> Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    if !dir.exists() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let meta = std::fs::symlink_metadata(dir).with_context(|| format!("reading {}", dir.display()))?;
    match crate::discovery::private_dir_problem(dir, &meta, "the HTTP token is not written into it") {
        Some(problem) => bail!("{problem}"),
        None => Ok(()),
    }
}

#[cfg(not(unix))]
fn create_private_dir(dir: &Path) -> Result<()> {
    std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))
}

#[cfg(unix)]
fn write_private(file: &Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let mut handle = std::fs::OpenOptions::new().write(true).create(true).truncate(true).mode(0o600).open(file)?;
    // An older file keeps its mode through `open`; make it private either way.
    handle.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    handle.write_all(text.as_bytes())
}

#[cfg(not(unix))]
fn write_private(file: &Path, text: &str) -> std::io::Result<()> {
    std::fs::write(file, text)
}

/// True when the request carries `Authorization: Bearer <token>`, compared in constant time.
fn authorized<B>(request: &hyper::Request<B>, token: &str) -> bool {
    let Some(given) = request
        .headers()
        .get(hyper::header::AUTHORIZATION)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.strip_prefix("Bearer "))
    else {
        return false;
    };
    let (given, expected) = (given.trim().as_bytes(), token.as_bytes());
    given.len() == expected.len() && given.iter().zip(expected).fold(0u8, |diff, (a, b)| diff | (a ^ b)) == 0
}

/// True unless the request carries an `Origin` that is not this machine's: a web page elsewhere
/// (or one a rebinding DNS name points here) may not drive the server, as the MCP specification
/// asks. Clients that are not browsers send no `Origin`.
fn origin_allowed<B>(request: &hyper::Request<B>) -> bool {
    let Some(origin) = request.headers().get(hyper::header::ORIGIN) else { return true };
    let Ok(origin) = origin.to_str() else { return false };
    let Some(rest) = origin.strip_prefix("http://").or_else(|| origin.strip_prefix("https://")) else { return false };
    let host = match rest.strip_prefix('[') {
        Some(bracketed) => bracketed.split(']').next().unwrap_or_default(),
        None => rest.split(':').next().unwrap_or_default(),
    };
    matches!(host, "localhost" | "127.0.0.1" | "::1") && !rest.contains('/')
}

type HttpBody = http_body_util::combinators::BoxBody<Bytes, Infallible>;

fn plain(status: hyper::StatusCode, text: &str) -> hyper::Response<HttpBody> {
    let mut response = hyper::Response::new(Full::new(Bytes::from(text.to_owned())).boxed());
    *response.status_mut() = status;
    response.headers_mut().insert(hyper::header::CONTENT_TYPE, hyper::header::HeaderValue::from_static("text/plain; charset=utf-8"));
    if status == hyper::StatusCode::UNAUTHORIZED {
        response
            .headers_mut()
            .insert(hyper::header::WWW_AUTHENTICATE, hyper::header::HeaderValue::from_static("Bearer realm=\"vaultlink\""));
    }
    response
}

/// Open connections at most, whoever holds them. An agent's client holds two or three (its
/// POSTs, the GET stream of the server's messages), so 64 leaves room for several clients and
/// stays well under the files a process may open by default (256 on macOS, 1,024 on Linux).
/// When every place is taken, a new connection closes the oldest one that has not shown the
/// token; connections that have shown it are never closed to make room, and only when every
/// place is theirs is a new connection refused (503).
pub const MAX_CONNECTIONS: usize = 64;

/// How long a request's header may take to arrive, from the start of the connection or the end
/// of the answer before; a connection idle that long between requests is closed too. A client on
/// this machine sends its header at once; one that sends half of it holds a file until then.
pub const HEADER_READ_TIMEOUT: Duration = Duration::from_secs(5);

/// How long a connection may stay open before a request of it carries the token, however it
/// spends the time (a slow header, requests without the token): as long as the bridge gives a
/// client to say `hello`.
pub const TOKEN_DEADLINE: Duration = Duration::from_secs(10);

/// The pause after a failed `accept`, doubled while `accept` keeps failing, up to
/// [`ACCEPT_PAUSE_MAX`]: out of files (`EMFILE`, `ENFILE`), `accept` fails at once for as long
/// as the connection waits in the queue, and the loop must not spin on it.
const ACCEPT_PAUSE_FIRST: Duration = Duration::from_millis(10);
const ACCEPT_PAUSE_MAX: Duration = Duration::from_secs(1);

/// The same warning is written at most once in this interval; the next one says how many were
/// held back. A flood of failed `accept`s once wrote 184 MiB of one warning in 12 s (issue 34).
const WARNING_INTERVAL: Duration = Duration::from_secs(10);

/// MCP sessions at most. A client that initializes and never ends its session with `DELETE`
/// leaves it open (3,000 of them took 176 MB, issue 34); past this many, the session used least
/// recently is closed to make room (its client, as the MCP specification asks, initializes again
/// when its session is not found).
pub const MAX_SESSIONS: usize = 64;

/// A session that has had no request for this long is closed. Long enough for an agent that
/// thinks a while between calls; the cap above bounds what idle sessions hold in the meantime.
pub const SESSION_IDLE_TIMEOUT: Duration = Duration::from_secs(30 * 60);

/// Serves MCP over Streamable HTTP at `http://<address>/mcp` until SIGTERM, SIGINT or SIGHUP
/// (Ctrl-C on Windows). The token file, when the token was made here, is removed when it
/// returns, however it returns.
pub async fn serve_http(router: Router, address: SocketAddr) -> Result<()> {
    // Listened for before the server is announced, so that a signal sent as soon as it is stops
    // it cleanly.
    let mut stop = StopSignals::listen()?;
    let (token, token_file) = http_token(router.vault())?;
    let token_file = token_file.map(|path| TokenFile { path, token: token.clone() });
    let listener = tokio::net::TcpListener::bind(address).await.with_context(|| format!("listening on {address} (is the port taken?)"))?;
    let bound = listener.local_addr()?;
    match &token_file {
        Some(file) => eprintln!(
            "vaultlink: MCP over HTTP at http://{bound}/mcp\nvaultlink: send `Authorization: Bearer {token}` (also in {}, mode 0600)",
            file.path.display()
        ),
        None => eprintln!("vaultlink: MCP over HTTP at http://{bound}/mcp\nvaultlink: send `Authorization: Bearer` with the token in VAULTLINK_HTTP_TOKEN"),
    }
    let server = VaultlinkServer::new(router);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(Sessions::new(MAX_SESSIONS, SESSION_IDLE_TIMEOUT)),
        // Its defaults accept only loopback `Host` headers, against DNS rebinding.
        StreamableHttpServerConfig::default(),
    );
    let token: Arc<str> = token.into();
    let connections = Connections::new(MAX_CONNECTIONS);
    let (mut pause, mut accept_failed, mut refused) = (Pause::default(), Warning::new(WARNING_INTERVAL), Warning::new(WARNING_INTERVAL));
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            signal = stop.next() => {
                eprintln!("vaultlink: stopping: {signal}");
                break;
            }
        };
        let (stream, peer) = match accepted {
            Ok(accepted) => {
                pause.reset();
                accepted
            }
            // Out of files, the oldest connection without the token gives its file to the one
            // waiting, which may be a client with the token.
            Err(error) if out_of_files(&error) && connections.shed_oldest() => {
                if let Some(held_back) = accept_failed.allow(Instant::now()) {
                    tracing::warn!(
                        "accepting a connection failed: {error}; closed the oldest connection without the token{}",
                        held_back_note(held_back)
                    );
                }
                // On the server's one thread, the closed connection's task runs before this one
                // again, and gives back its file.
                tokio::task::yield_now().await;
                continue;
            }
            Err(error) => {
                let delay = pause.next();
                if let Some(held_back) = accept_failed.allow(Instant::now()) {
                    tracing::warn!(
                        "accepting a connection failed: {error}; trying again in {} ms{}",
                        delay.as_millis(),
                        held_back_note(held_back)
                    );
                }
                tokio::select! {
                    () = tokio::time::sleep(delay) => continue,
                    signal = stop.next() => {
                        eprintln!("vaultlink: stopping: {signal}");
                        break;
                    }
                }
            }
        };
        let Some(ticket) = connections.admit().await else {
            if let Some(held_back) = refused.allow(Instant::now()) {
                tracing::warn!(
                    "refused a connection: all {MAX_CONNECTIONS} are held by clients with the token{}",
                    held_back_note(held_back)
                );
            }
            refuse(&stream);
            continue;
        };
        let (service, token) = (service.clone(), Arc::clone(&token));
        tokio::spawn(async move {
            if let Err(reason) = serve_connection(stream, ticket, token, service).await {
                tracing::debug!("the HTTP connection from {peer} ended: {reason}");
            }
        });
    }
    drop(token_file);
    Ok(())
}

/// Serves one connection until it ends, is closed to make room for another, or has not shown
/// the token within [`TOKEN_DEADLINE`]. Every request is checked: the token, then the origin,
/// then the path; only then does rmcp see it.
async fn serve_connection<I, S>(
    io: I,
    ticket: Arc<Ticket>,
    token: Arc<str>,
    service: StreamableHttpService<S, Sessions>,
) -> Result<(), String>
where
    I: tokio::io::AsyncRead + tokio::io::AsyncWrite + Unpin + Send + 'static,
    S: rmcp::ServerHandler + Send + 'static,
{
    let handler = {
        let ticket = Arc::clone(&ticket);
        hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
            let (service, token, ticket) = (service.clone(), Arc::clone(&token), Arc::clone(&ticket));
            async move {
                if !authorized(&request, &token) {
                    return Ok::<_, Infallible>(plain(
                        hyper::StatusCode::UNAUTHORIZED,
                        "vaultlink: send `Authorization: Bearer <token>` with the token the server printed when it started",
                    ));
                }
                ticket.authenticate();
                if !origin_allowed(&request) {
                    return Ok(plain(
                        hyper::StatusCode::FORBIDDEN,
                        "vaultlink serves clients on this machine only: the request's Origin is not localhost",
                    ));
                }
                if request.uri().path() != "/mcp" {
                    return Ok(plain(hyper::StatusCode::NOT_FOUND, "vaultlink serves MCP at /mcp only"));
                }
                Ok(service.handle(request).await)
            }
        })
    };
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(hyper_util::rt::TokioTimer::new()).header_read_timeout(HEADER_READ_TIMEOUT);
    let serving = http.serve_connection(hyper_util::rt::TokioIo::new(io), handler);
    tokio::select! {
        served = serving => served.map_err(|error| error.to_string()),
        () = ticket.shed() => Err("closed to make room for another connection".to_owned()),
        () = ticket.past_deadline(TOKEN_DEADLINE) => Err(format!("no request with the token within {} s", TOKEN_DEADLINE.as_secs())),
    }
}

/// Answers a connection there is no place for, without waiting on it: the answer fits in a new
/// socket's buffer, and one that does not is dropped with the connection.
fn refuse(stream: &tokio::net::TcpStream) {
    let text = format!("vaultlink: all {MAX_CONNECTIONS} connections are held by clients with the token; close one and try again\n");
    let answer = format!(
        "HTTP/1.1 503 Service Unavailable\r\nConnection: close\r\nContent-Type: text/plain; charset=utf-8\r\nContent-Length: {}\r\n\r\n{text}",
        text.len()
    );
    let _ = stream.try_write(answer.as_bytes());
}

/// True for the `accept` errors of a process (`EMFILE`) or a system (`ENFILE`) out of files.
fn out_of_files(error: &std::io::Error) -> bool {
    #[cfg(unix)]
    let codes = [libc::EMFILE, libc::ENFILE];
    // WSAEMFILE: no more sockets for this process.
    #[cfg(not(unix))]
    let codes = [10024];
    error.raw_os_error().is_some_and(|code| codes.contains(&code))
}

/// The open connections: a place each, at most `limit`, and the order in which the ones that
/// have not shown the token came, oldest first, to close them to make room.
#[derive(Debug)]
pub struct Connections {
    places: Arc<Semaphore>,
    waiting: Mutex<Waiting>,
}

#[derive(Debug, Default)]
struct Waiting {
    next_id: u64,
    /// The connections without the token, oldest first, each with the signal that closes it.
    unauthenticated: VecDeque<(u64, Arc<Notify>)>,
    authenticated: usize,
}

impl Connections {
    pub fn new(limit: usize) -> Arc<Connections> {
        Arc::new(Connections { places: Arc::new(Semaphore::new(limit)), waiting: Mutex::new(Waiting::default()) })
    }

    fn waiting(&self) -> std::sync::MutexGuard<'_, Waiting> {
        self.waiting.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// A place for a new connection: a free one, or the place of the oldest connection without
    /// the token, once it has closed. None when every place is held by a connection with the
    /// token.
    pub async fn admit(self: &Arc<Self>) -> Option<Arc<Ticket>> {
        let place = match Arc::clone(&self.places).try_acquire_owned() {
            Ok(place) => place,
            Err(_) => {
                if !self.shed_oldest() {
                    return None;
                }
                Arc::clone(&self.places).acquire_owned().await.ok()?
            }
        };
        let shed = Arc::new(Notify::new());
        let mut waiting = self.waiting();
        waiting.next_id += 1;
        let id = waiting.next_id;
        waiting.unauthenticated.push_back((id, Arc::clone(&shed)));
        Some(Arc::new(Ticket { id, connections: Arc::clone(self), shed, authenticated: AtomicBool::new(false), _place: place }))
    }

    /// Closes the oldest connection that has not shown the token; false when there is none.
    pub fn shed_oldest(&self) -> bool {
        match self.waiting().unauthenticated.pop_front() {
            Some((_, shed)) => {
                shed.notify_one();
                true
            }
            None => false,
        }
    }

    /// How many connections are open without the token, and with it.
    #[cfg(test)]
    fn counts(&self) -> (usize, usize) {
        let waiting = self.waiting();
        (waiting.unauthenticated.len(), waiting.authenticated)
    }
}

/// One connection's place among the open ones, given back when the connection ends.
#[derive(Debug)]
pub struct Ticket {
    id: u64,
    connections: Arc<Connections>,
    shed: Arc<Notify>,
    authenticated: AtomicBool,
    _place: OwnedSemaphorePermit,
}

impl Ticket {
    /// Records that a request of this connection carried the token: it is never closed to make
    /// room, and has no deadline. A connection already chosen to close stays chosen.
    pub fn authenticate(&self) {
        if self.authenticated.load(Ordering::Acquire) {
            return;
        }
        let mut waiting = self.connections.waiting();
        if let Some(index) = waiting.unauthenticated.iter().position(|(id, _)| *id == self.id) {
            waiting.unauthenticated.remove(index);
            waiting.authenticated += 1;
            self.authenticated.store(true, Ordering::Release);
        }
    }

    /// Ends when this connection is chosen to close to make room for another.
    async fn shed(&self) {
        self.shed.notified().await;
    }

    /// Ends `deadline` after now if the connection has not shown the token by then; never
    /// otherwise.
    async fn past_deadline(&self, deadline: Duration) {
        tokio::time::sleep(deadline).await;
        if self.authenticated.load(Ordering::Acquire) {
            std::future::pending::<()>().await;
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        let mut waiting = self.connections.waiting();
        if self.authenticated.load(Ordering::Acquire) {
            waiting.authenticated -= 1;
        } else if let Some(index) = waiting.unauthenticated.iter().position(|(id, _)| *id == self.id) {
            waiting.unauthenticated.remove(index);
        }
    }
}

/// The pause before trying `accept` again after it failed: [`ACCEPT_PAUSE_FIRST`], doubled each
/// time it fails again, up to [`ACCEPT_PAUSE_MAX`]; back to the first once one succeeds.
#[derive(Debug, Default)]
struct Pause {
    last: Option<Duration>,
}

impl Pause {
    fn next(&mut self) -> Duration {
        let delay = self.last.map_or(ACCEPT_PAUSE_FIRST, |last| (last * 2).min(ACCEPT_PAUSE_MAX));
        self.last = Some(delay);
        delay
    }

    fn reset(&mut self) {
        self.last = None;
    }
}

/// One warning, written at most once an interval; the times it was held back in between are
/// counted and told with the next one written.
#[derive(Debug)]
struct Warning {
    interval: Duration,
    last: Option<Instant>,
    held_back: u64,
}

impl Warning {
    fn new(interval: Duration) -> Warning {
        Warning { interval, last: None, held_back: 0 }
    }

    /// Some(times held back since the last one written) when the warning may be written now.
    fn allow(&mut self, now: Instant) -> Option<u64> {
        match self.last {
            Some(last) if now.saturating_duration_since(last) < self.interval => {
                self.held_back += 1;
                None
            }
            _ => {
                self.last = Some(now);
                Some(std::mem::take(&mut self.held_back))
            }
        }
    }
}

fn held_back_note(held_back: u64) -> String {
    match held_back {
        0 => String::new(),
        count => format!(" (the same {count} more times in the last {} s, not written)", WARNING_INTERVAL.as_secs()),
    }
}

/// What stops the server cleanly: SIGTERM, SIGINT or SIGHUP (Ctrl-C on Windows), and a stdin
/// pipe closed by the program that started the server.
#[derive(Debug)]
struct StopSignals {
    signals: Signals,
    stdin_closed: Option<tokio::sync::oneshot::Receiver<()>>,
}

impl StopSignals {
    fn listen() -> Result<StopSignals> {
        Ok(StopSignals { signals: Signals::listen()?, stdin_closed: stdin_pipe_closed() })
    }

    /// What stopped the server, once something has. Not called again after it answers.
    async fn next(&mut self) -> &'static str {
        let (signals, stdin_closed) = (&mut self.signals, &mut self.stdin_closed);
        let stdin_closed = async {
            match stdin_closed {
                Some(closed) => {
                    let _ = closed.await;
                }
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            () = stdin_closed => "stdin was closed",
            signal = signals.next() => signal,
        }
    }
}

#[cfg(unix)]
#[derive(Debug)]
struct Signals {
    terminate: tokio::signal::unix::Signal,
    interrupt: tokio::signal::unix::Signal,
    hangup: tokio::signal::unix::Signal,
}

#[cfg(unix)]
impl Signals {
    fn listen() -> Result<Signals> {
        use tokio::signal::unix::{signal, SignalKind};
        let listen = |kind: SignalKind| signal(kind).context("listening for the signals that stop the server");
        Ok(Signals {
            terminate: listen(SignalKind::terminate())?,
            interrupt: listen(SignalKind::interrupt())?,
            hangup: listen(SignalKind::hangup())?,
        })
    }

    async fn next(&mut self) -> &'static str {
        tokio::select! {
            _ = self.terminate.recv() => "SIGTERM was received",
            _ = self.interrupt.recv() => "SIGINT was received",
            _ = self.hangup.recv() => "SIGHUP was received",
        }
    }
}

#[cfg(not(unix))]
#[derive(Debug)]
struct Signals;

#[cfg(not(unix))]
impl Signals {
    fn listen() -> Result<Signals> {
        Ok(Signals)
    }

    async fn next(&mut self) -> &'static str {
        match tokio::signal::ctrl_c().await {
            Ok(()) => "Ctrl-C was pressed",
            Err(_) => std::future::pending().await,
        }
    }
}

/// Answers once stdin is a pipe that its writer has closed: the program that started the server
/// and held the pipe is gone. None when stdin is not a pipe: a server started with stdin on
/// `/dev/null` (a service manager, a test) or on a terminal runs until a signal, since over
/// HTTP stdin carries nothing. Read on a thread of its own, which does not hold the process
/// when it ends.
fn stdin_pipe_closed() -> Option<tokio::sync::oneshot::Receiver<()>> {
    #[cfg(unix)]
    {
        use std::io::Read;
        use std::os::fd::AsFd;
        use std::os::unix::fs::FileTypeExt;
        let stdin = std::io::stdin();
        let metadata = stdin.as_fd().try_clone_to_owned().ok().map(std::fs::File::from).and_then(|file| file.metadata().ok())?;
        if !metadata.file_type().is_fifo() {
            return None;
        }
        let (closed, receiver) = tokio::sync::oneshot::channel();
        std::thread::spawn(move || {
            let mut stdin = stdin.lock();
            let mut ignored = [0u8; 4_096];
            loop {
                match stdin.read(&mut ignored) {
                    Ok(0) => break,
                    Ok(_) => {}
                    Err(error) if error.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            let _ = closed.send(());
        });
        Some(receiver)
    }
    #[cfg(not(unix))]
    None
}

/// The token file of a server that made its own token, removed when the server stops, however
/// it stops short of being killed, and only while it still holds this server's token: a later
/// server of the same vault writes its own there.
#[derive(Debug)]
struct TokenFile {
    path: PathBuf,
    token: String,
}

impl Drop for TokenFile {
    fn drop(&mut self) {
        if std::fs::read_to_string(&self.path).is_ok_and(|held| held == self.token) {
            if let Err(error) = std::fs::remove_file(&self.path) {
                tracing::warn!("the token file {} could not be removed: {error}", self.path.display());
            }
        }
    }
}

/// The order in which sessions were used.
#[derive(Debug, Default)]
struct Uses {
    count: u64,
    last: HashMap<SessionId, u64>,
}

/// rmcp's sessions, at most `limit` of them, each closed after `idle` without a request: when a
/// new one would pass the limit, the one used least recently is closed first.
#[derive(Debug)]
pub struct Sessions {
    local: LocalSessionManager,
    limit: usize,
    /// When each open session was last used, as a count of uses of any session (an order no
    /// clock can make equal).
    used: Mutex<Uses>,
    /// One session made at a time, so that two cannot both take the last place.
    making: tokio::sync::Mutex<()>,
}

impl Sessions {
    pub fn new(limit: usize, idle: Duration) -> Sessions {
        let mut local = LocalSessionManager::default();
        local.session_config.keep_alive = Some(idle);
        Sessions { local, limit, used: Mutex::new(Uses::default()), making: tokio::sync::Mutex::new(()) }
    }

    fn used(&self) -> std::sync::MutexGuard<'_, Uses> {
        self.used.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn touch(&self, id: &SessionId) {
        let mut used = self.used();
        used.count += 1;
        let count = used.count;
        if let Some(last) = used.last.get_mut(id) {
            *last = count;
        }
    }

    /// How many sessions rmcp holds.
    #[cfg(test)]
    async fn count(&self) -> usize {
        self.local.sessions.read().await.len()
    }
}

impl SessionManager for Sessions {
    type Error = LocalSessionManagerError;
    type Transport = <LocalSessionManager as SessionManager>::Transport;

    async fn create_session(&self) -> Result<(SessionId, Self::Transport), Self::Error> {
        let _making = self.making.lock().await;
        loop {
            let least_recent = {
                let used = self.used();
                if used.last.len() < self.limit {
                    break;
                }
                used.last.iter().min_by_key(|(_, last)| **last).map(|(id, _)| id.clone())
            };
            let Some(id) = least_recent else { break };
            tracing::info!("closing MCP session {id}, used least recently, to make room for a new one");
            self.used().last.remove(&id);
            if let Err(error) = self.local.close_session(&id).await {
                tracing::debug!("closing MCP session {id}: {error}");
            }
        }
        let (id, transport) = self.local.create_session().await?;
        let mut used = self.used();
        used.count += 1;
        let count = used.count;
        used.last.insert(id.clone(), count);
        drop(used);
        Ok((id, transport))
    }

    async fn initialize_session(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<ServerJsonRpcMessage, Self::Error> {
        self.touch(id);
        self.local.initialize_session(id, message).await
    }

    async fn has_session(&self, id: &SessionId) -> Result<bool, Self::Error> {
        self.local.has_session(id).await
    }

    async fn close_session(&self, id: &SessionId) -> Result<(), Self::Error> {
        self.used().last.remove(id);
        self.local.close_session(id).await
    }

    async fn create_stream(
        &self,
        id: &SessionId,
        message: ClientJsonRpcMessage,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.local.create_stream(id, message).await
    }

    async fn accept_message(&self, id: &SessionId, message: ClientJsonRpcMessage) -> Result<(), Self::Error> {
        self.touch(id);
        self.local.accept_message(id, message).await
    }

    async fn create_standalone_stream(
        &self,
        id: &SessionId,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.local.create_standalone_stream(id).await
    }

    async fn resume(
        &self,
        id: &SessionId,
        last_event_id: String,
    ) -> Result<impl Stream<Item = ServerSseMessage> + Send + Sync + 'static, Self::Error> {
        self.touch(id);
        self.local.resume(id, last_event_id).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_this_machines_origins_may_call_over_http() {
        let with = |origin: Option<&str>| {
            let mut builder = hyper::Request::builder();
            if let Some(origin) = origin {
                builder = builder.header("origin", origin);
            }
            origin_allowed(&builder.body(()).unwrap())
        };
        for allowed in [None, Some("http://localhost:6274"), Some("http://127.0.0.1"), Some("https://[::1]:8080"), Some("http://localhost")]
        {
            assert!(with(allowed), "{allowed:?}");
        }
        for refused in [
            "http://evil.example",
            "http://localhost.evil.example",
            "null",
            "http://127.0.0.1.nip.io:80",
            "file://",
            "http://localhost:1/x",
        ] {
            assert!(!with(Some(refused)), "{refused}");
        }
    }

    #[test]
    fn only_loopback_addresses_are_served() {
        assert_eq!(loopback_address("127.0.0.1:8765").unwrap().port(), 8765);
        assert!(loopback_address("[::1]:0").is_ok());
        assert!(loopback_address("localhost:9").unwrap().ip().is_loopback());
        for address in ["0.0.0.0:8765", "192.168.1.2:80", "[::]:80"] {
            let refusal = format!("{:#}", loopback_address(address).unwrap_err());
            assert!(refusal.contains("not a loopback address"), "{address}: {refusal}");
        }
        assert!(format!("{:#}", loopback_address("8765").unwrap_err()).contains("with a port"));
    }

    #[test]
    fn the_bearer_token_must_match_exactly() {
        let request = |value: &str| hyper::Request::builder().header("authorization", value).body(()).unwrap();
        assert!(authorized(&request("Bearer abc"), "abc"));
        for wrong in ["Bearer abd", "Bearer ab", "Basic abc", "abc", "Bearer abcd"] {
            assert!(!authorized(&request(wrong), "abc"), "{wrong}");
        }
        assert!(!authorized(&hyper::Request::new(()), "abc"));
    }

    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    const TOKEN: &str = "a-token-of-the-right-length-and-no-spaces";

    /// A server that offers nothing: these tests are about connections and sessions.
    #[derive(Debug, Clone)]
    struct Quiet;

    impl rmcp::ServerHandler for Quiet {}

    fn service(sessions: Arc<Sessions>) -> StreamableHttpService<Quiet, Sessions> {
        StreamableHttpService::new(|| Ok(Quiet), sessions, StreamableHttpServerConfig::default())
    }

    /// A connection served as the listener serves one; the client's end and the serving task.
    async fn connect(connections: &Arc<Connections>) -> (tokio::io::DuplexStream, tokio::task::JoinHandle<Result<(), String>>) {
        let (client, server) = tokio::io::duplex(1 << 20);
        let ticket = connections.admit().await.expect("a place");
        let sessions = Arc::new(Sessions::new(MAX_SESSIONS, SESSION_IDLE_TIMEOUT));
        (client, tokio::spawn(serve_connection(server, ticket, Arc::from(TOKEN), service(sessions))))
    }

    /// Sends `request` every 2 s until the server has closed the connection (or an hour has
    /// passed); returns how long the connection lived.
    async fn keep_sending(client: &mut tokio::io::DuplexStream, request: &str) -> Duration {
        let started = Instant::now();
        while started.elapsed() < Duration::from_secs(3_600) {
            if client.write_all(request.as_bytes()).await.is_err() {
                break;
            }
            tokio::time::sleep(Duration::from_secs(2)).await;
        }
        started.elapsed()
    }

    /// Issue 34: a header sent by half held its connection, and so one of the server's files,
    /// for as long as the client liked.
    #[tokio::test(start_paused = true)]
    async fn a_header_sent_by_half_is_given_up_after_the_header_timeout() {
        let connections = Connections::new(4);
        let (mut client, serving) = connect(&connections).await;
        let started = Instant::now();
        client.write_all(b"POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-").await.expect("half a header");
        let mut answer = Vec::new();
        tokio::time::timeout(Duration::from_secs(3_600), client.read_to_end(&mut answer))
            .await
            .expect("the server closes the connection")
            .expect("a closed connection reads to its end");
        let waited = started.elapsed();
        assert!(waited >= HEADER_READ_TIMEOUT && waited < TOKEN_DEADLINE, "closed after {waited:?}");
        assert!(serving.await.expect("the task ends").is_err());
        assert_eq!(connections.counts(), (0, 0), "the connection gave back its place");
    }

    #[tokio::test(start_paused = true)]
    async fn requests_without_the_token_keep_no_connection_past_the_token_deadline() {
        let connections = Connections::new(4);
        let (mut client, serving) = connect(&connections).await;
        let lived = keep_sending(&mut client, "GET /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").await;
        assert!(lived >= TOKEN_DEADLINE && lived <= TOKEN_DEADLINE + Duration::from_secs(4), "lived {lived:?}");
        assert!(serving.await.expect("the task ends").expect_err("closed by the server").contains("token"));
        let mut answers = Vec::new();
        client.read_to_end(&mut answers).await.expect("the answers");
        assert!(String::from_utf8_lossy(&answers).starts_with("HTTP/1.1 401"), "each request was answered");
    }

    #[tokio::test(start_paused = true)]
    async fn a_connection_that_showed_the_token_has_no_deadline() {
        let connections = Connections::new(4);
        let (mut client, serving) = connect(&connections).await;
        let request = format!("GET /elsewhere HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer {TOKEN}\r\n\r\n");
        let sending = keep_sending(&mut client, &request);
        assert!(tokio::time::timeout(6 * TOKEN_DEADLINE, sending).await.is_err(), "the connection stays open");
        assert_eq!(connections.counts(), (0, 1));
        drop(client);
        if let Err(reason) = serving.await.expect("the task ends") {
            assert!(!reason.contains("token") && !reason.contains("make room"), "{reason}");
        }
        assert_eq!(connections.counts(), (0, 0));
    }

    /// Whether the connection holding `ticket` has been chosen to close, without waiting.
    async fn chosen_to_close(ticket: &Ticket) -> bool {
        tokio::time::timeout(Duration::from_millis(1), ticket.shed()).await.is_ok()
    }

    #[tokio::test(start_paused = true)]
    async fn a_new_connection_closes_the_oldest_without_the_token_and_never_one_with_it() {
        let connections = Connections::new(3);
        let oldest = connections.admit().await.expect("a place");
        let with_token = connections.admit().await.expect("a place");
        let third = connections.admit().await.expect("a place");
        with_token.authenticate();
        assert_eq!(connections.counts(), (2, 1));

        // Full: a fourth closes the oldest without the token, and has its place once it is gone.
        let fourth = tokio::spawn({
            let connections = Arc::clone(&connections);
            async move { connections.admit().await }
        });
        assert!(chosen_to_close(&oldest).await);
        assert!(!chosen_to_close(&with_token).await && !chosen_to_close(&third).await);
        assert!(!fourth.is_finished(), "no place until the oldest has closed");
        drop(oldest);
        let fourth = fourth.await.expect("the task ends").expect("the oldest one's place");
        assert_eq!(connections.counts(), (2, 1));

        // The token shown after it was chosen does not save it.
        third.authenticate();
        let fifth = tokio::spawn({
            let connections = Arc::clone(&connections);
            async move { connections.admit().await }
        });
        assert!(chosen_to_close(&fourth).await);
        fourth.authenticate();
        drop(fourth);
        let fifth = fifth.await.expect("the task ends").expect("the fourth one's place");
        fifth.authenticate();
        assert_eq!(connections.counts(), (0, 3));

        // Every place held by a connection with the token: refused, and nobody is closed.
        assert!(connections.admit().await.is_none());
        for ticket in [&with_token, &third, &fifth] {
            assert!(!chosen_to_close(ticket).await);
        }
        drop((with_token, third, fifth));
        assert_eq!(connections.counts(), (0, 0));
        assert!(connections.admit().await.is_some());
    }

    fn initialize() -> hyper::Request<Full<Bytes>> {
        let body = serde_json::json!({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}});
        hyper::Request::builder()
            .method("POST")
            .uri("/mcp")
            .header("host", "127.0.0.1")
            .header("content-type", "application/json")
            .header("accept", "application/json, text/event-stream")
            .body(Full::new(Bytes::from(body.to_string())))
            .expect("a request")
    }

    /// Issue 34: 3,000 `initialize` calls that never sent `DELETE` left 3,000 sessions open
    /// (176 MB).
    #[tokio::test(start_paused = true)]
    async fn sessions_left_open_are_capped_and_closed_once_idle() {
        let sessions = Arc::new(Sessions::new(MAX_SESSIONS, SESSION_IDLE_TIMEOUT));
        let service = service(Arc::clone(&sessions));
        let mut made = Vec::new();
        for _ in 0..3 * MAX_SESSIONS {
            let answer = service.handle(initialize()).await;
            assert_eq!(answer.status(), hyper::StatusCode::OK);
            let id = answer.headers().get("mcp-session-id").and_then(|id| id.to_str().ok()).expect("a session id");
            made.push(SessionId::from(id));
            assert!(sessions.count().await <= MAX_SESSIONS, "{} sessions open", sessions.count().await);
        }
        assert_eq!(sessions.count().await, MAX_SESSIONS);
        assert!(sessions.has_session(&made[made.len() - 1]).await.expect("an answer"), "the newest is open");
        assert!(!sessions.has_session(&made[0]).await.expect("an answer"), "the oldest was closed");

        // A session in use is kept over one used less recently.
        let kept = made[2 * MAX_SESSIONS].clone();
        sessions.touch(&kept);
        assert_eq!(service.handle(initialize()).await.status(), hyper::StatusCode::OK);
        assert!(sessions.has_session(&kept).await.expect("an answer"));
        assert!(!sessions.has_session(&made[2 * MAX_SESSIONS + 1]).await.expect("an answer"));

        tokio::time::sleep(SESSION_IDLE_TIMEOUT + Duration::from_secs(60)).await;
        assert_eq!(sessions.count().await, 0, "idle sessions are closed");
        assert!(sessions.used().last.is_empty());
    }

    #[test]
    fn the_pause_after_a_failed_accept_doubles_to_its_bound_and_starts_again_after_a_success() {
        let mut pause = Pause::default();
        let pauses: Vec<u128> = (0..10).map(|_| pause.next().as_millis()).collect();
        assert_eq!(pauses, [10, 20, 40, 80, 160, 320, 640, 1_000, 1_000, 1_000]);
        pause.reset();
        assert_eq!(pause.next(), ACCEPT_PAUSE_FIRST);
    }

    #[test]
    fn a_warning_is_written_once_an_interval_and_says_how_many_were_held_back() {
        let start = Instant::now();
        let mut warning = Warning::new(WARNING_INTERVAL);
        let at = |ms: u64| start + Duration::from_millis(ms);
        assert_eq!(warning.allow(at(0)), Some(0));
        let held: Vec<_> = (1..=1_000).filter_map(|ms| warning.allow(at(ms))).collect();
        assert!(held.is_empty(), "{held:?}");
        assert_eq!(warning.allow(at(10_000)), Some(1_000));
        assert_eq!(warning.allow(at(10_001)), None);
        assert_eq!(warning.allow(at(60_000)), Some(1));
        assert!(held_back_note(1_000).contains("1000 more times"));
    }

    /// Issue 34: the folder of the HTTP token file, when another user's (mode 0700), was taken
    /// as this user's, and the token written into it; refused, naming the owner. Making another
    /// user's folder needs root, as the case did.
    #[cfg(unix)]
    #[test]
    fn the_token_folder_of_another_user_is_refused_as_theirs() {
        use super::create_private_dir;
        if crate::state::user_id() != 0 {
            panic!("this test makes a folder of another user's, which needs root (run it as root, as CI does)");
        }
        let dir = tempfile::tempdir().unwrap();
        let folder = dir.path().join("vaultlink");
        create_private_dir(&folder).unwrap();
        std::os::unix::fs::chown(&folder, Some(65534), None).unwrap();
        let refused = format!("{:#}", create_private_dir(&folder).unwrap_err());
        assert!(refused.contains("belongs to another user (uid 65534; you are uid 0)") && !refused.contains("mode 0700"), "{refused}");
    }
}

//! The sidecar's end of the bridge: connects to the plugin's local socket, says `hello` with
//! the token from the discovery file, then forwards calls as newline-delimited JSON-RPC 2.0.
//!
//! One connection carries several calls at once: each request has its own id, a reader task
//! hands every answer to the call waiting for that id, and a connection that breaks fails
//! every call still waiting on it. Lines have a size limit in both directions. `docs/bridge.md`
//! is the protocol whole: where the socket is, the discovery file, `hello`, the limits.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;
use vaultlink_core::error::ErrorCode;

use anyhow::{anyhow, Context, Result};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};
use tokio::sync::oneshot;

use crate::discovery::{Discovery, PROTOCOL};
use crate::error::ToolError;

/// How long connecting and saying hello may take before the bridge counts as absent.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one forwarded call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(120);
/// The longest answer line read from the plugin; a larger one is not buffered: the connection
/// is closed and the calls waiting on it fail. (The plugin refuses to send a larger answer and
/// sends a `too_large` error instead, so this is a last guard.)
pub const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;
/// The longest request line sent; the plugin closes a connection on a longer one
/// (`MAX_LINE_BYTES` in plugin/bridge/protocol.ts), so a longer call is refused here.
pub const MAX_REQUEST_BYTES: usize = 1024 * 1024;

/// JSON-RPC error code the plugin uses for a failed operation; its `data` is a [`ToolError`].
const OPERATION_FAILED: i64 = -32000;

type Reader = Box<dyn AsyncRead + Unpin + Send>;
type Writer = Box<dyn AsyncWrite + Unpin + Send>;
type Answer = Result<Value, Value>;

/// One end of the bridge as the other sees it: its version, when it says it, and the bridge
/// protocol it speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct End<'a> {
    pub version: Option<&'a str>,
    pub protocol: u64,
}

/// This sidecar, as it says itself in `hello`.
pub const SIDECAR: End<'static> = End { version: Some(env!("CARGO_PKG_VERSION")), protocol: PROTOCOL as u64 };

/// What a version skew between the sidecar and the plugin says, naming both versions and which
/// to update (the one of the older protocol), or `None` when they speak the same protocol. The
/// plugin words it alike (`plugin/bridge/compatibility.ts`); `tests/vectors/version_skew.json`
/// holds the cases both check.
pub fn incompatibility(sidecar: End<'_>, plugin: End<'_>) -> Option<String> {
    if sidecar.protocol == plugin.protocol {
        return None;
    }
    let named = |version: Option<&str>| version.map_or_else(|| "(version not said)".to_owned(), str::to_owned);
    let (sidecar_version, plugin_version) = (named(sidecar.version), named(plugin.version));
    let skew = format!(
        "The vaultlink program {sidecar_version} speaks bridge protocol {} and the vaultlink plugin {plugin_version} in Obsidian speaks bridge protocol {}: they cannot work together.",
        sidecar.protocol, plugin.protocol
    );
    Some(if sidecar.protocol < plugin.protocol {
        format!("{skew} Update the vaultlink program to {plugin_version} or later: `cargo install vaultlink`, or the vaultlink program of that release; then restart the agent's MCP client.")
    } else {
        format!("{skew} Update the vaultlink plugin to {sidecar_version} or later: in Obsidian, Settings → Community plugins → Check for updates, or the plugin files of that release.")
    })
}

/// Why a forwarded call got no answer from the plugin.
#[derive(Debug, Clone)]
pub struct Lost {
    /// True when the request may have reached the plugin: it might have acted on it.
    pub delivered: bool,
    pub reason: String,
}

/// The calls waiting for an answer, and why the connection ended once it has.
#[derive(Debug, Default)]
struct Waiting {
    calls: HashMap<u64, oneshot::Sender<Answer>>,
    closed: Option<String>,
}

/// An authenticated connection to the plugin.
pub struct BridgeClient {
    writer: tokio::sync::Mutex<Writer>,
    waiting: Arc<Mutex<Waiting>>,
    next_id: AtomicU64,
    /// What the plugin called itself in its answer to `hello`, such as "vaultlink-plugin 0.1.0".
    pub server: String,
    pub plugin_version: Option<String>,
    reader: tokio::task::JoinHandle<()>,
}

impl std::fmt::Debug for BridgeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BridgeClient").field("server", &self.server).finish_non_exhaustive()
    }
}

impl Drop for BridgeClient {
    fn drop(&mut self) {
        self.reader.abort();
    }
}

/// Why connecting failed: nothing listens (the plugin is not running, or crashed and left its
/// discovery file), or something listens but would not serve us.
#[derive(Debug)]
pub enum ConnectError {
    NothingListens(anyhow::Error),
    Refused(anyhow::Error),
}

impl std::fmt::Display for ConnectError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ConnectError::NothingListens(error) | ConnectError::Refused(error) => write!(f, "{error:#}"),
        }
    }
}

/// Removes a call from the waiting list when its future is dropped (cancelled or timed out).
struct Unregister<'a> {
    waiting: &'a Mutex<Waiting>,
    id: u64,
}

impl Drop for Unregister<'_> {
    fn drop(&mut self) {
        if let Ok(mut waiting) = self.waiting.lock() {
            waiting.calls.remove(&self.id);
        }
    }
}

impl BridgeClient {
    /// Connects to the socket the discovery file names and authenticates.
    pub async fn connect(discovery: &Discovery) -> Result<BridgeClient, ConnectError> {
        let (reader, writer) = match tokio::time::timeout(CONNECT_TIMEOUT, open(discovery)).await {
            Err(_) => {
                return Err(ConnectError::Refused(anyhow!(
                    "the plugin (pid {}) did not accept the connection within {CONNECT_TIMEOUT:?}",
                    discovery.pid
                )))
            }
            Ok(Err(error)) => {
                let nothing = error
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|io| matches!(io.kind(), std::io::ErrorKind::ConnectionRefused | std::io::ErrorKind::NotFound));
                return Err(if nothing { ConnectError::NothingListens(error) } else { ConnectError::Refused(error) });
            }
            Ok(Ok(halves)) => halves,
        };
        let waiting = Arc::new(Mutex::new(Waiting::default()));
        let task = tokio::spawn(read_answers(BufReader::new(reader), Arc::clone(&waiting)));
        let mut client = BridgeClient {
            writer: tokio::sync::Mutex::new(writer),
            waiting,
            next_id: AtomicU64::new(1),
            server: String::new(),
            plugin_version: discovery.plugin_version.clone(),
            reader: task,
        };
        let hello = json!({
            "token": discovery.token,
            "protocol": PROTOCOL,
            "version": env!("CARGO_PKG_VERSION"),
            "client": format!("vaultlink {}", env!("CARGO_PKG_VERSION")),
        });
        let answer = tokio::time::timeout(CONNECT_TIMEOUT, client.request("hello", hello, std::future::pending())).await;
        let announced = End { version: discovery.plugin_version.as_deref(), protocol: u64::from(discovery.protocol) };
        match answer {
            Ok(Ok(Ok(result))) => {
                // The answer's own protocol and version, or the discovery file's from a plugin
                // that does not say them in `hello`.
                let plugin = End {
                    version: result.get("version").and_then(Value::as_str).or(announced.version),
                    protocol: result.get("protocol").and_then(Value::as_u64).unwrap_or(announced.protocol),
                };
                if let Some(skew) = incompatibility(SIDECAR, plugin) {
                    return Err(ConnectError::Refused(anyhow!(skew)));
                }
                client.server = result.get("server").and_then(Value::as_str).unwrap_or("vaultlink-plugin").to_owned();
                client.plugin_version = plugin.version.map(str::to_owned);
                Ok(client)
            }
            // A plugin of another protocol refuses our hello, in the same words.
            Ok(Ok(Err(error))) => Err(ConnectError::Refused(match incompatibility(SIDECAR, announced) {
                Some(skew) => anyhow!(skew),
                None => anyhow!("the plugin refused the connection: {}", error.message),
            })),
            Ok(Err(lost)) => Err(ConnectError::Refused(anyhow!("the plugin closed the connection during hello: {}", lost.reason))),
            Err(_) => Err(ConnectError::Refused(anyhow!("the plugin did not answer hello within {CONNECT_TIMEOUT:?}"))),
        }
    }

    /// True once the connection has ended; a new one must be made.
    pub fn is_closed(&self) -> bool {
        self.waiting.lock().map_or(true, |waiting| waiting.closed.is_some())
    }

    /// Runs one operation on the plugin's index. The outer error is the bridge failing; the
    /// inner one is the operation failing. Once `cancelled` finishes (the client cancelled the
    /// call), the plugin is told to stop it (`cancel`, naming the call), and its answer, the
    /// code `cancelled` when it stopped in time, is still awaited.
    pub async fn call(
        &self,
        tool: &str,
        arguments: Value,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<Result<Value, ToolError>, Lost> {
        let answer = self.request("call", json!({ "tool": tool, "arguments": arguments }), cancelled);
        match tokio::time::timeout(CALL_TIMEOUT, answer).await {
            Ok(answer) => answer,
            Err(_) => Err(Lost { delivered: true, reason: format!("the plugin did not answer within {CALL_TIMEOUT:?}") }),
        }
    }

    async fn request(
        &self,
        method: &str,
        params: Value,
        cancelled: impl std::future::Future<Output = ()>,
    ) -> Result<Result<Value, ToolError>, Lost> {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut line = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))
            .map_err(|error| Lost { delivered: false, reason: format!("the request could not be written as JSON: {error}") })?;
        if line.len() > MAX_REQUEST_BYTES {
            return Ok(Err(ToolError::new(
                ErrorCode::TooLarge,
                format!("the call is {} bytes, over the bridge's {MAX_REQUEST_BYTES}-byte limit for one request", line.len()),
                "Send shorter arguments.",
                false,
            )));
        }
        line.push(b'\n');
        let (sender, receiver) = oneshot::channel();
        {
            let mut waiting = self.waiting.lock().map_err(|_| Lost { delivered: false, reason: "a lock was poisoned".to_owned() })?;
            if let Some(reason) = &waiting.closed {
                return Err(Lost { delivered: false, reason: reason.clone() });
            }
            waiting.calls.insert(id, sender);
        }
        let _unregister = Unregister { waiting: &self.waiting, id };
        {
            let mut writer = self.writer.lock().await;
            // A line cut short by a failed write has no newline, so the plugin never runs it.
            let written = async {
                writer.write_all(&line).await?;
                writer.flush().await
            };
            if let Err(error) = written.await {
                let reason = format!("writing to the plugin's socket failed: {error}");
                close(&self.waiting, &reason);
                return Err(Lost { delivered: false, reason });
            }
        }
        let mut receiver = receiver;
        tokio::pin!(cancelled);
        let answer = tokio::select! {
            answer = &mut receiver => answer,
            () = &mut cancelled => {
                // A notification: the plugin answers the call itself, once it has stopped.
                let cancel = json!({"jsonrpc": "2.0", "method": "cancel", "params": {"id": id}});
                let mut line = cancel.to_string().into_bytes();
                line.push(b'\n');
                let mut writer = self.writer.lock().await;
                if let Err(error) = async { writer.write_all(&line).await?; writer.flush().await }.await {
                    tracing::info!("the plugin could not be told that call {id} was cancelled: {error}");
                }
                drop(writer);
                receiver.await
            }
        };
        let answer = answer.map_err(|_| Lost {
            delivered: true,
            reason: self.closed_reason().unwrap_or_else(|| "the plugin's connection ended".to_owned()),
        })?;
        Ok(match answer {
            Ok(result) => Ok(result),
            Err(error) => Err(match (error.get("code").and_then(Value::as_i64), error.get("data")) {
                (Some(OPERATION_FAILED), Some(data)) => serde_json::from_value(data.clone())
                    .unwrap_or_else(|_| ToolError::bridge("its error data is not {code, message, hint, retryable}")),
                _ => ToolError::bridge(error.get("message").and_then(Value::as_str).unwrap_or("the plugin refused the request")),
            }),
        })
    }

    fn closed_reason(&self) -> Option<String> {
        self.waiting.lock().ok().and_then(|waiting| waiting.closed.clone())
    }
}

/// Marks the connection closed and fails every waiting call.
fn close(waiting: &Mutex<Waiting>, reason: &str) {
    if let Ok(mut waiting) = waiting.lock() {
        if waiting.closed.is_none() {
            waiting.closed = Some(reason.to_owned());
        }
        // Dropping the senders wakes each waiting call with "connection ended".
        waiting.calls.clear();
    }
}

/// Reads answer lines until the connection ends, handing each to the call with its id.
async fn read_answers(mut reader: BufReader<Reader>, waiting: Arc<Mutex<Waiting>>) {
    loop {
        let line = match read_line(&mut reader).await {
            Ok(line) => line,
            Err(error) => {
                tracing::info!("the bridge connection ended: {error:#}");
                close(&waiting, &format!("{error:#}"));
                return;
            }
        };
        let answer: Value = match serde_json::from_slice(&line) {
            Ok(answer) => answer,
            Err(error) => {
                tracing::warn!("the plugin sent a line that is not JSON ({error}); ignored");
                continue;
            }
        };
        // Answers to hello and calls have a numeric id; anything else (a notification, an
        // error about an unreadable line) is not an answer to a waiting call.
        let Some(id) = answer.get("id").and_then(Value::as_u64) else {
            if let Some(error) = answer.get("error") {
                tracing::warn!("the plugin reported an error outside any call: {error}");
            }
            continue;
        };
        let outcome = match (answer.get("result"), answer.get("error")) {
            (Some(result), _) => Ok(result.clone()),
            (None, Some(error)) => Err(error.clone()),
            (None, None) => Err(json!({"code": -32603, "message": "the plugin's answer has neither result nor error"})),
        };
        let sender = waiting.lock().ok().and_then(|mut waiting| waiting.calls.remove(&id));
        match sender {
            Some(sender) => {
                let _ = sender.send(outcome);
            }
            None => tracing::debug!("an answer for call {id}, which no longer waits"),
        }
    }
}

/// One line without its newline, refusing to buffer more than `MAX_ANSWER_BYTES`.
async fn read_line(reader: &mut BufReader<Reader>) -> Result<Vec<u8>> {
    let mut line = Vec::new();
    loop {
        let buffer = reader.fill_buf().await.context("reading from the plugin's socket")?;
        if buffer.is_empty() {
            return Err(anyhow!("the plugin closed the connection"));
        }
        let (chunk, done) = match buffer.iter().position(|&byte| byte == b'\n') {
            Some(newline) => (&buffer[..newline], Some(newline + 1)),
            None => (buffer, None),
        };
        if line.len() + chunk.len() > MAX_ANSWER_BYTES {
            return Err(anyhow!("the plugin sent a line longer than {MAX_ANSWER_BYTES} bytes; the connection is closed"));
        }
        line.extend_from_slice(chunk);
        let consumed = done.unwrap_or(buffer.len());
        reader.consume(consumed);
        if done.is_some() {
            return Ok(line);
        }
    }
}

#[cfg(unix)]
async fn open(discovery: &Discovery) -> Result<(Reader, Writer)> {
    let stream = tokio::net::UnixStream::connect(&discovery.socket).await?;
    let (reader, writer) = stream.into_split();
    Ok((Box::new(reader), Box::new(writer)))
}

#[cfg(windows)]
async fn open(discovery: &Discovery) -> Result<(Reader, Writer)> {
    let pipe = tokio::net::windows::named_pipe::ClientOptions::new().open(&discovery.socket)?;
    // Pipe names are machine-wide: the server must be this user's before it hears the token.
    crate::pipe_owner::check_server(&pipe, &discovery.socket.to_string_lossy())?;
    let (reader, writer) = tokio::io::split(pipe);
    Ok((Box::new(reader), Box::new(writer)))
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    /// A fake plugin on a socket pair: answers hello, then runs `serve` on every later line.
    #[allow(clippy::unwrap_used)]
    async fn fake_plugin<F>(serve: F) -> (tempfile::TempDir, Discovery)
    where
        F: Fn(Value) -> Vec<String> + Send + 'static,
    {
        fake_plugin_greeting(|hello| json!({"jsonrpc": "2.0", "id": hello["id"], "result": {"server": "fake 1"}}), serve).await
    }

    /// [`fake_plugin`] whose answer to `hello` is `greet`'s.
    #[allow(clippy::unwrap_used)]
    async fn fake_plugin_greeting<G, F>(greet: G, serve: F) -> (tempfile::TempDir, Discovery)
    where
        G: Fn(Value) -> Value + Send + 'static,
        F: Fn(Value) -> Vec<String> + Send + 'static,
    {
        let dir = tempfile::tempdir().unwrap();
        let socket = dir.path().join("s.sock");
        let listener = tokio::net::UnixListener::bind(&socket).unwrap();
        tokio::spawn(async move {
            let (stream, _) = listener.accept().await.unwrap();
            let (reader, mut writer) = stream.into_split();
            let mut lines = BufReader::new(reader).lines();
            while let Ok(Some(line)) = lines.next_line().await {
                let request: Value = serde_json::from_str(&line).unwrap();
                let replies = if request["method"] == "hello" { vec![greet(request).to_string()] } else { serve(request) };
                for reply in replies {
                    if writer.write_all(format!("{reply}\n").as_bytes()).await.is_err() {
                        return;
                    }
                }
            }
        });
        let discovery = Discovery {
            socket,
            token: "t".into(),
            pid: 1,
            vault_path: dir.path().to_owned(),
            protocol: PROTOCOL,
            plugin_version: Some("0.0.1".into()),
            state: crate::discovery::PluginState::Ready,
        };
        (dir, discovery)
    }

    #[tokio::test]
    async fn answers_out_of_order_reach_the_calls_that_asked() {
        // The fake answers call 2 only when call 3 arrives, then both, newest first.
        let held = Arc::new(Mutex::new(None::<Value>));
        let (_dir, discovery) = fake_plugin(move |request| {
            let mut held = held.lock().unwrap();
            match held.take() {
                None => {
                    *held = Some(request);
                    vec![]
                }
                Some(first) => [request, first]
                    .iter()
                    .map(|call| {
                        json!({"jsonrpc": "2.0", "id": call["id"], "result": {"tool": call["params"]["arguments"]["n"]}}).to_string()
                    })
                    .collect(),
            }
        })
        .await;
        let client = BridgeClient::connect(&discovery).await.unwrap();
        assert_eq!(client.server, "fake 1");
        let (first, second) = tokio::join!(
            client.call("t", json!({"n": 1}), std::future::pending()),
            client.call("t", json!({"n": 2}), std::future::pending())
        );
        assert_eq!(first.unwrap().unwrap()["tool"], 1);
        assert_eq!(second.unwrap().unwrap()["tool"], 2);
    }

    #[tokio::test]
    async fn a_cancelled_call_is_named_to_the_plugin_whose_answer_it_still_awaits() {
        // The fake holds every call, and answers the one a `cancel` names as the plugin does
        // once it stopped.
        let (_dir, discovery) = fake_plugin(|request| {
            if request["method"] != "cancel" || request.get("id").is_some() {
                return vec![];
            }
            let error = json!({"code": "cancelled", "message": "stopped", "hint": "", "retryable": false});
            vec![json!({"jsonrpc": "2.0", "id": request["params"]["id"], "error": {"code": OPERATION_FAILED, "message": "stopped", "data": error}})
                .to_string()]
        })
        .await;
        let client = BridgeClient::connect(&discovery).await.unwrap();
        let (cancel, cancelled) = oneshot::channel::<()>();
        let call = client.call("t", json!({}), async move {
            let _ = cancelled.await;
        });
        let cancelling = async move {
            let _ = cancel.send(());
        };
        let (answer, ()) = tokio::join!(call, cancelling);
        assert_eq!(answer.unwrap().unwrap_err().code, ErrorCode::Cancelled.as_str());
    }

    #[tokio::test]
    async fn a_broken_connection_fails_the_waiting_calls_and_a_bad_line_is_skipped() {
        let (_dir, discovery) = fake_plugin(|request| {
            if request["params"]["arguments"]["n"] == 1 {
                // Not JSON, then the real answer: the connection stays usable.
                vec!["{not json".to_owned(), json!({"jsonrpc": "2.0", "id": request["id"], "result": {}}).to_string()]
            } else {
                // A line over the limit closes the connection.
                vec!["x".repeat(MAX_ANSWER_BYTES + 1)]
            }
        })
        .await;
        let client = BridgeClient::connect(&discovery).await.unwrap();
        assert!(client.call("t", json!({"n": 1}), std::future::pending()).await.unwrap().is_ok());
        let lost = client.call("t", json!({"n": 2}), std::future::pending()).await.unwrap_err();
        assert!(lost.delivered && lost.reason.contains("longer than"), "{lost:?}");
        assert!(client.is_closed());
        let again = client.call("t", json!({"n": 3}), std::future::pending()).await.unwrap_err();
        assert!(!again.delivered, "nothing is sent on a closed connection");
    }

    #[tokio::test]
    async fn an_oversized_request_is_refused_before_it_is_sent() {
        let (_dir, discovery) = fake_plugin(|request| vec![json!({"jsonrpc": "2.0", "id": request["id"], "result": {}}).to_string()]).await;
        let client = BridgeClient::connect(&discovery).await.unwrap();
        let refused = client.call("t", json!({"text": "x".repeat(MAX_REQUEST_BYTES)}), std::future::pending()).await.unwrap().unwrap_err();
        assert_eq!(refused.code, "too_large");
        assert!(client.call("t", json!({}), std::future::pending()).await.unwrap().is_ok(), "the connection stays usable");
    }

    #[tokio::test]
    async fn nothing_listening_is_told_apart_from_a_refusal() {
        let dir = tempfile::tempdir().unwrap();
        let discovery = Discovery {
            socket: dir.path().join("gone.sock"),
            token: "t".into(),
            pid: 1,
            vault_path: dir.path().to_owned(),
            protocol: PROTOCOL,
            plugin_version: None,
            state: crate::discovery::PluginState::Ready,
        };
        assert!(matches!(BridgeClient::connect(&discovery).await, Err(ConnectError::NothingListens(_))));
    }

    #[test]
    fn a_version_skew_is_worded_as_the_plugin_words_it() {
        let vectors: Value = serde_json::from_str(include_str!("../../../tests/vectors/version_skew.json")).unwrap();
        let cases = vectors["cases"].as_array().unwrap();
        assert!(cases.len() >= 4);
        for case in cases {
            let end = |side: &str| End { version: case[side]["version"].as_str(), protocol: case[side]["protocol"].as_u64().unwrap() };
            assert_eq!(incompatibility(end("sidecar"), end("plugin")).as_deref(), case["message"].as_str(), "{case}");
        }
    }

    #[tokio::test]
    async fn a_plugin_of_a_newer_protocol_is_refused_naming_both_versions_and_the_program_to_update() {
        // A plugin that says hello's answer with protocol 2 (its discovery file said 1).
        let (_dir, discovery) = fake_plugin_greeting(
            |hello| json!({"jsonrpc": "2.0", "id": hello["id"], "result": {"server": "fake 9", "protocol": PROTOCOL + 1, "version": "9.0.0"}}),
            |_| vec![],
        )
        .await;
        let Err(ConnectError::Refused(error)) = BridgeClient::connect(&discovery).await else { panic!("a skew must be refused") };
        let message = format!("{error:#}");
        assert!(
            message.contains(&format!("The vaultlink program {} speaks bridge protocol {PROTOCOL}", env!("CARGO_PKG_VERSION"))),
            "{message}"
        );
        assert!(message.contains("the vaultlink plugin 9.0.0 in Obsidian speaks bridge protocol 2"), "{message}");
        assert!(message.contains("Update the vaultlink program to 9.0.0 or later"), "{message}");
    }

    #[tokio::test]
    async fn a_plugin_of_an_older_protocol_that_refuses_hello_is_named_as_the_one_to_update() {
        // Its discovery file says protocol 0 and version 0.0.1; it refuses the hello of protocol 1.
        let (_dir, mut discovery) = fake_plugin_greeting(
            |hello| json!({"jsonrpc": "2.0", "id": hello["id"], "error": {"code": -32002, "message": "incompatible"}}),
            |_| vec![],
        )
        .await;
        discovery.protocol = 0;
        let Err(ConnectError::Refused(error)) = BridgeClient::connect(&discovery).await else { panic!("a skew must be refused") };
        let message = format!("{error:#}");
        assert!(message.contains("the vaultlink plugin 0.0.1 in Obsidian speaks bridge protocol 0"), "{message}");
        assert!(message.contains(&format!("Update the vaultlink plugin to {} or later", env!("CARGO_PKG_VERSION"))), "{message}");
    }

    #[tokio::test]
    async fn hello_says_the_sidecars_version_and_protocol_and_keeps_the_plugins_version() {
        let (_dir, discovery) = fake_plugin_greeting(
            |hello| {
                // The fake plugin echoes what hello said, as its version, so the test sees it.
                let said = format!("{}/{}", hello["params"]["version"].as_str().unwrap_or("none"), hello["params"]["protocol"]);
                json!({"jsonrpc": "2.0", "id": hello["id"], "result": {"server": "fake", "protocol": PROTOCOL, "version": said}})
            },
            |_| vec![],
        )
        .await;
        let client = BridgeClient::connect(&discovery).await.unwrap();
        assert_eq!(client.plugin_version.as_deref(), Some(format!("{}/{PROTOCOL}", env!("CARGO_PKG_VERSION")).as_str()));
    }
}

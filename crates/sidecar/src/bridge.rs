//! The sidecar's end of the bridge: connects to the plugin's local socket, says `hello` with
//! the token from the discovery file, then forwards calls as newline-delimited JSON-RPC 2.0.

use std::time::Duration;

use anyhow::{anyhow, bail, Context, Result};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncRead, AsyncWrite, AsyncWriteExt, BufReader};

use crate::discovery::{Discovery, PROTOCOL};
use crate::tools::ToolError;

/// How long connecting and saying hello may take before the bridge counts as absent.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(3);
/// How long one forwarded call may take.
const CALL_TIMEOUT: Duration = Duration::from_secs(60);
/// The longest answer line read from the plugin; a larger one is refused, not buffered.
const MAX_ANSWER_BYTES: usize = 64 * 1024 * 1024;

/// JSON-RPC error code the plugin uses for a failed operation; its `data` is a [`ToolError`].
const OPERATION_FAILED: i64 = -32000;

type Reader = Box<dyn AsyncRead + Unpin + Send>;
type Writer = Box<dyn AsyncWrite + Unpin + Send>;

/// An authenticated connection to the plugin.
pub struct BridgeClient {
    reader: BufReader<Reader>,
    writer: Writer,
    next_id: u64,
}

impl std::fmt::Debug for BridgeClient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BridgeClient").field("next_id", &self.next_id).finish_non_exhaustive()
    }
}

impl BridgeClient {
    /// Connects to the socket the discovery file names and authenticates.
    pub async fn connect(discovery: &Discovery) -> Result<BridgeClient> {
        tokio::time::timeout(CONNECT_TIMEOUT, BridgeClient::connect_inner(discovery))
            .await
            .map_err(|_| anyhow!("the plugin (pid {}) did not answer within {CONNECT_TIMEOUT:?}", discovery.pid))?
    }

    async fn connect_inner(discovery: &Discovery) -> Result<BridgeClient> {
        let (reader, writer) = open(discovery).await?;
        let mut client = BridgeClient { reader: BufReader::new(reader), writer, next_id: 1 };
        let hello = client
            .request(
                "hello",
                json!({
                    "token": discovery.token,
                    "protocol": PROTOCOL,
                    "client": format!("vaultlink {}", env!("CARGO_PKG_VERSION")),
                }),
            )
            .await?;
        match hello {
            Ok(_) => Ok(client),
            Err(error) => bail!("the plugin refused the connection: {}", error.message),
        }
    }

    /// Runs one operation on the plugin's index. The outer error is the bridge failing; the
    /// inner one is the operation failing.
    pub async fn call(&mut self, tool: &str, arguments: Value) -> Result<Result<Value, ToolError>> {
        let answer = self.request("call", json!({ "tool": tool, "arguments": arguments }));
        tokio::time::timeout(CALL_TIMEOUT, answer)
            .await
            .map_err(|_| anyhow!("the plugin did not answer within {CALL_TIMEOUT:?}"))?
    }

    async fn request(&mut self, method: &str, params: Value) -> Result<Result<Value, ToolError>> {
        let id = self.next_id;
        self.next_id += 1;
        let mut line = serde_json::to_vec(&json!({"jsonrpc": "2.0", "id": id, "method": method, "params": params}))?;
        line.push(b'\n');
        self.writer.write_all(&line).await.context("writing to the plugin's socket")?;
        self.writer.flush().await.context("writing to the plugin's socket")?;
        loop {
            let answer = self.read_line().await?;
            let answer: Value = serde_json::from_str(&answer).context("the plugin sent a line that is not JSON")?;
            if answer.get("id").and_then(Value::as_u64) != Some(id) {
                // A notification or a stale answer: not ours.
                continue;
            }
            if let Some(result) = answer.get("result") {
                return Ok(Ok(result.clone()));
            }
            let error = answer.get("error").ok_or_else(|| anyhow!("the plugin's answer has neither result nor error"))?;
            return match (error.get("code").and_then(Value::as_i64), error.get("data")) {
                (Some(OPERATION_FAILED), Some(data)) => Ok(Err(serde_json::from_value(data.clone())
                    .context("the plugin's error data is not {code, message, hint, retryable}")?)),
                _ => Ok(Err(ToolError::bridge(
                    error.get("message").and_then(Value::as_str).unwrap_or("the plugin refused the request"),
                ))),
            };
        }
    }

    async fn read_line(&mut self) -> Result<String> {
        let mut line = Vec::new();
        loop {
            let buffer = self.reader.fill_buf().await.context("reading from the plugin's socket")?;
            if buffer.is_empty() {
                bail!("the plugin closed the connection");
            }
            let (chunk, done) = match buffer.iter().position(|&byte| byte == b'\n') {
                Some(newline) => (&buffer[..newline], Some(newline + 1)),
                None => (buffer, None),
            };
            if line.len() + chunk.len() > MAX_ANSWER_BYTES {
                bail!("the plugin's answer is larger than {MAX_ANSWER_BYTES} bytes");
            }
            line.extend_from_slice(chunk);
            let consumed = done.unwrap_or(buffer.len());
            self.reader.consume(consumed);
            if done.is_some() {
                return String::from_utf8(line).context("the plugin sent a line that is not UTF-8");
            }
        }
    }
}

#[cfg(unix)]
async fn open(discovery: &Discovery) -> Result<(Reader, Writer)> {
    let stream = tokio::net::UnixStream::connect(&discovery.socket)
        .await
        .with_context(|| format!("connecting to {}", discovery.socket.display()))?;
    let (reader, writer) = stream.into_split();
    Ok((Box::new(reader), Box::new(writer)))
}

#[cfg(windows)]
async fn open(discovery: &Discovery) -> Result<(Reader, Writer)> {
    let pipe = tokio::net::windows::named_pipe::ClientOptions::new()
        .open(&discovery.socket)
        .with_context(|| format!("connecting to {}", discovery.socket.display()))?;
    let (reader, writer) = tokio::io::split(pipe);
    Ok((Box::new(reader), Box::new(writer)))
}

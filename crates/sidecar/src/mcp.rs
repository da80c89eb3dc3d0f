//! The MCP server: lists the catalogue and answers tool calls through the router, on stdio or,
//! with `--http`, over Streamable HTTP (`http`). `docs/mcp.md` says where a call runs, how answers
//! are bounded, and what progress and cancelling do.

use std::sync::Arc;

use anyhow::Result;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject, ListToolsResult,
    PaginatedRequestParams, ProgressNotificationParam, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;

use crate::catalogue::{catalogue, ToolSpec};
use crate::progress::Progress;
use crate::tools::{Router, Served};

/// What an agent reads first. The first 512 characters say how to use the server (some
/// clients show no more); a test holds them to it.
pub const INSTRUCTIONS: &str = "vaultlink reads and safely edits one Obsidian vault's links. Paths are relative \
to the vault root (`Folder/Note`; `.md` optional). Find notes with list_notes, read with read_note, links: \
get_outgoing_links, get_backlinks, resolve_link. Each write previews first: move_note, bulk_move_notes, \
rewrite_link, update_properties, delete_note, commit_wiki_page, undo_change, heal_moves, \
fix_broken_links, link_mentions; apply: call again with plan_hash. Lists are paged (next_cursor as cursor); errors carry a code.\n\n\
More: every error also carries a hint saying what to do. delete_note previews unless `confirm: true`. find_existing_page \
says whether a page on a topic exists. lint_wiki reviews the whole wiki (broken, ambiguous and orphaned links, \
duplicates, SCHEMA.md) and names the call that fixes each finding. update_properties sets or removes a note's \
properties and keeps every other byte of it. To add a wiki page: draft_wiki_page (is there one? if not, the link map, \
the SCHEMA.md rules, a skeleton with `prev_hashes`), then commit_wiki_page with the filled skeleton, then lint_wiki. \
A SCHEMA.md's frontmatter declares `types` (`concept: {description: ..., required: [status], folder: Concepts}`) \
and `properties` (a list of names, or names to allowed values: `status: [draft, done]`); it governs the notes of its folder and below. Every \
applied change answers a change_id; undo_change reverts the last one (or a named one) while the notes it touched are \
unchanged since. Every answer \
stays under 256 KB whatever its arguments: a long list ends its page early with a next_cursor, and a list inside one \
item is cut to 50 with its count. server_health says whether calls run inside Obsidian (through the vaultlink \
plugin) or on the folder, and what the index holds. Long calls report progress when the client sends a progress \
token. Errors with `retryable: true` may succeed when called again unchanged; `plugin_unavailable` means Obsidian's \
plugin is not serving the vault (still indexing, off while Obsidian has the vault open, or gone): nothing was written \
by the sidecar; follow the hint, and preview again before applying.";

#[derive(Debug, Clone)]
pub struct VaultlinkServer {
    router: Arc<Router>,
    tools: Arc<Vec<Tool>>,
}

impl VaultlinkServer {
    pub fn new(router: Router) -> VaultlinkServer {
        let tools = catalogue().iter().map(advertise).collect();
        VaultlinkServer { router: Arc::new(router), tools: Arc::new(tools) }
    }
}

fn object(schema: &Value) -> Arc<JsonObject> {
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

fn advertise(spec: &ToolSpec) -> Tool {
    let mut tool = Tool::new(spec.name, spec.description.clone(), object(&spec.input_schema));
    tool.title = Some(spec.title.to_owned());
    tool.output_schema = Some(object(&spec.output_schema));
    // The title is the tool's own (`title`); the annotations only hint at its effects.
    tool.annotations =
        Some(ToolAnnotations::new().read_only(spec.read_only).destructive(spec.destructive).idempotent(spec.idempotent).open_world(false));
    tool
}

impl ServerHandler for VaultlinkServer {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("vaultlink", env!("CARGO_PKG_VERSION"))
                    .with_title("vaultlink")
                    .with_description("Links of an Obsidian vault, parsed and resolved as Obsidian does."),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(&self, request: CallToolRequestParams, context: RequestContext<RoleServer>) -> Result<CallToolResponse, McpError> {
        if !self.tools.iter().any(|tool| tool.name == request.name) {
            return Err(McpError::invalid_params(format!("there is no tool `{}`; call tools/list to see the tools", request.name), None));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        // Progress goes out as notifications while the call runs, and all of it before the
        // answer: the forwarding task is awaited once the call (and every reporter) is done.
        let (progress, forwarder) = match context.meta.get_progress_token() {
            Some(token) => {
                let (progress, mut steps) = Progress::channel();
                let peer = context.peer.clone();
                let forwarder = tokio::spawn(async move {
                    while let Some(step) = steps.recv().await {
                        let mut notification = ProgressNotificationParam::new(token.clone(), step.progress).with_message(step.message);
                        if let Some(total) = step.total {
                            notification = notification.with_total(total);
                        }
                        if let Err(error) = peer.notify_progress(notification).await {
                            tracing::debug!("a progress notification could not be sent: {error}");
                        }
                    }
                });
                (progress, Some(forwarder))
            }
            None => (Progress::none(), None),
        };
        // The client's `notifications/cancelled` cancels the request's token; the work asks the
        // reporter as it goes and stops, rather than running on for an answer nobody waits for.
        let watcher = {
            let (token, progress) = (context.ct.clone(), progress.canceller());
            tokio::spawn(async move {
                token.cancelled().await;
                progress.cancel();
            })
        };
        let (served, answer) = self.router.call_with(&request.name, arguments, &progress).await;
        watcher.abort();
        drop(progress);
        if let Some(forwarder) = forwarder {
            let _ = forwarder.await;
        }
        tracing::info!(
            "{} answered by {}",
            request.name,
            match served {
                Served::Plugin => "the plugin",
                Served::Standalone => "the folder",
            }
        );
        let result = match answer {
            Ok(value) => CallToolResult::structured(value),
            Err(error) => {
                let sentence = format!("{} ({}). {}", error.message, error.code, error.hint);
                let mut result = CallToolResult::structured_error(serde_json::to_value(&error).unwrap_or(Value::Null));
                result.content = vec![ContentBlock::text(sentence)];
                result
            }
        };
        Ok(result.into())
    }
}

/// Serves MCP on stdin and stdout until the client closes the stream. Every line from the client
/// passes [`screen`] first: one rmcp would answer wrongly (a line that is not JSON, `tools/call`
/// arguments that are not an object, a request rmcp cannot read, which it answers without its
/// id) is answered here with the JSON-RPC error it calls for, and the rest go to rmcp as they
/// came. A line over [`MAX_LINE_BYTES`], which rmcp drops unanswered, is answered here with its
/// id and never held whole. Answers of every kind reach stdout as whole lines.
pub async fn serve_stdio(router: Router) -> Result<()> {
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let (server_in, mut to_server) = tokio::io::duplex(1 << 16);
    let (server_out, from_server) = tokio::io::duplex(1 << 16);
    let (refusals, mut refused) = tokio::sync::mpsc::unbounded_channel::<String>();
    let reader = tokio::spawn(async move {
        let mut stdin = BufReader::new(tokio::io::stdin());
        let mut line = Vec::new();
        loop {
            line.clear();
            match read_line(&mut stdin, &mut line).await {
                Ok(LineRead::Line) => {}
                Ok(LineRead::Oversized { id, bytes }) => {
                    let _ = refusals.send(oversized(&id, bytes));
                    continue;
                }
                Ok(LineRead::End) | Err(_) => break,
            }
            match screen(&line) {
                Screened::Pass => {
                    if !line.ends_with(b"\n") {
                        line.push(b'\n');
                    }
                    if to_server.write_all(&line).await.is_err() {
                        break;
                    }
                }
                Screened::Skip => {}
                Screened::Answer(answer) => {
                    let _ = refusals.send(answer);
                }
            }
        }
        // Dropping the pipe ends rmcp's input: the session closes as when stdin closes.
    });
    let writer = tokio::spawn(async move {
        let mut stdout = tokio::io::stdout();
        let mut lines = BufReader::new(from_server).lines();
        let mut refusals_open = true;
        loop {
            let line = tokio::select! {
                line = lines.next_line() => match line {
                    Ok(Some(line)) => line,
                    _ => break,
                },
                answer = refused.recv(), if refusals_open => match answer {
                    Some(answer) => answer,
                    None => {
                        refusals_open = false;
                        continue;
                    }
                },
            };
            if stdout.write_all(format!("{line}\n").as_bytes()).await.is_err() || stdout.flush().await.is_err() {
                break;
            }
        }
    });
    let service = VaultlinkServer::new(router).serve((server_in, server_out)).await?;
    service.waiting().await?;
    reader.abort();
    let _ = writer.await;
    Ok(())
}

/// The most bytes of one line from the client, its line break included: rmcp's own bound
/// (`DEFAULT_MAX_LINE_LENGTH`, 16 MiB), past which rmcp drops a line without an answer. A longer
/// line is answered here instead, with its id, and never held whole in memory.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

/// What reading one line from the client gave.
#[derive(Debug, PartialEq)]
enum LineRead {
    /// A line, in the buffer (without a line break at the end of the stream).
    Line,
    /// A line over [`MAX_LINE_BYTES`], read to its end and dropped: its `id` (`null` when it
    /// has none that can be read) and its length.
    Oversized { id: Value, bytes: usize },
    /// The end of the stream.
    End,
}

/// Reads one line into `line`, keeping at most [`MAX_LINE_BYTES`] of it: a longer line is read
/// on to its end through an [`IdScanner`], which keeps only its id.
async fn read_line(input: &mut (impl tokio::io::AsyncBufRead + Unpin), line: &mut Vec<u8>) -> std::io::Result<LineRead> {
    use tokio::io::AsyncBufReadExt;
    let mut oversized: Option<(IdScanner, usize)> = None;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            return Ok(match oversized {
                Some((scanner, bytes)) => LineRead::Oversized { id: scanner.id(), bytes },
                None if line.is_empty() => LineRead::End,
                // The last line, without its line break: one is added before it goes on.
                None if line.len() + 1 > MAX_LINE_BYTES => {
                    let mut scanner = IdScanner::default();
                    scanner.feed(line);
                    LineRead::Oversized { id: scanner.id(), bytes: line.len() }
                }
                None => LineRead::Line,
            });
        }
        let newline = available.iter().position(|byte| *byte == b'\n');
        let take = newline.map_or(available.len(), |at| at + 1);
        match &mut oversized {
            Some((scanner, bytes)) => {
                scanner.feed(&available[..take]);
                *bytes += take;
            }
            None if line.len() + take > MAX_LINE_BYTES => {
                let mut scanner = IdScanner::default();
                scanner.feed(line);
                scanner.feed(&available[..take]);
                oversized = Some((scanner, line.len() + take));
                *line = Vec::new();
            }
            None => line.extend_from_slice(&available[..take]),
        }
        input.consume(take);
        if newline.is_some() {
            return Ok(match oversized {
                Some((scanner, bytes)) => LineRead::Oversized { id: scanner.id(), bytes },
                None => LineRead::Line,
            });
        }
    }
}

/// The answer to a line over [`MAX_LINE_BYTES`].
fn oversized(id: &Value, bytes: usize) -> String {
    serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32600, "message": format!(
        "Invalid request: the line is {bytes} bytes, over the 16 MiB ({MAX_LINE_BYTES} bytes) one message may have; it was not read. Send less in one call (a page's body, a list of moves in several calls)"
    )}})
    .to_string()
}

/// Finds the top-level `"id"` of a JSON-RPC message fed to it in pieces, wherever it is in the
/// message, keeping nothing else: a line too long to keep is still answered with its id. Only a
/// string or a number is an id; anything else (or none) is `null`, as JSON-RPC answers a request
/// whose id cannot be read.
#[derive(Debug, Default)]
struct IdScanner {
    depth: usize,
    in_string: bool,
    escaped: bool,
    /// At the top level, a key comes next (after `{` or `,`).
    key_next: bool,
    reading_key: bool,
    /// The key being read, up to one byte more than `id` has.
    key: Vec<u8>,
    key_is_id: bool,
    /// Reading the id's value, whose bytes go to `value` (up to [`IdScanner::MAX_ID_BYTES`]).
    capturing: bool,
    value: Vec<u8>,
    found: Option<Value>,
}

impl IdScanner {
    /// The most bytes of an id kept: ids are short, and one longer is taken as none.
    const MAX_ID_BYTES: usize = 1024;

    fn feed(&mut self, bytes: &[u8]) {
        for &byte in bytes {
            self.step(byte);
        }
    }

    fn step(&mut self, byte: u8) {
        if self.in_string {
            if self.capturing {
                self.value.push(byte);
            }
            if self.escaped {
                self.escaped = false;
                if self.reading_key {
                    // An escape in a key: not the plain `id`.
                    self.key.extend_from_slice(b"\\\\");
                }
            } else if byte == b'\\' {
                self.escaped = true;
            } else if byte == b'"' {
                self.in_string = false;
                if self.reading_key {
                    self.reading_key = false;
                    self.key_is_id = self.key == b"id";
                }
            } else if self.reading_key && self.key.len() < 3 {
                self.key.push(byte);
            } else if self.reading_key {
                self.key.push(b'_');
                self.key.truncate(3);
            }
            return;
        }
        if self.capturing && self.depth == 1 && matches!(byte, b',' | b'}') {
            self.capturing = false;
            let value = serde_json::from_slice::<Value>(&self.value).ok().filter(|value| value.is_string() || value.is_number());
            if value.is_some() {
                self.found = value;
            }
        }
        if self.capturing {
            self.value.push(byte);
            if self.value.len() > Self::MAX_ID_BYTES {
                self.capturing = false;
            }
        }
        match byte {
            b'"' => {
                self.in_string = true;
                if self.depth == 1 && self.key_next && !self.capturing {
                    self.reading_key = true;
                    self.key.clear();
                }
            }
            b'{' | b'[' => {
                self.depth += 1;
                self.key_next = self.depth == 1 && byte == b'{';
            }
            b'}' | b']' => self.depth = self.depth.saturating_sub(1),
            b':' if self.depth == 1 => {
                self.key_next = false;
                if std::mem::take(&mut self.key_is_id) {
                    self.capturing = true;
                    self.value.clear();
                }
            }
            b',' if self.depth == 1 => {
                self.key_next = true;
                self.key_is_id = false;
            }
            _ => {}
        }
    }

    /// The id found, or `null`.
    fn id(&self) -> Value {
        self.found.clone().unwrap_or(Value::Null)
    }
}

/// What to do with one line from the client.
#[derive(Debug, PartialEq)]
enum Screened {
    /// To rmcp, as it came.
    Pass,
    /// Blank: nothing to answer.
    Skip,
    /// Answered here, with this JSON-RPC error line.
    Answer(String),
}

/// Decides what a client's line needs before rmcp sees it: JSON-RPC asks for `-32700` on a line
/// that is not JSON (rmcp answers `-32600`, or nothing), for `-32602` on `tools/call`
/// arguments that are not an object (rmcp answers `-32601`, "method not found"), and for
/// `-32600` with the request's id on a request that is not MCP's (rmcp leaves the id out).
fn screen(line: &[u8]) -> Screened {
    let error = |id: &Value, code: i64, message: String| {
        Screened::Answer(serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": code, "message": message}}).to_string())
    };
    let Ok(text) = std::str::from_utf8(line) else {
        return error(
            &Value::Null,
            -32700,
            "Parse error: the line is not UTF-8; send one JSON-RPC message per line, as UTF-8 JSON".to_owned(),
        );
    };
    if text.trim().is_empty() {
        return Screened::Skip;
    }
    let message: Value = match serde_json::from_str(text) {
        Ok(message) => message,
        Err(problem) => return error(&Value::Null, -32700, format!("Parse error: {problem}; send one JSON-RPC message per line")),
    };
    let arguments = &message["params"]["arguments"];
    if message["method"] == "tools/call" && !arguments.is_null() && !arguments.is_object() {
        return error(
            &message["id"],
            -32602,
            "Invalid params: `arguments` must be a JSON object of the tool's parameters (see its inputSchema in tools/list)".to_owned(),
        );
    }
    // A message rmcp cannot read as MCP's it answers `-32600` without the id, leaving the client
    // waiting: answered here with the id it can be read with. A notification is owed no answer,
    // and goes on to rmcp, which ignores those it may.
    if let Err(problem) = serde_json::from_str::<rmcp::model::ClientJsonRpcMessage>(text) {
        if message.get("id").is_none() && message["method"].is_string() {
            return Screened::Pass;
        }
        let id = match &message["id"] {
            id @ (Value::String(_) | Value::Number(_)) => id.clone(),
            _ => Value::Null,
        };
        return error(&id, -32600, format!("Invalid request: {}", invalid_request(&message, &problem)));
    }
    Screened::Pass
}

/// Why `message` is not a JSON-RPC message of MCP's, as the end of a sentence.
fn invalid_request(message: &Value, problem: &serde_json::Error) -> String {
    let Some(fields) = message.as_object() else {
        return "a message is one JSON object on its own line (a batch, a list of messages, is not taken)".to_owned();
    };
    if fields.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
        return "`jsonrpc` must be \"2.0\"".to_owned();
    }
    match fields.get("id") {
        None | Some(Value::String(_)) => {}
        Some(Value::Number(number)) if number.is_i64() => {}
        Some(_) => return "`id` must be a string or an integer".to_owned(),
    }
    match fields.get("method") {
        Some(Value::String(_)) => {}
        Some(_) => return "`method` must be a string".to_owned(),
        None if fields.contains_key("result") || fields.contains_key("error") => {}
        None => return "it has no `method`: a request names the method it calls".to_owned(),
    }
    match fields.get("params") {
        None | Some(Value::Object(_)) => format!("it is not a request, notification or response of MCP ({problem})"),
        Some(_) => "`params` must be a JSON object".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    /// The id of a message fed in pieces of every size: only the top level's `id`, a string or
    /// a number, however the bytes around it are split; a nested `id`, a key spelt with an
    /// escape, or an id of another kind is no id.
    #[test]
    fn the_id_scanner_finds_the_top_level_id_wherever_it_is() {
        use serde_json::json;
        for (line, id) in [
            (r#"{"jsonrpc":"2.0","id":7,"method":"x"}"#, json!(7)),
            (r#"{"params":{"id":1,"a":[{"id":2}]},"method":"x","id":"a \"b\" , }"}"#, json!("a \"b\" , }")),
            (r#"{ "id" : -1.5e3 }"#, json!(-1.5e3)),
            (r#"{"params":{"id":1},"method":"x"}"#, Value::Null),
            (r#"{"i\u0064":3}"#, Value::Null),
            (r#"{"ids":3,"d":4}"#, Value::Null),
            (r#"{"id":{"nested":1}}"#, Value::Null),
            (r#"{"id":null}"#, Value::Null),
            (r#"[{"id":3}]"#, Value::Null),
            (r#"{"text":"{\"id\":9}","id":10}"#, json!(10)),
        ] {
            for piece in [1, 2, 3, 7, line.len()] {
                let mut scanner = IdScanner::default();
                for chunk in line.as_bytes().chunks(piece) {
                    scanner.feed(chunk);
                }
                assert_eq!(scanner.id(), id, "{line} in pieces of {piece}");
            }
        }
    }

    /// What tools/list costs an agent's context, held under a budget per tool: the fourteen tools
    /// came to 28.7 KB (2.05 KB a tool) when it was set, a third less than the 43.8 KB before the
    /// catalogue was cut; a new tool may take about as much as the others do. It was 2,200 bytes, 1
    /// byte over the nineteen tools, until server_health said whether the folder's index is live
    /// (`folder_index`, 184 bytes), then 2,210 until a link's `source` could name a canvas's card
    /// (`canvas_file`, `canvas_text`: 90 bytes over three schemas), then 2,215 until
    /// commit_wiki_page refused duplicates and writes in source folders, answered `problems` and
    /// `ingested`, and took `allow_duplicate` and `page.mode: overwrite` (500 bytes), then 2,245
    /// until the writing tools named the refusals of `block` conventions and read-only sources,
    /// lint_wiki its `stale` rule and server_health its `indexing` mode (about 600 bytes over
    /// seven tools, after trimming; the new tools each came within the budget).
    const TOOLS_LIST_BUDGET_BYTES_PER_TOOL: usize = 2_265;

    #[test]
    fn tools_list_stays_under_its_budget() {
        let tools: Vec<Tool> = catalogue().iter().map(advertise).collect();
        let budget = TOOLS_LIST_BUDGET_BYTES_PER_TOOL * tools.len();
        let answer = serde_json::json!({"jsonrpc": "2.0", "id": 2, "result": ListToolsResult::with_all_items(tools)});
        let bytes = serde_json::to_string(&answer).expect("serialisable").len();
        assert!(bytes < budget, "tools/list is {bytes} bytes, over its budget of {budget}");
    }

    fn code_of(screened: Screened) -> (Value, i64) {
        let Screened::Answer(line) = screened else { panic!("answered here: {screened:?}") };
        let answer: Value = serde_json::from_str(&line).expect("an answer is JSON");
        (answer["id"].clone(), answer["error"]["code"].as_i64().unwrap_or(0))
    }

    #[test]
    fn a_line_that_is_not_json_gets_parse_error_32700() {
        let deep = format!("{}{}", "[".repeat(500), "]".repeat(500));
        for line in [&b"{not json"[..], b"\xff\xfe{}", b"\"\\ud800", deep.as_bytes(), b"{\"jsonrpc\": \"2.0\""] {
            assert_eq!(code_of(screen(line)), (Value::Null, -32700), "{}", String::from_utf8_lossy(line));
        }
        assert_eq!(screen(b"  \n"), Screened::Skip);
    }

    #[test]
    fn tools_call_arguments_that_are_not_an_object_get_invalid_params_32602() {
        for arguments in ["[1]", "\"x\"", "3", "true"] {
            let line =
                format!(r#"{{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{{"name":"list_notes","arguments":{arguments}}}}}"#);
            assert_eq!(code_of(screen(line.as_bytes())), (serde_json::json!(7), -32602), "{arguments}");
        }
        for passes in [
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_notes","arguments":{}}}"#,
            r#"{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"list_notes"}}"#,
            r#"{"jsonrpc":"2.0","id":1,"method":"ping"}"#,
        ] {
            assert_eq!(screen(passes.as_bytes()), Screened::Pass, "{passes}");
        }
    }

    use super::*;

    #[test]
    fn the_instructions_open_with_how_to_use_the_server() {
        let opening: String = INSTRUCTIONS.chars().take(512).collect();
        for needed in ["list_notes", "read_note", "get_backlinks", "move_note", "plan_hash", "next_cursor", "code", "previews first"] {
            assert!(opening.contains(needed), "the first 512 characters must mention {needed}");
        }
        for tool in catalogue().iter().filter(|tool| !tool.read_only) {
            assert!(opening.contains(tool.name), "the first 512 characters must name the writing tool {}", tool.name);
        }
    }
}

//! `vaultlink mcp` on stdio as a client drives it: the built binary, a vault folder, JSON-RPC
//! lines in and out. Every request a client sends with a readable id is answered with that id,
//! so no client is left waiting for an answer that never comes.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver};
use std::time::Duration;

use serde_json::{json, Value};

/// The most bytes of one line rmcp reads (`DEFAULT_MAX_LINE_LENGTH`): past it, a line was
/// dropped without an answer.
const MAX_LINE_BYTES: usize = 16 * 1024 * 1024;

struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<Value>,
    _dirs: (tempfile::TempDir, tempfile::TempDir),
}

impl Server {
    /// The server on a one-note vault, initialised; a home folder of its own.
    fn start() -> Server {
        let vault = tempfile::tempdir().expect("a vault folder");
        std::fs::write(vault.path().join("A.md"), "# A\n").expect("a note");
        let home = tempfile::tempdir().expect("a home folder");
        let mut child = Command::new(env!("CARGO_BIN_EXE_vaultlink"))
            .args(["mcp", "--mode", "standalone", "--vault"])
            .arg(vault.path())
            .env("HOME", home.path())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("the binary runs");
        let stdin = child.stdin.take().expect("stdin");
        let stdout = child.stdout.take().expect("stdout");
        let (sender, lines) = channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                let message: Value =
                    serde_json::from_str(&line).unwrap_or_else(|error| panic!("stdout is JSON-RPC only ({error}): {line}"));
                if sender.send(message).is_err() {
                    break;
                }
            }
        });
        let mut server = Server { child, stdin, lines, _dirs: (vault, home) };
        server.send(json!({"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}}}).to_string().as_bytes());
        assert!(server.answer_to(&json!(0))["result"].is_object());
        server.send(json!({"jsonrpc": "2.0", "method": "notifications/initialized"}).to_string().as_bytes());
        server
    }

    fn send(&mut self, line: &[u8]) {
        self.stdin.write_all(line).expect("the server reads");
        self.stdin.write_all(b"\n").expect("the server reads");
        self.stdin.flush().expect("the server reads");
    }

    /// The answer with `id`; answers to other ids are passed over. A server that has not
    /// answered after a minute fails the test (it left the client waiting).
    fn answer_to(&mut self, id: &Value) -> Value {
        loop {
            let message = self.lines.recv_timeout(Duration::from_secs(60)).unwrap_or_else(|_| panic!("no answer to id {id}"));
            if message.get("id") == Some(id) {
                return message;
            }
        }
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Issue 34: a request rmcp cannot read as MCP (`params` not an object, an id that is not an
/// integer, `jsonrpc` not "2.0") was answered `-32600` without its id, so the client waited for
/// ever; it is answered `-32600` with the id it was sent with.
#[test]
fn an_invalid_request_with_a_readable_id_is_answered_with_that_id() {
    let mut server = Server::start();
    for (id, request) in [
        (json!(11), json!({"jsonrpc": "2.0", "id": 11, "method": "tools/list", "params": []})),
        (json!(1.5), json!({"jsonrpc": "2.0", "id": 1.5, "method": "tools/list"})),
        (json!("s13"), json!({"jsonrpc": "1.0", "id": "s13", "method": "tools/list"})),
        (json!(14), json!({"jsonrpc": "2.0", "id": 14, "method": 7})),
        (json!(15), json!({"jsonrpc": "2.0", "id": 15})),
    ] {
        server.send(request.to_string().as_bytes());
        let answer = server.answer_to(&id);
        assert_eq!(answer["error"]["code"], -32600, "{request}: {answer}");
        assert!(answer["error"]["message"].as_str().unwrap_or("").starts_with("Invalid request"), "{answer}");
    }
    // The session goes on.
    server.send(json!({"jsonrpc": "2.0", "id": 16, "method": "tools/list"}).to_string().as_bytes());
    assert!(server.answer_to(&json!(16))["result"]["tools"].is_array());
}

/// Issue 34: a line over the 16 MiB a message may have was dropped without an answer. It is
/// answered with its id, read wherever the id is in the line, and the session goes on.
#[test]
fn a_line_over_16_mib_is_answered_with_its_id() {
    let mut server = Server::start();
    let big = "x".repeat(MAX_LINE_BYTES);
    for (id, line) in [
        (
            json!(21),
            format!(r#"{{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{{"name":"read_note","arguments":{{"path":"{big}"}}}}}}"#),
        ),
        (
            json!("late"),
            format!(
                r#"{{"jsonrpc":"2.0","method":"tools/call","params":{{"name":"read_note","arguments":{{"path":"{big}"}}}},"id":"late"}}"#
            ),
        ),
    ] {
        server.send(line.as_bytes());
        let answer = server.answer_to(&id);
        assert_eq!(answer["error"]["code"], -32600, "{answer}");
        let message = answer["error"]["message"].as_str().unwrap_or("");
        assert!(message.contains("16 MiB"), "{message}");
    }
    server.send(json!({"jsonrpc": "2.0", "id": 23, "method": "tools/list"}).to_string().as_bytes());
    assert!(server.answer_to(&json!(23))["result"]["tools"].is_array());
}

//! The MCP server over Streamable HTTP (`vaultlink mcp --http`): rmcp's service under hyper's
//! HTTP/1.1 server, on a loopback address only, behind a bearer token.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::{bail, Context, Result};
use http_body_util::{BodyExt, Full};
use hyper::body::Bytes;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

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
    use std::os::unix::fs::{DirBuilderExt, MetadataExt};
    if !dir.exists() {
        std::fs::DirBuilder::new().recursive(true).mode(0o700).create(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    let meta = std::fs::symlink_metadata(dir).with_context(|| format!("reading {}", dir.display()))?;
    if !meta.is_dir() || meta.mode() & 0o077 != 0 {
        bail!("{} must be a directory of yours with mode 0700; fix it or set VAULTLINK_RUNTIME_DIR", dir.display());
    }
    Ok(())
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

/// Serves MCP over Streamable HTTP at `http://<address>/mcp` until the process is stopped.
pub async fn serve_http(router: Router, address: SocketAddr) -> Result<()> {
    let (token, token_file) = http_token(router.vault())?;
    let listener = tokio::net::TcpListener::bind(address).await.with_context(|| format!("listening on {address} (is the port taken?)"))?;
    let bound = listener.local_addr()?;
    match token_file {
        Some(file) => eprintln!(
            "vaultlink: MCP over HTTP at http://{bound}/mcp\nvaultlink: send `Authorization: Bearer {token}` (also in {}, mode 0600)",
            file.display()
        ),
        None => eprintln!("vaultlink: MCP over HTTP at http://{bound}/mcp\nvaultlink: send `Authorization: Bearer` with the token in VAULTLINK_HTTP_TOKEN"),
    }
    let server = VaultlinkServer::new(router);
    let service = StreamableHttpService::new(
        move || Ok(server.clone()),
        Arc::new(LocalSessionManager::default()),
        // Its defaults accept only loopback `Host` headers, against DNS rebinding.
        StreamableHttpServerConfig::default(),
    );
    let token: Arc<str> = token.into();
    loop {
        let (stream, peer) = match listener.accept().await {
            Ok(accepted) => accepted,
            Err(error) => {
                tracing::warn!("accepting a connection failed: {error}");
                continue;
            }
        };
        let (service, token) = (service.clone(), Arc::clone(&token));
        tokio::spawn(async move {
            let handler = hyper::service::service_fn(move |request: hyper::Request<hyper::body::Incoming>| {
                let (service, token) = (service.clone(), Arc::clone(&token));
                async move {
                    if !authorized(&request, &token) {
                        return Ok::<_, Infallible>(plain(
                            hyper::StatusCode::UNAUTHORIZED,
                            "vaultlink: send `Authorization: Bearer <token>` with the token the server printed when it started",
                        ));
                    }
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
            });
            if let Err(error) =
                hyper::server::conn::http1::Builder::new().serve_connection(hyper_util::rt::TokioIo::new(stream), handler).await
            {
                tracing::debug!("the HTTP connection from {peer} ended: {error}");
            }
        });
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
}

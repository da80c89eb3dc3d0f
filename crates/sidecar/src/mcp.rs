//! The MCP server on stdio: lists the catalogue and answers tool calls through the router.

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, JsonObject,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData as McpError, RoleServer, ServerHandler, ServiceExt};
use serde_json::Value;
use tokio::sync::Mutex;

use crate::catalogue::{catalogue, ToolSpec};
use crate::tools::{Router, Served};

#[derive(Debug, Clone)]
pub struct VaultlinkServer {
    router: Arc<Mutex<Router>>,
    tools: Arc<Vec<Tool>>,
}

impl VaultlinkServer {
    pub fn new(router: Router) -> VaultlinkServer {
        let tools = catalogue().iter().map(advertise).collect();
        VaultlinkServer { router: Arc::new(Mutex::new(router)), tools: Arc::new(tools) }
    }
}

fn object(schema: &Value) -> Arc<JsonObject> {
    Arc::new(schema.as_object().cloned().unwrap_or_default())
}

fn advertise(spec: &ToolSpec) -> Tool {
    let mut tool = Tool::new(spec.name, spec.description, object(&spec.input_schema));
    tool.title = Some(spec.title.to_owned());
    tool.output_schema = Some(object(&spec.output_schema));
    tool.annotations = Some(
        ToolAnnotations::with_title(spec.title)
            .read_only(spec.read_only)
            .destructive(spec.destructive)
            .idempotent(spec.idempotent)
            .open_world(false),
    );
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
            .with_instructions(
                "vaultlink answers questions about the links of one Obsidian vault. Paths are relative to the \
vault root. When Obsidian is open with the vaultlink plugin the calls run inside it; otherwise on the folder.",
            )
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, McpError> {
        Ok(ListToolsResult::with_all_items(self.tools.to_vec()))
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, McpError> {
        if !self.tools.iter().any(|tool| tool.name == request.name) {
            return Err(McpError::invalid_params(
                format!("there is no tool `{}`; call tools/list to see the tools", request.name),
                None,
            ));
        }
        let arguments = Value::Object(request.arguments.unwrap_or_default());
        let (served, answer) = self.router.lock().await.call(&request.name, arguments).await;
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
                let mut result = CallToolResult::structured_error(
                    serde_json::to_value(&error).unwrap_or(Value::Null),
                );
                result.content = vec![ContentBlock::text(sentence)];
                result
            }
        };
        Ok(result.into())
    }
}

/// Serves MCP on stdin and stdout until the client closes the stream.
pub async fn serve_stdio(router: Router) -> anyhow::Result<()> {
    let service = VaultlinkServer::new(router).serve(rmcp::transport::stdio()).await?;
    service.waiting().await?;
    Ok(())
}

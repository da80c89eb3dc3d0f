//! What an MCP client needs to start the sidecar on this vault, in each client's own format:
//! Claude Desktop's `mcpServers` JSON, Claude Code's `claude mcp add` command line, and Codex's
//! `[mcp_servers.vaultlink]` TOML table. Pure: the vault's path and the sidecar's command in,
//! text out, so the settings tab, the command and the tests share it.

/** The MCP clients the configuration is written for, in the order the copied text lists them. */
export const MCP_CLIENTS = ["claude-desktop", "claude-code", "codex"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export interface McpServerCommand {
	/** The sidecar: `vaultlink` on PATH, or its absolute path. */
	command: string;
	/** The vault's absolute path. */
	vaultPath: string;
	/** `win32` quotes the command line for Windows; anything else for a POSIX shell. */
	platform: NodeJS.Platform;
}

/** The server's name in every client's configuration. */
export const SERVER_NAME = "vaultlink";

/** Each client's name. */
export const CLIENT_NAMES: Record<McpClient, string> = {
	"claude-desktop": "Claude Desktop",
	"claude-code": "Claude Code",
	codex: "Codex",
};

/** Where each client's configuration goes. */
export const CLIENT_PLACES: Record<McpClient, string> = {
	"claude-desktop": "merge into claude_desktop_config.json (Settings → Developer → Edit config)",
	"claude-code": "run in a terminal",
	codex: "add to ~/.codex/config.toml",
};

/** The sidecar's arguments: `mcp --vault <vault>`. */
export function serverArguments(server: McpServerCommand): string[] {
	return ["mcp", "--vault", server.vaultPath];
}

/** One client's configuration, ready to paste. */
export function clientConfiguration(client: McpClient, server: McpServerCommand): string {
	const args = serverArguments(server);
	switch (client) {
		case "claude-desktop":
			return JSON.stringify({ mcpServers: { [SERVER_NAME]: { command: server.command, args } } }, null, 2);
		case "claude-code":
			return ["claude", "mcp", "add", SERVER_NAME, "--", server.command, ...args].map((word) => shellWord(word, server.platform)).join(" ");
		case "codex":
			return [`[mcp_servers.${SERVER_NAME}]`, `command = ${tomlString(server.command)}`, `args = [${args.map(tomlString).join(", ")}]`].join("\n");
	}
}

/** Every client's configuration, each under a line saying where it goes. */
export function allClientConfigurations(server: McpServerCommand): string {
	const sections = MCP_CLIENTS.map((client) => `# ${CLIENT_NAMES[client]}: ${CLIENT_PLACES[client]}\n\n${clientConfiguration(client, server)}`);
	return `${sections.join("\n\n")}\n`;
}

/**
 * A TOML basic string. JSON's string escapes (`\"`, `\\`, `\n`, `\uXXXX`, …) are all valid in
 * a TOML basic string, and JSON escapes every control character TOML forbids.
 */
function tomlString(text: string): string {
	return JSON.stringify(text);
}

/** A word quoted for the shell the command is pasted into, only when it needs quoting. */
function shellWord(word: string, platform: NodeJS.Platform): string {
	if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
	if (platform === "win32") {
		// PowerShell and cmd both take a double-quoted word; a double quote cannot be in a Windows path.
		return `"${word}"`;
	}
	return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * What an MCP client needs to start the sidecar on this vault, in each client's own format:
 * Claude Desktop's and Cursor's `mcpServers` JSON, VS Code's `servers` JSON, Claude Code's
 * `claude mcp add` command line (quoted for the shell it is pasted into) and Codex's
 * `[mcp_servers.vaultlink]` TOML table. Pure: the vault's path and the sidecar's command in,
 * text out, so the settings tab, the command and the tests share it.
 */

/**
 * Every MCP client the configuration is written for, in the order the copied text lists them.
 * `claude-code-cmd` is Claude Code's line for Windows' Command Prompt, offered on Windows only
 * (`mcpClients`): no one quoting serves both PowerShell and cmd (`claudeCodeLine` says why).
 */
export const MCP_CLIENTS = ["claude-desktop", "claude-code", "codex", "vscode", "cursor", "claude-code-cmd"] as const;
export type McpClient = (typeof MCP_CLIENTS)[number];

export interface McpServerCommand {
	/** The sidecar: its absolute path, or `vaultlink` when the program was not found. */
	command: string;
	/** The vault's absolute path. */
	vaultPath: string;
	/** `win32` writes Claude Code's line for PowerShell (and for cmd apart); anything else for a POSIX shell. */
	platform: NodeJS.Platform;
}

/** The server's name in every client's configuration. */
export const SERVER_NAME = "vaultlink";

/** The clients offered on `platform`, in order. */
export function mcpClients(platform: NodeJS.Platform): McpClient[] {
	return MCP_CLIENTS.filter((client) => client !== "claude-code-cmd" || platform === "win32");
}

/** The names of the clients offered on `platform`, as a sentence lists them. */
export function clientList(platform: NodeJS.Platform): string {
	const names = mcpClients(platform).map((client) => clientName(client, platform));
	return names.length < 2 ? names.join("") : `${names.slice(0, -1).join(", ")} and ${names.at(-1) ?? ""}`;
}

/** Each client's name as the settings tab shows it. */
export function clientName(client: McpClient, platform: NodeJS.Platform): string {
	switch (client) {
		case "claude-desktop":
			return "Claude Desktop";
		case "claude-code":
			return platform === "win32" ? "Claude Code in PowerShell" : "Claude Code";
		case "claude-code-cmd":
			return "Claude Code in Command Prompt";
		case "codex":
			return "Codex";
		case "vscode":
			return "VS Code";
		case "cursor":
			return "Cursor";
	}
}

/** Where each client's configuration goes. */
export function clientPlace(client: McpClient, platform: NodeJS.Platform): string {
	switch (client) {
		case "claude-desktop":
			return "merge into claude_desktop_config.json (Settings → Developer → Edit config)";
		case "claude-code":
			return `run in ${platform === "win32" ? "PowerShell" : "a terminal"}; --scope user makes it available in every folder, --scope project instead shares it through the project's .mcp.json`;
		case "claude-code-cmd":
			return "run in Command Prompt; --scope user makes it available in every folder, --scope project instead shares it through the project's .mcp.json";
		case "codex":
			return "add to ~/.codex/config.toml";
		case "vscode":
			return "merge into your user mcp.json (command MCP: Open User Configuration), or into .vscode/mcp.json in a workspace";
		case "cursor":
			return "merge into ~/.cursor/mcp.json, or into .cursor/mcp.json in a project";
	}
}

/** The sidecar's arguments: `mcp --vault <vault>`. */
export function serverArguments(server: McpServerCommand): string[] {
	return ["mcp", "--vault", server.vaultPath];
}

/** One client's configuration, ready to paste. */
export function clientConfiguration(client: McpClient, server: McpServerCommand): string {
	const args = serverArguments(server);
	switch (client) {
		case "claude-desktop":
		case "cursor":
			return JSON.stringify({ mcpServers: { [SERVER_NAME]: { command: server.command, args } } }, null, 2);
		case "vscode":
			return JSON.stringify({ servers: { [SERVER_NAME]: { type: "stdio", command: server.command, args } } }, null, 2);
		case "claude-code":
			return claudeCodeLine(server, server.platform === "win32" ? "powershell" : "posix");
		case "claude-code-cmd":
			return claudeCodeLine(server, "cmd");
		case "codex":
			return [`[mcp_servers.${SERVER_NAME}]`, `command = ${tomlString(server.command)}`, `args = [${args.map(tomlString).join(", ")}]`].join("\n");
	}
}

/** Every client's configuration offered on the platform, each under a line saying where it goes. */
export function allClientConfigurations(server: McpServerCommand): string {
	const sections = mcpClients(server.platform).map(
		(client) => `# ${clientName(client, server.platform)}: ${clientPlace(client, server.platform)}\n\n${clientConfiguration(client, server)}`,
	);
	return `${sections.join("\n\n")}\n`;
}

/** The shells Claude Code's line is written for. */
export type Shell = "posix" | "powershell" | "cmd";

/**
 * `claude mcp add --scope user vaultlink -- <command> mcp --vault <vault>`, each word quoted for
 * `shell`. One quoting cannot serve PowerShell and cmd both: PowerShell expands `$` and backticks
 * inside double quotes and takes nothing literally but single quotes, which cmd does not know as
 * quotes at all; cmd expands `%NAME%` even inside double quotes. So Windows gets a line for each.
 * The scope is `user`: Claude Code's default (`local`) makes a server that exists only in the
 * folder where the line was pasted.
 */
export function claudeCodeLine(server: McpServerCommand, shell: Shell): string {
	const quote = { posix: posixWord, powershell: powershellWord, cmd: cmdWord }[shell];
	const words = ["claude", "mcp", "add", "--scope", "user", SERVER_NAME, "--", server.command, ...serverArguments(server)];
	return words.map(quote).join(" ");
}

/**
 * A TOML basic string. JSON's string escapes (`\"`, `\\`, `\n`, `\uXXXX`, …) are all valid in
 * a TOML basic string, and JSON escapes every control character TOML forbids.
 */
function tomlString(text: string): string {
	return JSON.stringify(text);
}

/** A word for a POSIX shell: bare when nothing in it is special, else single-quoted. */
function posixWord(word: string): string {
	if (/^[A-Za-z0-9_@%+=:,./-]+$/.test(word)) return word;
	return `'${word.replace(/'/g, `'\\''`)}'`;
}

/**
 * A word for PowerShell. A single-quoted string is verbatim there (about_Quoting_Rules): no `$`,
 * backtick or subexpression is expanded; a single quote is written twice, and PowerShell takes
 * the typographic ones (U+2018 to U+201B) for single quotes too. `--` is quoted as well: bare,
 * PowerShell takes it for its own end of parameters and drops it when `claude` is a script such
 * as npm's `claude.ps1` shim, and Claude Code would then read `--vault` as one of its options.
 */
function powershellWord(word: string): string {
	if (/^[A-Za-z0-9_@+=:,./\\-]+$/.test(word) && word !== "--") return word;
	return `'${word.replace(/['\u2018-\u201b]/g, (quote) => quote + quote)}'`;
}

/**
 * A word for cmd. Double quotes keep spaces, `&`, `|`, `<`, `>` and `^` literal, but not `%`:
 * cmd expands `%NAME%` before it looks at quotes. So each `%` is written outside the quotes,
 * escaped with a caret (`"C:\a"^%"b"`), which cmd passes on as a bare `%`; the program's own
 * reading of its command line joins the pieces back into one argument. A backslash before a
 * closing quote would escape it in that reading, so backslashes there are doubled. (A double
 * quote cannot be in a Windows file name.)
 */
function cmdWord(word: string): string {
	if (/^[A-Za-z0-9_@+=:,./\\-]+$/.test(word)) return word;
	return word
		.split("%")
		.map((part) => `"${part.replace(/(\\+)$/, "$1$1")}"`)
		.join("^%");
}

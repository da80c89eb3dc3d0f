/**
 * Getting an MCP client connected: each client's configuration matches the shape its own
 * documentation gives, Claude Code's line reaches the program with every word intact in each
 * shell it is written for, the copied configurations name the program by the absolute path
 * found, and the program check tells a person what to do on each platform (its decision is a
 * pure function of what running the program gave, so every platform's case runs here).
 */

import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import * as fs from "node:fs";
import * as os from "node:os";
import * as path from "node:path";
import { test, type TestContext } from "node:test";
import { PROTOCOL_VERSION } from "../bridge/discovery";
import type { BridgeEnd } from "../bridge/compatibility";
import { COPY_MCP_CONFIGURATION_COMMAND_ID } from "../onboarding/copy";
import { claudeCodeLine, clientConfiguration, mcpClients, type McpServerCommand } from "../onboarding/mcp-config";
import { decideCheck, gatherFacts, programForClients, type ProgramFacts } from "../settings/sidecar-check";
import { doublePluginOf, shownNotices } from "./obsidian-double";
import { loadPlugin, useTemporaryRuntimeDirectory, writeFixtureVault } from "./support";

useTemporaryRuntimeDirectory();

/** A server whose paths hold what each shell would expand, if it were not quoted. */
const AWKWARD: McpServerCommand = { command: "/opt/my tools/vault$link", vaultPath: "/home/me/it's `my` %HOME% vault", platform: "linux" };
const WINDOWS: McpServerCommand = {
	command: "C:\\Users\\Me\\Tools 100%\\vaultlink.exe",
	vaultPath: "D:\\Notes $HOME `n %USERPROFILE% it's\\",
	platform: "win32",
};

// ---- each client's documented shape ----

/** A field's documented type. */
type Shape = "string" | "string[]" | "object" | { const: string };

/** The fields a stdio server's entry may have, and which it must. */
interface EntryShape {
	required: Record<string, Shape>;
	optional: Record<string, Shape>;
}

function checkShape(value: unknown, shape: Shape, where: string): void {
	if (typeof shape === "object") assert.equal(value, shape.const, `${where} is ${shape.const}`);
	else if (shape === "string") assert.equal(typeof value, "string", `${where} is a string`);
	else if (shape === "string[]") assert.ok(Array.isArray(value) && value.every((item) => typeof item === "string"), `${where} is a list of strings`);
	else assert.ok(typeof value === "object" && value !== null && !Array.isArray(value), `${where} is an object`);
}

/** Checks that `text` is a JSON object whose `top` key maps `vaultlink` to an entry of `shape`. */
function checkConfiguration(text: string, top: string, shape: EntryShape): Record<string, unknown> {
	const parsed = JSON.parse(text) as unknown;
	checkShape(parsed, "object", "the configuration");
	const document = parsed as Record<string, unknown>;
	assert.deepEqual(Object.keys(document), [top], `only ${top} at the top`);
	const servers = document[top];
	checkShape(servers, "object", top);
	const entry = (servers as Record<string, unknown>)["vaultlink"];
	checkShape(entry, "object", `${top}.vaultlink`);
	const fields = entry as Record<string, unknown>;
	for (const [key, field] of Object.entries(shape.required)) {
		assert.ok(key in fields, `${top}.vaultlink.${key} is required`);
		checkShape(fields[key], field, `${top}.vaultlink.${key}`);
	}
	for (const [key, value] of Object.entries(fields)) {
		const field = shape.required[key] ?? shape.optional[key];
		assert.ok(field !== undefined, `${top}.vaultlink.${key} is not a documented field`);
		checkShape(value, field, `${top}.vaultlink.${key}`);
	}
	return fields;
}

test("VS Code's configuration is its documented mcp.json: a top-level servers object, each stdio server with type and command", () => {
	// VS Code, "MCP configuration reference" (code.visualstudio.com/docs/copilot/reference/mcp-configuration):
	// `.vscode/mcp.json` in a workspace or the user profile's `mcp.json` "defines servers in a
	// top-level `servers` object"; a stdio server's fields are `type` (required, "stdio"),
	// `command` (required), `args`, `env` and `envFile` (optional).
	const shape: EntryShape = { required: { type: { const: "stdio" }, command: "string" }, optional: { args: "string[]", env: "object", envFile: "string" } };
	for (const server of [AWKWARD, WINDOWS]) {
		const entry = checkConfiguration(clientConfiguration("vscode", server), "servers", shape);
		assert.deepEqual(entry, { type: "stdio", command: server.command, args: ["mcp", "--vault", server.vaultPath] });
	}
});

test("Cursor's configuration is its documented mcp.json: mcpServers, each local server with command and args", () => {
	// Cursor, "Model Context Protocol" (cursor.com/docs/mcp): `~/.cursor/mcp.json` for every
	// project or `.cursor/mcp.json` in one, servers under `mcpServers`; a local (stdio) server has
	// `command` (required), `args` and `env` (optional), and may say `type: "stdio"`.
	const shape: EntryShape = { required: { command: "string" }, optional: { type: { const: "stdio" }, args: "string[]", env: "object", envFile: "string" } };
	for (const server of [AWKWARD, WINDOWS]) {
		const entry = checkConfiguration(clientConfiguration("cursor", server), "mcpServers", shape);
		assert.deepEqual(entry, { command: server.command, args: ["mcp", "--vault", server.vaultPath] });
	}
});

test("Claude Desktop's configuration is its documented claude_desktop_config.json: mcpServers with command and args", () => {
	// The MCP quickstart for Claude Desktop (modelcontextprotocol.io/quickstart/user): servers go
	// under `mcpServers` in claude_desktop_config.json, each with `command`, `args` and optional `env`.
	const shape: EntryShape = { required: { command: "string" }, optional: { args: "string[]", env: "object" } };
	for (const server of [AWKWARD, WINDOWS]) {
		const entry = checkConfiguration(clientConfiguration("claude-desktop", server), "mcpServers", shape);
		assert.deepEqual(entry, { command: server.command, args: ["mcp", "--vault", server.vaultPath] });
	}
});

test("Codex's configuration is a TOML table whose strings hold the paths exactly", () => {
	const table = clientConfiguration("codex", WINDOWS).split("\n");
	assert.equal(table[0], "[mcp_servers.vaultlink]");
	// A TOML basic string takes JSON's escapes, so reading each value as JSON gives the path back.
	assert.equal(JSON.parse(table[1]?.replace(/^command = /, "") ?? "") as unknown, WINDOWS.command);
	assert.deepEqual(JSON.parse(table[2]?.replace(/^args = /, "") ?? "") as unknown, ["mcp", "--vault", WINDOWS.vaultPath]);
});

// ---- Claude Code's line in each shell ----

test("Claude Code's line adds the server for the user, and a POSIX shell hands the program every word as it was", { skip: process.platform === "win32" ? "runs /bin/sh" : false }, (t) => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vaultlink-claude-"));
	t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
	// A stand-in `claude` that prints each argument it was given, one a line.
	fs.writeFileSync(path.join(dir, "claude"), `#!/bin/sh\nfor word in "$@"; do printf '%s\\n' "$word"; done\n`, { mode: 0o755 });
	const line = clientConfiguration("claude-code", AWKWARD);
	assert.ok(line.startsWith("claude mcp add --scope user vaultlink -- "), line);
	const printed = execFileSync("/bin/sh", ["-c", line], { env: { PATH: `${dir}:/usr/bin:/bin`, HOME: "/nowhere" }, encoding: "utf8" });
	assert.deepEqual(printed.split("\n").slice(0, -1), ["mcp", "add", "--scope", "user", "vaultlink", "--", AWKWARD.command, "mcp", "--vault", AWKWARD.vaultPath]);
});

test("on Windows, Claude Code gets a line for PowerShell and one for Command Prompt, each quoted by that shell's rules", () => {
	assert.deepEqual(mcpClients("win32"), ["claude-desktop", "claude-code", "codex", "vscode", "cursor", "claude-code-cmd"]);
	assert.deepEqual(mcpClients("darwin"), ["claude-desktop", "claude-code", "codex", "vscode", "cursor"]);
	// PowerShell (about_Quoting_Rules): single quotes are verbatim, `$` and backticks stay as
	// they are, a single quote is doubled; `--` is quoted so that PowerShell does not take it for
	// its own end of parameters when `claude` is npm's claude.ps1.
	assert.equal(
		claudeCodeLine(WINDOWS, "powershell"),
		`claude mcp add --scope user vaultlink '--' 'C:\\Users\\Me\\Tools 100%\\vaultlink.exe' mcp --vault 'D:\\Notes $HOME \`n %USERPROFILE% it''s\\'`,
	);
	assert.equal(clientConfiguration("claude-code", WINDOWS), claudeCodeLine(WINDOWS, "powershell"));
	// cmd expands %NAME% even inside double quotes; a caret outside them keeps a % literal, and
	// the program's reading of its command line joins the quoted pieces. A backslash before a
	// closing quote is doubled so that it does not escape the quote.
	assert.equal(
		claudeCodeLine(WINDOWS, "cmd"),
		`claude mcp add --scope user vaultlink -- "C:\\Users\\Me\\Tools 100"^%"\\vaultlink.exe" mcp --vault "D:\\Notes $HOME \`n "^%"USERPROFILE"^%" it's\\\\"`,
	);
	assert.equal(clientConfiguration("claude-code-cmd", WINDOWS), claudeCodeLine(WINDOWS, "cmd"));
	// A typographic single quote is one to PowerShell too, so it is doubled as well.
	assert.equal(claudeCodeLine({ ...WINDOWS, vaultPath: "D:\\Bob’s notes" }, "powershell").split(" ").slice(-2).join(" "), `'D:\\Bob’’s notes'`);
});

// ---- the path the copied configurations name ----

test("the copied configurations name the program's absolute path when it is found, and the configured name, said so, when not", async (t) => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vaultlink-path-"));
	t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
	const program = path.join(dir, process.platform === "win32" ? "vaultlink.exe" : "vaultlink");
	fs.writeFileSync(program, "", { mode: 0o755 });
	const search = { path: dir, platform: process.platform, pathExt: ".EXE" };
	assert.deepEqual(programForClients("vaultlink", search), { command: program, found: true });
	assert.deepEqual(programForClients("vaultlink", { ...search, path: path.join(dir, "absent") }), { command: "vaultlink", found: false });

	const vaultDir = writeFixtureVault("//- A.md\nA.\n");
	const { plugin } = await loadPlugin(vaultDir);
	t.after(() => plugin.unload());
	const copied: string[] = [];
	plugin.clipboard = { writeText: async (text) => void copied.push(text) };
	const savedPath = process.env["PATH"];
	t.after(() => {
		process.env["PATH"] = savedPath;
	});
	process.env["PATH"] = dir;
	await plugin.copyMcpConfiguration("vscode");
	assert.deepEqual(JSON.parse(copied[0] ?? "") as unknown, { servers: { vaultlink: { type: "stdio", command: program, args: ["mcp", "--vault", vaultDir] } } });
	assert.equal(shownNotices.at(-1)?.message, "vaultlink: copied the MCP configuration for VS Code. Paste it into your client.");
	await doublePluginOf(plugin).commands.get(COPY_MCP_CONFIGURATION_COMMAND_ID)?.callback?.();
	assert.equal(copied[1]?.split(program).length, mcpClients(process.platform).length + 1, "every client's configuration names the path found");

	process.env["PATH"] = path.join(dir, "absent");
	await plugin.copyMcpConfiguration("cursor");
	assert.deepEqual(JSON.parse(copied[2] ?? "") as unknown, { mcpServers: { vaultlink: { command: "vaultlink", args: ["mcp", "--vault", vaultDir] } } });
	assert.match(shownNotices.at(-1)?.message ?? "", /It names the program "vaultlink", which was not found: set its absolute path under Agents/);
});

test("a clipboard that refuses the text: the notice says nothing was copied, and the configuration is not logged", async (t) => {
	const vaultDir = writeFixtureVault("//- A.md\nA.\n");
	const { plugin } = await loadPlugin(vaultDir);
	t.after(() => plugin.unload());
	plugin.clipboard = { writeText: () => Promise.reject(new Error("denied")) };
	const logged: unknown[][] = [];
	for (const level of ["log", "info", "warn", "error", "debug"] as const) {
		const original = console[level];
		console[level] = (...args: unknown[]) => void logged.push(args);
		t.after(() => {
			console[level] = original;
		});
	}
	await plugin.copyMcpConfiguration();
	assert.match(shownNotices.at(-1)?.message ?? "", /could not copy to the clipboard \(denied\); nothing was copied/);
	assert.ok(
		logged.some((args) => args.map(String).join(" ") === "vaultlink: could not write to the clipboard denied"),
		"the failure is logged",
	);
	assert.ok(!JSON.stringify(logged.map((args) => args.map(String))).includes(vaultDir.replace(/\\/g, "\\\\")), "no configuration in the console");
});

// ---- the program check's decisions ----

const PLUGIN: BridgeEnd = { version: "0.5.0", protocol: PROTOCOL_VERSION };

function facts(change: Partial<ProgramFacts>): ProgramFacts {
	return { command: "vaultlink", platform: "linux", program: null, downloads: [], ran: null, attributes: null, ...change };
}

test("macOS: a program Gatekeeper stopped, with the quarantine attribute, is named as such with both ways to allow it", () => {
	const program = "/Users/me/Downloads/vault link/vaultlink";
	for (const failure of [
		// Killed as it starts, as macOS does to a quarantined binary started from a process.
		{ message: "Command failed: vaultlink --version", code: null, signal: "SIGKILL", stderr: "" },
		// Refused outright.
		{ message: "spawn EPERM", code: "EPERM", signal: null, stderr: "" },
	]) {
		const check = decideCheck(facts({ platform: "darwin", program, ran: { failure }, attributes: ["com.apple.provenance", "com.apple.quarantine"] }), PLUGIN);
		assert.equal(check.ok, false);
		assert.equal(
			check.message,
			`macOS stopped ${program}: it was downloaded and is not notarized, so Gatekeeper keeps it in quarantine. Allow it once, in Terminal with xattr -d com.apple.quarantine '${program}', or in System Settings → Privacy & Security with Open Anyway after trying to run it, then check again.`,
		);
	}
	// Without the attribute, or on another platform, a failure is only a failure.
	const killed = { failure: { message: "Command failed", code: null, signal: "SIGKILL", stderr: "" } };
	assert.match(decideCheck(facts({ platform: "darwin", program, ran: killed, attributes: ["com.apple.provenance"] }), PLUGIN).message, /is there but did not run: it was stopped \(SIGKILL\)/);
	assert.match(decideCheck(facts({ platform: "darwin", program, ran: killed, attributes: null }), PLUGIN).message, /is there but did not run/);
	assert.match(decideCheck(facts({ platform: "linux", program, ran: killed, attributes: ["com.apple.quarantine"] }), PLUGIN).message, /is there but did not run/);
});

test("Windows: the release's download found under its own name is named, with the name to give it", () => {
	const download = "C:\\Users\\me\\bin\\vaultlink-0.5.0-x86_64-pc-windows-msvc.exe";
	const check = decideCheck(facts({ platform: "win32", downloads: [download] }), PLUGIN);
	assert.deepEqual(check, { ok: false, message: `Found ${download}, the release's download under its own name. Rename it to vaultlink.exe in the same folder, then check again.` });
	assert.match(decideCheck(facts({ platform: "win32", command: "C:\\tools\\vaultlink.exe", downloads: [download] }), PLUGIN).message, /Rename it to vaultlink\.exe in the same folder/);
	assert.match(decideCheck(facts({ platform: "win32" }), PLUGIN).message, /^"vaultlink" is not on Obsidian's search path/);
});

test("Windows: the check looks for the release's download in the folders of the search path", async (t) => {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), "vaultlink-download-"));
	t.after(() => fs.rmSync(dir, { recursive: true, force: true }));
	fs.writeFileSync(path.join(dir, "vaultlink-0.5.0-x86_64-pc-windows-msvc.exe"), "");
	fs.writeFileSync(path.join(dir, "vaultlink-notes.txt"), "");
	const found = await gatherFacts("vaultlink", { path: `${path.join(dir, "absent")};${dir}`, platform: "win32", pathExt: ".EXE;.CMD" });
	assert.deepEqual(found.downloads, [path.join(dir, "vaultlink-0.5.0-x86_64-pc-windows-msvc.exe")]);
	assert.equal(found.program, null);
	const elsewhere = await gatherFacts("vaultlink", { path: dir, platform: "linux", pathExt: "" });
	assert.deepEqual(elsewhere.downloads, [], "only on Windows");
});

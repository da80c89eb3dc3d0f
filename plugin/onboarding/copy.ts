/**
 * "Copy MCP client configuration": puts the MCP clients' configuration for this vault on the
 * clipboard, one client's or every one's. It names the program by the absolute path the
 * settings' program check finds, since clients start it without a shell and from a search path
 * of their own; when there is none it names the program as configured, and the notice says so.
 */

import { FileSystemAdapter, Notice, type App } from "obsidian";
import { programForClients } from "../settings/sidecar-check";
import type { VaultlinkSettings } from "../settings/settings";
import { ERROR_NOTICE_MS, messageOf } from "../ui/notice";
import { allClientConfigurations, clientConfiguration, clientList, clientName, type McpClient, type McpServerCommand } from "./mcp-config";

/** Stable: users bind hotkeys to it. */
export const COPY_MCP_CONFIGURATION_COMMAND_ID = "copy-mcp-client-configuration";

/** Where copied text goes; the system clipboard in Obsidian. */
export interface ClipboardWriter {
	writeText(text: string): Promise<void>;
}

/** Puts the configuration of `client` (every client's, without one) on `clipboard`, and says so. */
export async function copyMcpConfiguration(app: App, settings: Promise<VaultlinkSettings>, clipboard: ClipboardWriter, client?: McpClient): Promise<void> {
	const server = await mcpServerCommand(app, settings);
	if (server === null) {
		new Notice("vaultlink: agents reach a vault through a folder on disk, which this device does not have; use Obsidian on a desktop.", ERROR_NOTICE_MS);
		return;
	}
	const text = client === undefined ? allClientConfigurations(server) : clientConfiguration(client, server);
	try {
		await clipboard.writeText(text);
	} catch (error) {
		// The configuration itself is not logged: it names the vault's folder, and the console
		// keeps what is written there for anyone who opens it later.
		console.error("vaultlink: could not write to the clipboard", messageOf(error));
		new Notice(`vaultlink: could not copy to the clipboard (${messageOf(error)}); nothing was copied. Try again with Obsidian's window in front.`, ERROR_NOTICE_MS);
		return;
	}
	const what =
		client === undefined
			? `vaultlink: copied the MCP configuration for ${clientList(server.platform)}. Paste the part for your client.`
			: `vaultlink: copied the MCP configuration for ${clientName(client, server.platform)}. Paste it into your client.`;
	const found = server.found
		? ""
		: ` It names the program "${server.command}", which was not found: set its absolute path under Agents in the plugin's settings and copy again.`;
	new Notice(`${what}${found}`, server.found ? undefined : ERROR_NOTICE_MS);
}

async function mcpServerCommand(app: App, settingsRead: Promise<VaultlinkSettings>): Promise<(McpServerCommand & { found: boolean }) | null> {
	const adapter = app.vault.adapter;
	if (!(adapter instanceof FileSystemAdapter)) return null;
	const settings = await settingsRead;
	const program = programForClients(settings.sidecarCommand);
	return { command: program.command, found: program.found, vaultPath: adapter.getBasePath(), platform: process.platform };
}

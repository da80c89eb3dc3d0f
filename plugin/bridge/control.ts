/**
 * The bridge's state machine, as the plugin drives it from load to unload: off, starting,
 * listening, failed, or unavailable (mobile: no sockets and no sidecar to serve). One start or
 * stop runs at a time (`change`), so toggling the setting quickly never runs two at once; the
 * bridge opens before the first index is complete (its discovery file says `starting`) and is
 * marked ready once it is, and calls are refused, retryably, until then.
 */

import { FileSystemAdapter, Notice, type App } from "obsidian";
import { ErrorCode } from "../error-codes";
import type { BridgeStatus } from "../settings/tab";
import { runTool, type ToolHost } from "../tools";
import { ERROR_NOTICE_MS, messageOf } from "../ui/notice";
import type { ToolOutcome } from "../wasm";
import { BridgeServer } from "./server";

/** Where the bridge is, once it is up. */
export interface BridgeInfo {
	socketPath: string;
	discoveryPath: string;
	token: string;
}

/** What the bridge needs of the plugin that owns it. */
export interface BridgeOwner {
	app: App;
	pluginVersion(): string;
	/** Whether the plugin was unloaded; a bridge started meanwhile is stopped at once. */
	unloaded(): boolean;
	/** Whether the first index is complete, so the bridge may serve calls. */
	indexed(): boolean;
	/** What calls run against; null while there is no link engine (unloaded). */
	host(): ToolHost | null;
}

/** The plugin's bridge, started and stopped one change at a time. */
export class BridgeControl {
	private bridge: BridgeServer | null = null;
	/** The bridge's start or stop under way, so toggling it quickly never runs two at once. */
	private bridgeChange: Promise<void> = Promise.resolve();
	private state: BridgeStatus["state"] = "starting";
	private error: string | undefined;
	/** The last authenticated connection of a bridge since stopped, so the tab still shows it. */
	private lastConnection: BridgeStatus["lastConnection"] = null;

	constructor(private readonly owner: BridgeOwner) {}

	/** The bridge's socket and discovery file, or null while it is not up. */
	get info(): BridgeInfo | null {
		const bridge = this.bridge;
		if (bridge === null) return null;
		return { socketPath: bridge.paths.socketPath, discoveryPath: bridge.paths.discoveryPath, token: bridge.token };
	}

	/** The server's listening address: a socket path, never a TCP port. */
	address(): ReturnType<BridgeServer["address"]> {
		return this.bridge?.address() ?? null;
	}

	/** The bridge as the settings tab reports it; `enabled` is the setting as read, if it is. */
	status(enabled: boolean | undefined): BridgeStatus {
		const bridge = this.bridge;
		const lastConnection = bridge?.lastConnection ?? this.lastConnection;
		if (bridge !== null) {
			return { state: bridge.state === "starting" ? "starting" : "listening", socketPath: bridge.paths.socketPath, lastConnection, skew: bridge.lastSkew };
		}
		// Turned off in the settings: off, even while the first index that would precede it runs.
		if (enabled === false) return { state: "off", lastConnection };
		return { state: this.state, error: this.error, lastConnection };
	}

	/** Says the bridge is off, without a change: the settings keep it off from the start. */
	off(): void {
		this.state = "off";
	}

	/** Starts or stops the bridge after any change under way. A failure to start is reported, not thrown. */
	change(enabled: boolean): Promise<void> {
		const change = this.bridgeChange.then(() => (enabled ? this.start() : this.stop()));
		this.bridgeChange = change.catch(() => undefined);
		return change;
	}

	/** Stops the bridge as the plugin unloads, without waiting for it. */
	unload(): void {
		void this.bridge?.stop();
		this.bridge = null;
	}

	/** A new token in a rewritten discovery file; connected sidecars are dropped. */
	async regenerateToken(): Promise<void> {
		await this.bridgeChange;
		const bridge = this.bridge;
		if (bridge === null) {
			new Notice("vaultlink: the bridge is off, so there is no token to replace; let agents connect first, in the plugin's settings.", ERROR_NOTICE_MS);
			return;
		}
		try {
			bridge.regenerateToken();
			new Notice("vaultlink: new token written; connected agents reconnect with it.");
		} catch (error) {
			console.error("vaultlink: could not regenerate the token", error);
			new Notice(`vaultlink: the token was not replaced: ${messageOf(error)}. The old one still works.`, ERROR_NOTICE_MS);
		}
	}

	/** Tells sidecars, through the discovery file, that the first index is complete. */
	markReady(): void {
		try {
			this.bridge?.markReady();
		} catch (error) {
			console.error("vaultlink: could not rewrite the discovery file", error);
			new Notice(`vaultlink: agents cannot be told the index is ready (${messageOf(error)}); turn "Let agents connect" off and on again in the settings.`, ERROR_NOTICE_MS);
		}
	}

	private async stop(): Promise<void> {
		const bridge = this.bridge;
		this.bridge = null;
		this.state = "off";
		this.error = undefined;
		if (bridge === null) return;
		this.lastConnection = bridge.lastConnection ?? this.lastConnection;
		await bridge.stop();
	}

	private async start(): Promise<void> {
		// The bridge opens before the link engine and the index exist (it announces Obsidian at
		// once); calls reach the index only once it is complete.
		if (this.bridge !== null || this.owner.unloaded()) return;
		const adapter = this.owner.app.vault.adapter;
		if (!(adapter instanceof FileSystemAdapter)) {
			// Mobile: no sockets and no sidecar to serve.
			this.state = "unavailable";
			return;
		}
		let bridge: BridgeServer;
		try {
			bridge = await BridgeServer.start({
				vaultPath: adapter.getBasePath(),
				pluginVersion: this.owner.pluginVersion(),
				call: (tool, args, signal) => {
					const host = this.owner.host();
					return this.owner.indexed() && host !== null ? runTool(host, tool, args, signal) : stillIndexing();
				},
				state: this.owner.indexed() ? "ready" : "starting",
			});
		} catch (error) {
			this.state = "failed";
			this.error = messageOf(error);
			throw error;
		}
		if (this.owner.unloaded()) {
			// Unloaded while the bridge was starting: it must not outlive the plugin.
			await bridge.stop();
			return;
		}
		this.bridge = bridge;
		this.state = "listening";
		this.error = undefined;
		// The index may have completed while the bridge started.
		if (this.owner.indexed()) this.markReady();
	}
}

/** The answer to a call before the first index is complete: refused, to be retried. */
function stillIndexing(): ToolOutcome {
	return {
		ok: false,
		error: {
			code: ErrorCode.PluginUnavailable,
			message: "the vaultlink plugin is still indexing the vault",
			hint: "Wait for the plugin to finish indexing, then call again.",
			retryable: true,
		},
	};
}

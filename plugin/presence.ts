/**
 * The plugin's presence lease in the vault: `<vault>/.vaultlink/presence.json`, written at load,
 * rewritten on a timer and removed on unload, so that a sidecar that cannot reach the bridge
 * (another home folder, another namespace or OS, another version) still sees that Obsidian has
 * the vault open and never writes on the folder behind it. Core judges a presence file found in
 * a vault (`crates/core/src/presence.rs`); the shared vector `tests/vectors/presence.json` holds
 * the format and the timings both sides use.
 *
 * The lease is written through Node's `fs` under the vault's folder (as the journal is): the
 * rename of a whole new file over the old one, so a reader sees one lease or the other and its
 * modification time is the renewal's. It holds nothing secret.
 */

import * as crypto from "crypto";
import * as fs from "fs";
import * as os from "os";
import * as path from "path";
import { OWN_FOLDER, PRESENCE_FILE } from "./wire";
import { messageOf } from "./ui/notice";

/** vaultlink's folder in the vault and the lease's file in it, as core names them (`wire.ts`). */
export const PRESENCE_FOLDER = OWN_FOLDER;
export { PRESENCE_FILE };
/** How often the lease is rewritten (core's `RENEW_MS`; RELIABILITY.md says why). */
export const PRESENCE_RENEW_MS = 2_000;
/** How long after its last renewal a lease counts (core's `EXPIRE_MS`). */
export const PRESENCE_EXPIRE_MS = 15_000;

/** The lease's fields, as core reads them (`vaultlink_core::presence::Lease`). */
export interface PresenceLease {
	version: 1;
	instance: string;
	machine: string;
	platform: string;
	plugin_version: string;
	protocol: number;
	bridge: boolean;
	discovery_dir: string;
}

/** What the lease says besides its instance, asked for again at every renewal (the bridge may be turned on or off meanwhile). */
export type LeaseFacts = Omit<PresenceLease, "version" | "instance" | "machine" | "platform">;

/** The one timer source the lease needs: the window's, whose ids the plugin registers. */
export interface LeaseHost {
	registerInterval(id: number): number;
	register(callback: () => void): void;
}

/** One plugin load's lease on one vault. */
export class PresenceKeeper {
	readonly instance = crypto.randomBytes(8).toString("hex");
	/** The last failure to write the lease, said once on the console; null after a write succeeds. */
	private failure: string | null = null;
	private stopped = false;

	constructor(
		private readonly vaultPath: string,
		private readonly facts: () => LeaseFacts,
	) {}

	/** Writes the lease now, then every `renewMs` until `host` unloads, when it is removed. */
	keep(host: LeaseHost, renewMs: number = PRESENCE_RENEW_MS): void {
		this.removeStaleTemporaries();
		this.renew();
		host.registerInterval(window.setInterval(() => this.renew(), renewMs));
		host.register(() => this.stop());
	}

	/** The lease as written now. */
	lease(): PresenceLease {
		return { version: 1, instance: this.instance, machine: os.hostname(), platform: process.platform, ...this.facts() };
	}

	/** Writes the lease whole under a name of its own, then renames it over the presence file. */
	renew(): void {
		if (this.stopped) return;
		const folder = path.join(this.vaultPath, PRESENCE_FOLDER);
		const target = path.join(folder, "presence.json");
		const temporary = path.join(folder, `presence.json.${this.instance}.tmp`);
		try {
			fs.mkdirSync(folder, { recursive: true });
			// A folder swapped for a link would take the file out of the vault.
			if (fs.lstatSync(folder).isSymbolicLink()) throw new Error(`\`${PRESENCE_FOLDER}\` is a symbolic link, so no lease is written through it`);
			fs.writeFileSync(temporary, `${JSON.stringify(this.lease())}\n`);
			fs.renameSync(temporary, target);
			this.failure = null;
		} catch (error) {
			try {
				fs.rmSync(temporary, { force: true });
			} catch {
				// Nothing more can be done about a folder that refuses writes.
			}
			const message = messageOf(error);
			if (this.failure === null) console.warn(`vaultlink: the presence lease ${PRESENCE_FILE} could not be written (${message}); a sidecar that cannot reach the bridge may not see that Obsidian has the vault open`);
			this.failure = message;
		}
	}

	/** Removes the temporary lease files a load killed mid-renewal left (any other window's are renamed within moments, so only old ones go). */
	private removeStaleTemporaries(): void {
		const folder = path.join(this.vaultPath, PRESENCE_FOLDER);
		let names: string[];
		try {
			if (fs.lstatSync(folder).isSymbolicLink()) return;
			names = fs.readdirSync(folder);
		} catch {
			return;
		}
		for (const name of names) {
			if (!/^presence\.json\.[0-9a-f]{16}\.tmp$/.test(name)) continue;
			const file = path.join(folder, name);
			try {
				const stat = fs.lstatSync(file);
				if (stat.isFile() && Date.now() - stat.mtimeMs > PRESENCE_EXPIRE_MS) fs.rmSync(file, { force: true });
			} catch {
				// Gone meanwhile.
			}
		}
	}

	/** Removes the lease if it is still this load's (another window may have taken the vault over since), and `.vaultlink` if it is then empty. */
	stop(): void {
		this.stopped = true;
		const folder = path.join(this.vaultPath, PRESENCE_FOLDER);
		const target = path.join(folder, "presence.json");
		try {
			const found: unknown = JSON.parse(fs.readFileSync(target, "utf8"));
			if (typeof found === "object" && found !== null && (found as { instance?: unknown }).instance === this.instance) fs.rmSync(target, { force: true });
		} catch {
			// Gone already, or not a lease this load wrote.
		}
		try {
			fs.rmdirSync(folder);
		} catch {
			// Not empty (a journal, kept changes, another window's lease), or gone.
		}
	}
}

/**
 * The renames made in the vault since the plugin loaded, as the rename audit reads them: each
 * file's old path and new path, from the vault's `rename` events, the most recent last.
 *
 * A folder's rename is recorded as one rename per file under it. Obsidian also sends each of
 * those files its own `rename` event; both are recorded as the same pair, once. A file renamed
 * twice (A → B, then B → C) is recorded as A → C and B → C: links may name either old name.
 */

import { TFile, TFolder, type Component, type TAbstractFile, type Vault } from "obsidian";

/**
 * Renames kept. The audit checks each one against the index, so the log is bounded to keep the
 * audit quick however long Obsidian stays open; the oldest are dropped first.
 */
export const MAX_RECORDED_RENAMES = 50;

/** One file's rename: where it was and where it is. */
export interface RecordedRename {
	from: string;
	to: string;
}

export class RenameLog {
	private renames: RecordedRename[] = [];
	private readonly limit: number;
	/** When the last rename was recorded (`Date.now()`), or null before the first. */
	lastRecordedAt: number | null = null;

	constructor(limit = MAX_RECORDED_RENAMES) {
		if (limit < 1) throw new Error(`a rename log keeps at least one rename, not ${limit}`);
		this.limit = limit;
	}

	/** Records renames from `vault`'s events until `component` unloads. */
	registerEvents(component: Component, vault: Vault): void {
		// Recording is a few comparisons over at most `limit` entries, so it runs on each event
		// rather than debounced: a debounced record could miss a rename audited right after it.
		component.registerEvent(vault.on("rename", (file, oldPath) => this.recordEvent(file, oldPath)));
	}

	/** Records a vault `rename` event: a file, or every file under a folder. */
	recordEvent(file: TAbstractFile, oldPath: string): void {
		if (file instanceof TFile) {
			this.record(oldPath, file.path);
		} else if (file instanceof TFolder) {
			for (const descendant of filesUnder(file)) {
				this.record(`${oldPath}${descendant.path.slice(file.path.length)}`, descendant.path);
			}
		}
	}

	/** Records that the file at `from` is now at `to`. */
	record(from: string, to: string): void {
		if (from === to) return;
		this.lastRecordedAt = Date.now();
		// A file renamed again: the earlier renames now end where this one ends. One that ends
		// where it began (renamed back) is no rename at all.
		this.renames = this.renames
			.map((rename) => (rename.to === from ? { from: rename.from, to } : rename))
			.filter((rename) => rename.from !== rename.to && !(rename.from === from && rename.to === to));
		this.renames.push({ from, to });
		if (this.renames.length > this.limit) this.renames.splice(0, this.renames.length - this.limit);
	}

	/** The recorded renames, oldest first. */
	entries(): RecordedRename[] {
		return this.renames.map((rename) => ({ ...rename }));
	}

	get size(): number {
		return this.renames.length;
	}
}

/** Every file under `folder`, at any depth, in the order the folder lists them. */
function filesUnder(folder: TFolder): TFile[] {
	const files: TFile[] = [];
	for (const child of folder.children) {
		if (child instanceof TFile) files.push(child);
		else if (child instanceof TFolder) files.push(...filesUnder(child));
	}
	return files;
}

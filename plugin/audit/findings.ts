/**
 * The rename audit: for each recorded rename, core (`crates/core/src/audit.rs`) finds in the
 * plugin's index the links that still name the file's old path and no longer point to the file,
 * and the `rewrite_link` calls that would repoint them; this reads each such note's text to show
 * the link as written.
 */

import type { App } from "obsidian";
import type { LinkEngine } from "../engine/client";
import { cachedTextOrNull } from "../change";
import type { RecordedRename } from "./renames";
import type { LinkSourceName } from "../wasm";

/** A link that still names a renamed file's old path and no longer points to the file. */
export interface StaleLink {
	/** The note holding the link. */
	note: string;
	/** 1-based. */
	line: number;
	/** The link as written in the note (the target as written when the text cannot be read). */
	text: string;
	source: LinkSourceName;
	/** The property's top-level key, for a property link. */
	key?: string;
	/** The file the link points to now; absent when it points nowhere. */
	resolvedPath?: string;
}

/** One `rewrite_link` call that repoints a rename's stale links written one way. */
export interface RewriteFix {
	fromTarget: string;
	toTarget: string;
}

/** What the audit found for one rename. */
export interface RenameFindings {
	rename: RecordedRename;
	/** Why the rename was not checked (its file is gone, or a file is at the old path again); else absent. */
	skipped?: string;
	/** Sorted by note, then line. */
	stale: StaleLink[];
	/** The calls that repoint every stale link; empty when there is none. */
	fixes: RewriteFix[];
}

/**
 * Audits each rename against `index`, which must hold what the vault holds now (the caller
 * settles it first). Reads the text of each note holding a stale link, to show the link as written.
 */
export async function auditRenames(app: App, index: LinkEngine, renames: RecordedRename[]): Promise<RenameFindings[]> {
	const findings: RenameFindings[] = [];
	for (const rename of renames) findings.push(await auditRename(app, index, rename));
	return findings;
}

async function auditRename(app: App, index: LinkEngine, rename: RecordedRename): Promise<RenameFindings> {
	const audit = await index.auditRename(rename.from, rename.to);
	if (audit.skipped !== undefined) return { rename, skipped: audit.skipped, stale: [], fixes: [] };
	const texts = new Map<string, string | null>();
	const stale: StaleLink[] = [];
	for (const link of audit.stale) {
		if (!texts.has(link.note)) texts.set(link.note, await cachedTextOrNull(app, link.note));
		const found: StaleLink = { note: link.note, line: link.line, text: writtenLink(texts.get(link.note) ?? null, link.span) ?? link.target, source: link.source };
		if (link.key !== undefined) found.key = link.key;
		if (link.resolved_path !== undefined) found.resolvedPath = link.resolved_path;
		stale.push(found);
	}
	return { rename, stale, fixes: audit.fixes.map((fix) => ({ fromTarget: fix.from_target, toTarget: fix.to_target })) };
}

/** The link as written: its UTF-8 byte span in `text`, or null when that does not fit. */
function writtenLink(text: string | null, span: { start: number; end: number }): string | null {
	if (text === null) return null;
	const bytes = new TextEncoder().encode(text);
	if (span.end > bytes.length || span.start > span.end) return null;
	return new TextDecoder().decode(bytes.subarray(span.start, span.end));
}


//! The rename audit: for each recorded rename, the links that still name the file's old path and
//! no longer point to the file (they point nowhere, or to another file), found in the plugin's
//! index; and the `rewrite_link` calls that would repoint them, one per way the old target is
//! written (the bare old name, and the old path).

import { TFile, type App } from "obsidian";
import { notesToReadForRewrite, outgoingLinks, type OutgoingLink, type Vault as LinkIndex } from "../wasm";
import type { RecordedRename } from "./renames";

/** A link that still names a renamed file's old path and no longer points to the file. */
export interface StaleLink {
	/** The note holding the link. */
	note: string;
	/** 1-based. */
	line: number;
	/** The link as written in the note (the target as written when the text cannot be read). */
	text: string;
	source: "body" | "property";
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
export async function auditRenames(app: App, index: LinkIndex, renames: RecordedRename[]): Promise<RenameFindings[]> {
	const findings: RenameFindings[] = [];
	for (const rename of renames) findings.push(await auditRename(app, index, rename));
	return findings;
}

async function auditRename(app: App, index: LinkIndex, rename: RecordedRename): Promise<RenameFindings> {
	const vault = app.vault;
	if (!(vault.getAbstractFileByPath(rename.to) instanceof TFile)) {
		return { rename, skipped: `${rename.to} is no longer in the vault`, stale: [], fixes: [] };
	}
	// Links that name a file now at the old path point to that file, as they should.
	if (vault.getAbstractFileByPath(rename.from) !== null) {
		return { rename, skipped: `a file is at ${rename.from} again, so links to it are left alone`, stale: [], fixes: [] };
	}
	const stale: StaleLink[] = [];
	const fixes: RewriteFix[] = [];
	for (const written of writtenTargets(rename.from)) {
		const found: StaleLink[] = [];
		for (const note of notesToReadForRewrite(index, written.target)) {
			let links: OutgoingLink[];
			try {
				links = outgoingLinks(index, note).links;
			} catch {
				continue; // The note left the index between the two calls.
			}
			const matching = links.filter((link) => namesTarget(link, written.target) && link.resolved_path !== rename.to);
			if (matching.length === 0) continue;
			const text = await readOrNull(app, note);
			for (const link of matching) found.push(staleLink(note, link, text));
		}
		if (found.length === 0) continue;
		stale.push(...found);
		fixes.push({ fromTarget: written.target, toTarget: newTarget(app, rename.to, written.bare) });
	}
	stale.sort((a, b) => (a.note < b.note ? -1 : a.note > b.note ? 1 : a.line - b.line));
	return { rename, stale, fixes };
}

/**
 * How links name the file that was at `path`: its name (without `.md` for a note), and its path
 * (the same, for a file at the vault's root).
 */
export function writtenTargets(path: string): { target: string; bare: boolean }[] {
	const bare = linkName(path);
	const qualified = withoutMarkdownExtension(path);
	return qualified === bare ? [{ target: bare, bare: true }] : [{ target: bare, bare: true }, { target: qualified, bare: false }];
}

/**
 * The target a stale link should get for the file now at `path`: its bare name when the link
 * was bare and no other file has that name, else its path (without `.md` for a note).
 */
export function newTarget(app: App, path: string, bare: boolean): string {
	const name = linkName(path);
	if (bare) {
		const key = foldName(name);
		const namesakes = app.vault.getFiles().filter((file) => foldName(linkName(file.path)) === key);
		if (namesakes.length === 1 && namesakes[0]?.path === path) return name;
	}
	return withoutMarkdownExtension(path);
}

/** A file's name as a link writes it: a note's without `.md`, any other file's in full. */
export function linkName(path: string): string {
	return withoutMarkdownExtension(path.slice(path.lastIndexOf("/") + 1));
}

function withoutMarkdownExtension(path: string): string {
	return path.toLowerCase().endsWith(".md") ? path.slice(0, -".md".length) : path;
}

/**
 * True when `link` names `target` as core's `rewrite_link` compares them (`targets_match` in
 * `crates/core/src/rename.rs`): the path part, percent-decoded in a Markdown link, without a
 * leading `/` or `.md`, compared as names are.
 */
export function namesTarget(link: OutgoingLink, target: string): boolean {
	const hash = link.target.indexOf("#");
	let path = hash < 0 ? link.target : link.target.slice(0, hash);
	if (link.kind === "markdown" || link.kind === "markdown_embed") path = percentDecoded(path);
	const comparable = (text: string): string => withoutMarkdownExtension(foldName(text.trim().replace(/^\/+/, "")));
	return path.trim() !== "" && comparable(path) === comparable(target);
}

/** Names as core compares them (`fold` in `crates/core/src/resolve.rs`): NFC, ignoring case. */
function foldName(name: string): string {
	return name.normalize("NFC").toLowerCase();
}

function percentDecoded(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

function staleLink(note: string, link: OutgoingLink, text: string | null): StaleLink {
	const stale: StaleLink = { note, line: link.line, text: writtenLink(text, link) ?? link.target, source: link.source };
	if (link.key !== undefined) stale.key = link.key;
	if (link.resolved_path !== undefined) stale.resolvedPath = link.resolved_path;
	return stale;
}

/** The link as written: its UTF-8 byte span in `text`, or null when that does not fit. */
function writtenLink(text: string | null, link: OutgoingLink): string | null {
	if (text === null || link.span === undefined) return null;
	const bytes = new TextEncoder().encode(text);
	if (link.span.end > bytes.length || link.span.start > link.span.end) return null;
	return new TextDecoder().decode(bytes.subarray(link.span.start, link.span.end));
}

async function readOrNull(app: App, path: string): Promise<string | null> {
	const file = app.vault.getAbstractFileByPath(path);
	if (!(file instanceof TFile)) return null;
	try {
		return await app.vault.cachedRead(file);
	} catch {
		return null;
	}
}

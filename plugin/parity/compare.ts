/**
 * Compares how vaultlink's core and Obsidian's metadata cache read the links of a note. Pure
 * functions over plain data (the note's text, core's parse, Obsidian's cached metadata), so
 * the comparison is tested without Obsidian; `command.ts` gathers the data and shows the result.
 *
 * How the two sides are matched:
 *
 * - Body links by where they start: Obsidian's `position.start.offset` and core's
 *   `link_positions[i].start.offset`, both counted in UTF-16 code units from the start of the
 *   note. Matched links are then compared field by field: kind (link or embed), target,
 *   the link's whole text, and the display text where vaultlink has one.
 * - Property links by key and target. Obsidian's `FrontmatterLinkCache.key` is typed only as
 *   `string`; in practice it is the property name for a plain value and the name and list
 *   index joined with "." for a list item (`related.0`), so vaultlink's `key_path` is joined
 *   the same way.
 *
 * What "target" means on each side. Obsidian's `Reference.link` is documented only as "Link
 * destination". In practice (the typings do not say) it is, for a wikilink, the text between
 * the brackets before any `|` (`Note#Heading`), and for a Markdown link the destination
 * percent-decoded and without angle brackets (`[x](My%20Note.md)` gives `My Note.md`; other
 * readings give `My Note`, without the `.md`, which core's `LinkCache.link` field follows).
 * vaultlink's `target` is the destination as written, `path` plus `subpath` its decoded form,
 * and `link_fields[i].link` plus `subpath` the form without `.md`; a Markdown link agrees if
 * Obsidian's `link` equals any of them, since all name the same file and an encoding is not a
 * parsing difference.
 *
 * Links of the forms that need a rule of their own (core's `LinkForm`: relative wikilinks,
 * links in JSON frontmatter, links in block scalars) are also counted by form, so a vault
 * that uses them shows how far the two readings agree on each.
 */

import type { CachedMetadata, FrontmatterLinkCache, ReferenceCache } from "obsidian";
import { LINK_FORMS, type LinkForm, type NoteLocation, type ParsedLink, type ParsedNote } from "../wasm";

/** The parts of Obsidian's cached metadata that hold links. */
export type ObsidianLinks = Pick<CachedMetadata, "links" | "embeds" | "frontmatterLinks">;

/** Where a link is written: in the body (where it starts) or in a property (under which key). */
export type LinkLocation = { source: "body"; start: NoteLocation } | { source: "property"; key: string };

/** A link as one side read it. */
export interface LinkView {
	/** The link's whole text as written: `[[Note|alias]]`, `![](image.png)`. */
	original: string;
	/** What the link points to, as that side gives it (see the module comment). */
	target: string;
}

/** A field the two sides can read differently for the same link. */
export type ComparedField = "kind" | "target" | "original" | "display";

export type Disagreement =
	| { presence: "only-vaultlink"; location: LinkLocation; link: LinkView }
	| { presence: "only-obsidian"; location: LinkLocation; link: LinkView }
	| {
			presence: "both";
			location: LinkLocation;
			field: ComparedField;
			/** The link's text as vaultlink read it, to name the link in the report. */
			original: string;
			vaultlink: string;
			obsidian: string;
	  };

/** Differences that are by design, documented in `INTENDED_DIFFERENCES`. */
export type IntendedReason = "property-markdown-link" | "external-url";

/** Why each intended difference is one; the modal and the console report show these. */
export const INTENDED_DIFFERENCES: Record<IntendedReason, string> = {
	"property-markdown-link":
		"vaultlink also reads Markdown links ([text](Note.md)) inside property values; Obsidian reads only wikilinks there.",
	"external-url":
		"Obsidian's cache may list links to external URLs ([text](https://…)); vaultlink does not count them as links in the vault.",
};

export interface IntendedDifference {
	reason: IntendedReason;
	/** The side that has the link. */
	side: "vaultlink" | "obsidian";
	location: LinkLocation;
	link: LinkView;
}

/** Of the links of one form (core's `LinkForm`), how many both sides read alike and how many not. */
export interface FormCount {
	agreeing: number;
	disagreeing: number;
}

export type FormCounts = Record<LinkForm, FormCount>;

export function emptyFormCounts(): FormCounts {
	return Object.fromEntries(LINK_FORMS.map((form) => [form, { agreeing: 0, disagreeing: 0 }])) as FormCounts;
}

/** The comparison of one note. */
export interface NoteComparison {
	path: string;
	/** Links both sides read alike. */
	agreeing: number;
	/**
	 * The same, by the forms of vaultlink's links that need a rule of their own (relative
	 * wikilinks, JSON frontmatter, block scalars): a link of a form that only Obsidian read is
	 * not counted, since only core names a link's forms.
	 */
	forms: FormCounts;
	disagreements: Disagreement[];
	intended: IntendedDifference[];
	/** vaultlink stopped at its links-per-note limit, so it is missing links by design. */
	truncated: boolean;
}

/** A link core read, with where it is in Obsidian's units. */
interface VaultlinkEntry {
	link: ParsedLink;
	start: NoteLocation;
	original: string;
	/** Core's `LinkCache.link` for the link (decoded, without the subpath). */
	linkText: string;
	forms: LinkForm[];
}

/** A body link Obsidian cached, and which list it came from. */
interface ObsidianBodyEntry {
	reference: ReferenceCache;
	embed: boolean;
}

/**
 * Compares one note: `text` is what was parsed, `parsed` core's parse of it, `cache` Obsidian's
 * metadata for the same note.
 */
export function compareNote(path: string, text: string, parsed: ParsedNote, cache: ObsidianLinks): NoteComparison {
	const entries = parsed.links.map((link, index): VaultlinkEntry => {
		const position = parsed.link_positions[index];
		const fields = parsed.link_fields[index];
		if (position === undefined || fields === undefined || parsed.link_positions.length !== parsed.links.length || parsed.link_fields.length !== parsed.links.length) {
			throw new Error(
				`vaultlink's parse of ${path} has ${parsed.links.length} links but ${parsed.link_positions.length} positions and ${parsed.link_fields.length} field sets; the wasm module and the plugin disagree on parseNote's shape`,
			);
		}
		return { link, start: position.start, original: text.slice(position.start.offset, position.end.offset), linkText: fields.link, forms: fields.forms };
	});
	const comparison: NoteComparison = { path, agreeing: 0, forms: emptyFormCounts(), disagreements: [], intended: [], truncated: parsed.truncated };
	compareProperties(
		entries.filter((entry) => entry.link.source === "property"),
		cache.frontmatterLinks ?? [],
		comparison,
	);
	compareBody(
		entries.filter((entry) => entry.link.source === "body"),
		[
			...(cache.links ?? []).map((reference) => ({ reference, embed: false })),
			...(cache.embeds ?? []).map((reference) => ({ reference, embed: true })),
		],
		comparison,
	);
	return comparison;
}

function compareBody(ours: VaultlinkEntry[], theirs: ObsidianBodyEntry[], comparison: NoteComparison): void {
	const oursByOffset = new Map<number, VaultlinkEntry[]>();
	for (const entry of ours) {
		const atOffset = oursByOffset.get(entry.start.offset) ?? [];
		atOffset.push(entry);
		oursByOffset.set(entry.start.offset, atOffset);
	}
	const found: { location: LinkLocation; disagreements: Disagreement[]; intended: IntendedDifference[] }[] = [];
	const sortedTheirs = [...theirs].sort((a, b) => a.reference.position.start.offset - b.reference.position.start.offset);
	for (const { reference, embed } of sortedTheirs) {
		const location: LinkLocation = { source: "body", start: reference.position.start };
		const candidates = oursByOffset.get(reference.position.start.offset) ?? [];
		// Two links cannot start at one offset, so a candidate of the other kind is the same link
		// read as the other kind, which compareMatched reports.
		const index = Math.max(
			0,
			candidates.findIndex((entry) => isEmbed(entry.link) === embed),
		);
		const match = candidates[index];
		if (match !== undefined) {
			candidates.splice(index, 1);
			const disagreements = compareMatched(match, reference, embed, location);
			countAgreement(comparison, match, disagreements.length === 0);
			found.push({ location, disagreements, intended: [] });
		} else if (isExternal(reference)) {
			const intended: IntendedDifference = { reason: "external-url", side: "obsidian", location, link: viewOfObsidian(reference) };
			found.push({ location, disagreements: [], intended: [intended] });
		} else {
			found.push({ location, disagreements: [{ presence: "only-obsidian", location, link: viewOfObsidian(reference) }], intended: [] });
		}
	}
	for (const entry of [...oursByOffset.values()].flat()) {
		countAgreement(comparison, entry, false);
		const location: LinkLocation = { source: "body", start: entry.start };
		found.push({ location, disagreements: [{ presence: "only-vaultlink", location, link: viewOfVaultlink(entry) }], intended: [] });
	}
	found.sort((a, b) => startOffset(a.location) - startOffset(b.location));
	for (const item of found) {
		comparison.disagreements.push(...item.disagreements);
		comparison.intended.push(...item.intended);
	}
}

function compareProperties(ours: VaultlinkEntry[], theirs: FrontmatterLinkCache[], comparison: NoteComparison): void {
	const remaining = [...ours];
	const unmatched: FrontmatterLinkCache[] = [];
	// First the links both sides read under the same key with the same target.
	for (const reference of theirs) {
		const index = remaining.findIndex((entry) => propertyKey(entry.link) === reference.key && targetsOf(entry).includes(reference.link));
		const match = remaining[index];
		if (match === undefined) {
			unmatched.push(reference);
			continue;
		}
		remaining.splice(index, 1);
		const location: LinkLocation = { source: "property", key: reference.key };
		const disagreements = compareFields(match, reference, location);
		countAgreement(comparison, match, disagreements.length === 0);
		comparison.disagreements.push(...disagreements);
	}
	// Then the Markdown links only vaultlink reads in properties: set aside before pairing the
	// rest, so one is never paired with a wikilink Obsidian read under the same key.
	const notIntended: VaultlinkEntry[] = [];
	for (const entry of remaining) {
		if (isMarkdown(entry.link)) {
			const location: LinkLocation = { source: "property", key: propertyKey(entry.link) };
			comparison.intended.push({ reason: "property-markdown-link", side: "vaultlink", location, link: viewOfVaultlink(entry) });
		} else {
			notIntended.push(entry);
		}
	}
	// A link each side still has under one key is the same link read with different targets.
	for (const reference of unmatched) {
		const location: LinkLocation = { source: "property", key: reference.key };
		const index = notIntended.findIndex((entry) => propertyKey(entry.link) === reference.key);
		const match = notIntended[index];
		if (match !== undefined) {
			notIntended.splice(index, 1);
			countAgreement(comparison, match, false);
			// Its other fields follow from the target, so the target is the one difference named.
			comparison.disagreements.push({
				presence: "both",
				location,
				field: "target",
				original: match.original,
				vaultlink: targetOf(match.link),
				obsidian: reference.link,
			});
		} else if (isExternal(reference)) {
			comparison.intended.push({ reason: "external-url", side: "obsidian", location, link: viewOfObsidian(reference) });
		} else {
			comparison.disagreements.push({ presence: "only-obsidian", location, link: viewOfObsidian(reference) });
		}
	}
	for (const entry of notIntended) {
		countAgreement(comparison, entry, false);
		const location: LinkLocation = { source: "property", key: propertyKey(entry.link) };
		comparison.disagreements.push({ presence: "only-vaultlink", location, link: viewOfVaultlink(entry) });
	}
}

/** Counts one of vaultlink's links as read alike or not, in all and under each of its forms. */
function countAgreement(comparison: NoteComparison, entry: VaultlinkEntry, agrees: boolean): void {
	if (agrees) comparison.agreeing += 1;
	for (const form of entry.forms) comparison.forms[form][agrees ? "agreeing" : "disagreeing"] += 1;
}

/** The differences between a body link both sides found at one place. */
function compareMatched(ours: VaultlinkEntry, theirs: ReferenceCache, theirsIsEmbed: boolean, location: LinkLocation): Disagreement[] {
	const disagreements: Disagreement[] = [];
	if (isEmbed(ours.link) !== theirsIsEmbed) {
		disagreements.push({
			presence: "both",
			location,
			field: "kind",
			original: ours.original,
			vaultlink: isEmbed(ours.link) ? "embed" : "link",
			obsidian: theirsIsEmbed ? "embed" : "link",
		});
	}
	return [...disagreements, ...compareFields(ours, theirs, location)];
}

/** Target, whole text and display text of a link both sides have. */
function compareFields(ours: VaultlinkEntry, theirs: FrontmatterLinkCache | ReferenceCache, location: LinkLocation): Disagreement[] {
	const disagreements: Disagreement[] = [];
	const differ = (field: ComparedField, vaultlink: string, obsidian: string) =>
		disagreements.push({ presence: "both", location, field, original: ours.original, vaultlink, obsidian });
	if (!targetsOf(ours).includes(theirs.link)) differ("target", targetOf(ours.link), theirs.link);
	// `original` is "not available on Publish"; compare it where Obsidian gives it.
	if (typeof theirs.original === "string" && theirs.original !== ours.original) differ("original", ours.original, theirs.original);
	// Obsidian fills in a display text for links without one (the target, for a wikilink), so
	// only an explicit one on vaultlink's side says anything.
	if (ours.link.display !== null && theirs.displayText !== undefined && ours.link.display !== theirs.displayText) {
		differ("display", ours.link.display, theirs.displayText);
	}
	return disagreements;
}

function isEmbed(link: ParsedLink): boolean {
	return link.kind === "embed" || link.kind === "markdown_embed";
}

export function isMarkdown(link: ParsedLink): boolean {
	return link.kind === "markdown" || link.kind === "markdown_embed";
}

/**
 * The target forms of vaultlink's link that agree with Obsidian's `link`, the one to report
 * first: a Markdown link's decoded destination, then as written, then without its `.md` (core's
 * `LinkCache.link`, see `link_fields`); a wikilink's as written.
 */
function targetsOf(entry: VaultlinkEntry): string[] {
	const link = entry.link;
	return [...new Set([targetOf(link), link.target, entry.linkText + (link.subpath ?? "")])];
}

/** The target to report: a Markdown link's decoded destination, a wikilink's as written. */
function targetOf(link: ParsedLink): string {
	return isMarkdown(link) ? link.path + (link.subpath ?? "") : link.target;
}

/** A property link's key as Obsidian writes it: the key path joined with ".". */
export function propertyKey(link: ParsedLink): string {
	return link.source === "property" ? link.key_path.join(".") : "";
}

/**
 * A URL scheme of two or more letters, so a Windows drive (`C:`) is not one. Only links that
 * are not wikilinks are checked: `[[Meeting: notes]]` names a note.
 */
const URL_SCHEME = /^[a-z][a-z0-9+.-]+:/i;

function isExternal(reference: FrontmatterLinkCache | ReferenceCache): boolean {
	const original = typeof reference.original === "string" ? reference.original : "";
	const wikilink = original.startsWith("[[") || original.startsWith("![[");
	return !wikilink && URL_SCHEME.test(reference.link);
}

function viewOfVaultlink(entry: VaultlinkEntry): LinkView {
	return { original: entry.original, target: targetOf(entry.link) };
}

function viewOfObsidian(reference: FrontmatterLinkCache | ReferenceCache): LinkView {
	return { original: typeof reference.original === "string" ? reference.original : reference.link, target: reference.link };
}

function startOffset(location: LinkLocation): number {
	return location.source === "body" ? location.start.offset : -1;
}

// ---------------------------------------------------------------------------------------------
// Words for people: shared by the modal and the console report.

/** `line 3, column 5` (1-based, as an editor shows them) or `property "related.0"`. */
export function describeLocation(location: LinkLocation): string {
	return location.source === "body"
		? `line ${location.start.line + 1}, column ${location.start.col + 1}`
		: `property ${JSON.stringify(location.key)}`;
}

/** One line for a disagreement, without the note's path. */
export function describeDisagreement(disagreement: Disagreement): string {
	const where = describeLocation(disagreement.location);
	switch (disagreement.presence) {
		case "only-vaultlink":
			return `only vaultlink: ${disagreement.link.original} (${where}), target ${JSON.stringify(disagreement.link.target)}`;
		case "only-obsidian":
			return `only Obsidian: ${disagreement.link.original} (${where}), target ${JSON.stringify(disagreement.link.target)}`;
		case "both":
			return `both, different ${disagreement.field}: ${disagreement.original} (${where}): vaultlink ${JSON.stringify(disagreement.vaultlink)}, Obsidian ${JSON.stringify(disagreement.obsidian)}`;
	}
}

/** One line for an intended difference, without the note's path. */
export function describeIntended(difference: IntendedDifference): string {
	const side = difference.side === "vaultlink" ? "only vaultlink" : "only Obsidian";
	const reason = difference.reason === "property-markdown-link" ? "Markdown link in a property" : "external URL";
	return `${reason}, ${side}: ${difference.link.original} (${describeLocation(difference.location)})`;
}

/**
 * Compares which file each link of a note points to, as vaultlink's index resolves it and as
 * Obsidian's metadata cache does. Pure functions over plain data (the note's text, core's parse,
 * the index's resolutions, Obsidian's answers), so the comparison is tested without Obsidian;
 * `command.ts` gathers the data.
 *
 * Two views of Obsidian's side are compared:
 *
 * - Link by link: for each of vaultlink's links, `getFirstLinkpathDest(linkpath, note)`, the
 *   file Obsidian picks for the link's path, against the index's `resolved_path` (or none).
 *   The linkpath asked for is core's `path` of the link, trimmed: the target without its
 *   `#subpath`, percent-decoded for a Markdown link, as Obsidian's `getLinkpath` gives it from
 *   the link text in its cache.
 * - Counts per destination: `resolvedLinks[note]` (destination path -> number of links) and
 *   `unresolvedLinks[note]` (link text -> number of links) against the same counts over the
 *   index's links. This catches what the link-by-link view cannot: links Obsidian resolves
 *   that vaultlink does not read at all, and the reverse. The intended parsing differences
 *   (`INTENDED_DIFFERENCES`) are left out of the counts, since the parsing report lists each
 *   of them already: vaultlink's Markdown links in properties, and external URLs Obsidian may
 *   hold as unresolved links.
 *
 * When several files match a link, core picks one and calls the link ambiguous: a file under the
 * linking note's folder (its subfolders included) first, then the shortest path (in UTF-8
 * bytes), then the lexicographically first. Obsidian documents no rule, so every ambiguous link is listed with
 * the file each side picked and which step of core's rule decided.
 */

import { decidedBy, type ParsedLink, type ParsedNote, type OutgoingLinks, type ResolutionStatus } from "../wasm";
import { describeLocation, emptyFormCounts, isMarkdown, propertyKey, type FormCounts, type LinkLocation } from "./compare";

/** What Obsidian's metadata cache says about where one note's links point. */
export interface ObsidianResolution {
	/** `metadataCache.resolvedLinks[note]`: each file the note links to, with how many links. */
	resolvedLinks: Readonly<Record<string, number>>;
	/** `metadataCache.unresolvedLinks[note]`: each link text naming no file, with how many links. */
	unresolvedLinks: Readonly<Record<string, number>>;
	/**
	 * `getFirstLinkpathDest(linkpath, note)?.path ?? null` for every linkpath of
	 * `linkpathsOf(parsed)`. A Map, since linkpaths are user text (`constructor` is one).
	 */
	firstLinkpathDest: ReadonlyMap<string, string | null>;
}

/** A link both sides resolve to different files (or one side to none). */
export interface LinkResolutionDisagreement {
	location: LinkLocation;
	/** The link's whole text as written. */
	original: string;
	/** The linkpath Obsidian was asked about. */
	linkpath: string;
	/** vaultlink's status for the link. */
	status: ResolutionStatus;
	/** The file vaultlink resolves the link to, or null. */
	vaultlink: string | null;
	/** The file `getFirstLinkpathDest` gives, or null. */
	obsidian: string | null;
}

/** A destination (a file, or an unresolved link text) the two sides count differently. */
export interface CountDisagreement {
	/** `resolved`: `destination` is a file path; `unresolved`: it is a link text. */
	kind: "resolved" | "unresolved";
	destination: string;
	vaultlink: number;
	obsidian: number;
}

/** Which step of core's rule picked the file of an ambiguous link. */
export type AmbiguityDecision = "linking-folder" | "shortest-path" | "lexicographic";

/** A link several files match, with the file each side picked. */
export interface AmbiguousLink {
	location: LinkLocation;
	original: string;
	linkpath: string;
	/** Every file that matches, as core lists them (sorted). */
	candidates: string[];
	/** The file core picked. */
	vaultlink: string;
	/** The file `getFirstLinkpathDest` gives, or null. */
	obsidian: string | null;
	decidedBy: AmbiguityDecision;
}

/** The resolution comparison of one note. */
export interface NoteResolution {
	path: string;
	/** Links both sides resolve to the same file, or both to none. */
	agreeing: number;
	/** The same, by the forms of the links (relative wikilinks, JSON frontmatter, block scalars). */
	forms: FormCounts;
	links: LinkResolutionDisagreement[];
	counts: CountDisagreement[];
	/** Every ambiguous link, whether or not the two sides picked alike. */
	ambiguous: AmbiguousLink[];
	/**
	 * False when vaultlink stopped at its links-per-note limit: it is missing links by design,
	 * so the counts were not compared.
	 */
	countsCompared: boolean;
}

/** The linkpath Obsidian is asked about for `link`; see the module comment. */
export function linkpathOf(link: ParsedLink): string {
	return link.path.trim();
}

/** Every linkpath of the note's links, each once, in the order first written. */
export function linkpathsOf(parsed: ParsedNote): string[] {
	return [...new Set(parsed.links.map(linkpathOf))];
}

/**
 * Compares one note: `text` is what was parsed, `parsed` core's parse of it, `outgoing` the
 * index's links of the same note (in the same order), `obsidian` what Obsidian answers.
 *
 * Throws when `outgoing` does not line up with `parsed` (the index holds another version of
 * the note) or when `obsidian` has no answer for one of the note's linkpaths.
 */
export function compareResolution(
	path: string,
	text: string,
	parsed: ParsedNote,
	outgoing: OutgoingLinks,
	obsidian: ObsidianResolution,
): NoteResolution {
	checkAlignment(path, parsed, outgoing);
	const comparison: NoteResolution = {
		path,
		agreeing: 0,
		forms: emptyFormCounts(),
		links: [],
		counts: [],
		ambiguous: [],
		countsCompared: !outgoing.truncated,
	};
	const ourResolved = new Map<string, number>();
	const ourUnresolved = new Map<string, number>();
	parsed.links.forEach((link, index) => {
		const resolved = outgoing.links[index];
		const position = parsed.link_positions[index];
		if (resolved === undefined || position === undefined) throw new Error("checkAlignment lets no link through without its resolution and position");
		const location: LinkLocation =
			link.source === "body" ? { source: "body", start: position.start } : { source: "property", key: propertyKey(link) };
		const original = text.slice(position.start.offset, position.end.offset);
		const linkpath = linkpathOf(link);
		if (!obsidian.firstLinkpathDest.has(linkpath)) {
			throw new Error(`Obsidian's answer for the linkpath ${JSON.stringify(linkpath)} of ${path} is missing; the caller asks for every linkpath of linkpathsOf()`);
		}
		const theirs = obsidian.firstLinkpathDest.get(linkpath) ?? null;
		const ours = resolved.resolved_path ?? null;
		if (ours === theirs) comparison.agreeing += 1;
		else comparison.links.push({ location, original, linkpath, status: resolved.status, vaultlink: ours, obsidian: theirs });
		for (const form of parsed.link_fields[index]?.forms ?? []) comparison.forms[form][ours === theirs ? "agreeing" : "disagreeing"] += 1;
		if (resolved.status === "ambiguous" && ours !== null) {
			const candidates = resolved.candidates ?? [];
			comparison.ambiguous.push({
				location,
				original,
				linkpath,
				candidates,
				vaultlink: ours,
				obsidian: theirs,
				decidedBy: decidedBy(path, candidates),
			});
		}
		// Obsidian reads no Markdown links in properties: an intended difference, not counted.
		if (link.source === "property" && isMarkdown(link)) return;
		if (ours !== null) increment(ourResolved, ours);
		else increment(ourUnresolved, linkpath);
	});
	if (comparison.countsCompared) {
		comparison.counts.push(
			...compareCounts("resolved", ourResolved, obsidian.resolvedLinks, () => false),
			...compareCounts("unresolved", ourUnresolved, obsidian.unresolvedLinks, isExternalLinkText),
		);
	}
	return comparison;
}

/** Refuses index links that are not the parse's links one for one. */
function checkAlignment(path: string, parsed: ParsedNote, outgoing: OutgoingLinks): void {
	const lineUp =
		outgoing.links.length === parsed.links.length &&
		parsed.link_positions.length === parsed.links.length &&
		parsed.links.every((link, index) => {
			const resolved = outgoing.links[index];
			return (
				resolved !== undefined &&
				resolved.target === link.target &&
				(resolved.span === undefined || (resolved.span.start === link.span.start && resolved.span.end === link.span.end))
			);
		});
	if (!lineUp) {
		throw new Error(
			`the index holds another version of ${path} than the text compared (${outgoing.links.length} links against ${parsed.links.length}); was it edited while comparing?`,
		);
	}
}

function increment(counts: Map<string, number>, key: string): void {
	counts.set(key, (counts.get(key) ?? 0) + 1);
}

/**
 * The destinations counted differently, sorted. `skipTheirs` names destinations only Obsidian
 * has that are intended differences.
 */
function compareCounts(
	kind: CountDisagreement["kind"],
	ours: Map<string, number>,
	theirs: Readonly<Record<string, number>>,
	skipTheirs: (destination: string) => boolean,
): CountDisagreement[] {
	const theirCounts = new Map(Object.entries(theirs));
	const destinations = [...new Set([...ours.keys(), ...theirCounts.keys()])].sort(byCodeUnits);
	const disagreements: CountDisagreement[] = [];
	for (const destination of destinations) {
		const vaultlink = ours.get(destination) ?? 0;
		const obsidian = theirCounts.get(destination) ?? 0;
		if (vaultlink === obsidian) continue;
		if (vaultlink === 0 && skipTheirs(destination)) continue;
		disagreements.push({ kind, destination, vaultlink, obsidian });
	}
	return disagreements;
}

/**
 * An unresolved link text that is an external URL (`https://…`, `mailto:…`): a scheme and no
 * space, so `Meeting: notes` is a note's name. Only used for texts vaultlink has no link to.
 */
const EXTERNAL_LINK_TEXT = /^[a-z][a-z0-9+.-]+:\S*$/i;

function isExternalLinkText(destination: string): boolean {
	return EXTERNAL_LINK_TEXT.test(destination);
}

function byCodeUnits(a: string, b: string): number {
	return a < b ? -1 : a > b ? 1 : 0;
}

// ---------------------------------------------------------------------------------------------
// Words for people: shared by the modal and the console report.

/** Candidates named in a report line; the rest are counted. */
const CANDIDATES_NAMED = 5;

function fileOrNone(path: string | null): string {
	return path === null ? "none" : JSON.stringify(path);
}

/** One line for a link the two sides resolve differently, without the note's path. */
export function describeLinkResolution(disagreement: LinkResolutionDisagreement): string {
	return `${disagreement.original} (${describeLocation(disagreement.location)}): vaultlink ${fileOrNone(disagreement.vaultlink)} (${disagreement.status}), Obsidian ${fileOrNone(disagreement.obsidian)}`;
}

/** One line for a destination counted differently, without the note's path. */
export function describeCount(disagreement: CountDisagreement): string {
	const what = disagreement.kind === "resolved" ? "links to" : "unresolved links";
	return `${what} ${JSON.stringify(disagreement.destination)}: vaultlink ${disagreement.vaultlink}, Obsidian ${disagreement.obsidian}`;
}

const DECISIONS: Record<AmbiguityDecision, string> = {
	"linking-folder": "the linking note's folder",
	"shortest-path": "shortest path",
	lexicographic: "lexicographic order",
};

/** One line for an ambiguous link, without the note's path. */
export function describeAmbiguous(link: AmbiguousLink): string {
	const named = link.candidates.slice(0, CANDIDATES_NAMED).join(", ");
	const more = link.candidates.length > CANDIDATES_NAMED ? `, ${link.candidates.length - CANDIDATES_NAMED} more` : "";
	const verdict = link.vaultlink === link.obsidian ? "same pick" : "different picks";
	return `${link.original} (${describeLocation(link.location)}), ${link.candidates.length} candidates (${named}${more}): vaultlink ${JSON.stringify(link.vaultlink)} (by ${DECISIONS[link.decidedBy]}), Obsidian ${fileOrNone(link.obsidian)}: ${verdict}`;
}

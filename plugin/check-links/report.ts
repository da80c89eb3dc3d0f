/**
 * The current note's links as "Check links of the current note" shows them: the ones that need
 * attention first (unresolved, then ambiguous, then those whose heading or block is missing),
 * then the rest in the order written, and how many links point to the note. Pure over core's
 * answers, so it is tested alone.
 */

import type { OutgoingLink } from "../wasm";
import { count } from "../ui/lists";

/** What the modal shows: the note's links in the order to read them, and its backlinks. */
export interface LinkCheck {
	path: string;
	links: CheckedLink[];
	/** How many links in other notes (and this one) point to the note. */
	backlinks: number;
	/** True when core stopped at its limit of links for one note. */
	truncated: boolean;
}

export type LinkProblem = "unresolved" | "ambiguous" | "missing_heading" | "missing_block" | null;

export interface CheckedLink {
	link: OutgoingLink;
	problem: LinkProblem;
}

/** `OutgoingLink` as the detailed format gives it: with whether its subpath exists. */
type DetailedLink = OutgoingLink & { subpath_status?: string };

const ORDER: Record<Exclude<LinkProblem, null> | "ok", number> = { unresolved: 0, ambiguous: 1, missing_heading: 2, missing_block: 3, ok: 4 };

export function problemOf(link: DetailedLink): LinkProblem {
	if (link.status === "unresolved") return "unresolved";
	if (link.status === "ambiguous") return "ambiguous";
	if (link.subpath_status === "missing_heading") return "missing_heading";
	if (link.subpath_status === "missing_block") return "missing_block";
	return null;
}

/** Sorts the links: problems first, by kind of problem, each group in the order written. */
export function checkLinks(path: string, links: OutgoingLink[], backlinks: number, truncated: boolean): LinkCheck {
	const checked = links.map((link, position) => ({ link, problem: problemOf(link), position }));
	checked.sort((a, b) => ORDER[a.problem ?? "ok"] - ORDER[b.problem ?? "ok"] || a.position - b.position);
	return { path, links: checked.map(({ link, problem }) => ({ link, problem })), backlinks, truncated };
}

/** One sentence on the note's links: how many, how many need attention, and the backlinks. */
export function describeCheck(check: LinkCheck): string {
	const problems = check.links.filter((checked) => checked.problem !== null).length;
	const links = check.links.length === 0 ? "No links" : count(check.links.length, "link");
	const attention = check.links.length === 0 ? "" : problems === 0 ? ", all resolved" : `, ${problems} ${problems === 1 ? "needs" : "need"} attention`;
	const more = check.truncated ? " (only the first ones; the note has more than vaultlink reads in one note)" : "";
	return `${links}${attention}${more}. ${count(check.backlinks, "link")} from other notes ${check.backlinks === 1 ? "points" : "point"} here.`;
}

/** One link as listed: where, as written, and where it goes or why it goes nowhere. */
export function describeLink(checked: CheckedLink): string {
	const { link } = checked;
	// The target as written carries its `#heading` already.
	const written = link.target;
	const where = link.source === "property" ? `property ${link.key ?? "(unnamed)"}` : `line ${link.line}`;
	switch (checked.problem) {
		case "unresolved":
			return `${where}: ${written}: no file has this name or path`;
		case "ambiguous":
			return `${where}: ${written}: ${link.candidates?.length ?? "several"} files match (${(link.candidates ?? []).join(", ")}); Obsidian opens ${link.resolved_path ?? "the first"}`;
		case "missing_heading":
			return `${where}: ${written}: ${link.resolved_path ?? "the note"} has no such heading`;
		case "missing_block":
			return `${where}: ${written}: ${link.resolved_path ?? "the note"} has no such block`;
		case null:
			return `${where}: ${written} → ${link.resolved_path ?? "?"}`;
	}
}

export const PROBLEM_TITLES: Record<Exclude<LinkProblem, null>, string> = {
	unresolved: "Unresolved",
	ambiguous: "Ambiguous",
	missing_heading: "Missing heading",
	missing_block: "Missing block",
};

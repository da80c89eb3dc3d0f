/**
 * The wiki lint's report as the "Vault lint" view draws it: findings grouped by kind with their
 * counts, each subject a link to the note (at its line) where the finding is, and the checks
 * that could not run with their reasons. Pure over the report's data, so it is tested alone.
 */

import type { Health } from "../wire";

/** One finding of `lint_wiki`, as core returns it. */
export interface LintProposal {
	kind: string;
	/** The note the finding is about, or for link findings grouped by target, the target as written. */
	subject: string;
	/** 1-based line in `subject`, when the finding is at one place of a note. */
	line?: number;
	/** Other notes involved: referrers, candidates, the notes sharing a name. */
	related?: string[];
	detail?: string;
	suggested_action: string;
	tool?: string;
	tool_args?: unknown;
	evidence?: unknown;
}

/** What `lint_wiki` answers. */
export interface LintReport {
	total: number;
	counts: Record<string, number>;
	proposals: LintProposal[];
	skipped: { kind: string; reason: string }[];
	truncated?: boolean;
	next_cursor?: string;
	/** The whole vault's link health, whatever the lint's scope: compared from one lint to the next. */
	health?: LintHealth;
}

/** The vault's link health as core's `graph::Health` counts it. */
export type LintHealth = Health;

/** The counts a health line shows, in order, with their words. */
const HEALTH_COUNTS: [keyof LintHealth, string, string][] = [
	["broken_links", "broken link", "broken links"],
	["ambiguous_links", "ambiguous link", "ambiguous links"],
	["orphans", "orphan", "orphans"],
	["dead_ends", "dead end", "dead ends"],
	["island_count", "island", "islands"],
];

/**
 * The vault's link health in one sentence, and, given the health of an earlier lint, how each
 * count moved since: what lets someone see the links get better or worse over time.
 */
export function healthLine(health: LintHealth, previous: LintHealth | null = null): string {
	const number = (value: number) => value.toLocaleString("en-US");
	const counts = HEALTH_COUNTS.map(([key, one, many]) => `${number(health[key])} ${health[key] === 1 ? one : many}`);
	const line = `Link health: ${number(health.notes)} notes, ${number(health.links)} links; ${counts.join(", ")}.`;
	if (previous === null) return line;
	const moved = HEALTH_COUNTS.filter(([key]) => health[key] !== previous[key]).map(([key, , many]) => {
		const change = health[key] - previous[key];
		return `${many} ${change > 0 ? "+" : "−"}${number(Math.abs(change))}`;
	});
	return `${line} Since the last lint: ${moved.length === 0 ? "no change" : moved.join(", ")}.`;
}

/** A note to open, and the 1-based line to open it at. */
export interface LintLocation {
	path: string;
	line?: number;
}

/** Kinds whose subject is a link target as written, not a note: the place to go is a referrer. */
const GROUPED_BY_TARGET = new Set(["unresolved_link", "ambiguous_link"]);

/** Headings for the kinds core knows; another kind is shown by its code. */
const KIND_TITLES: Record<string, string> = {
	orphan: "Orphans",
	dead_end: "Dead ends",
	unresolved_link: "Unresolved links",
	ambiguous_link: "Ambiguous links",
	broken_heading: "Links to missing headings",
	broken_block_ref: "Links to missing blocks",
	unquoted_property_link: "Unquoted links in properties",
	malformed_frontmatter: "Malformed frontmatter",
	duplicate_identity: "Notes known by the same name",
	near_duplicate: "Near duplicates",
	schema: "Schema violations",
	schema_file: "Problems in SCHEMA.md",
	links_truncated: "Notes with more links than are read",
	missing_sources: "Pages citing no source",
	stale: "Pages older than a source they cite",
};

export function kindTitle(kind: string): string {
	return KIND_TITLES[kind] ?? kind;
}

/**
 * Where clicking a finding goes: its subject at its line when the subject is a note
 * (`isNote`), else the first note involved, at the line of its first link when the evidence
 * says; null when no note is involved.
 */
export function locationOf(proposal: LintProposal, isNote: (path: string) => boolean): LintLocation | null {
	if (!GROUPED_BY_TARGET.has(proposal.kind) && isNote(proposal.subject)) {
		return proposal.line === undefined ? { path: proposal.subject } : { path: proposal.subject, line: proposal.line };
	}
	const first = proposal.related?.[0];
	if (first === undefined) return null;
	const line = firstReferrerLine(proposal.evidence, first);
	return line === undefined ? { path: first } : { path: first, line };
}

/** The line of `note`'s first link in a finding's `evidence.referrers`, when it lists them. */
function firstReferrerLine(evidence: unknown, note: string): number | undefined {
	if (typeof evidence !== "object" || evidence === null) return undefined;
	const referrers: unknown = (evidence as Record<string, unknown>)["referrers"];
	if (!Array.isArray(referrers)) return undefined;
	for (const referrer of referrers as unknown[]) {
		if (typeof referrer !== "object" || referrer === null) continue;
		const { source, line } = referrer as Record<string, unknown>;
		if (source === note && typeof line === "number") return line;
	}
	return undefined;
}

/** What the view wires to each finding drawn: its element, and where it goes (null: nowhere). */
export interface RenderedFinding {
	el: HTMLElement;
	proposal: LintProposal;
	location: LintLocation | null;
}

/** What a finding's fix button does, for findings whose proposal names a tool vaultlink applies. */
export type FixFinding = (proposal: LintProposal) => void;

/** Tools a fix button runs: the ones the plugin previews and applies itself (`batch/execute.ts`). */
export const FIXING_TOOLS = new Set(["rewrite_link", "move_note"]);

/** The plugin's command that does what an MCP tool does, for the tools a person can run here. */
const COMMANDS: Record<string, string> = { move_note: "Move note safely", delete_note: "Delete note safely" };

/**
 * Core's wording of a finding, which is written for agents, made plain for a person: a name in
 * backticks is put in quotation marks, and an MCP tool's name becomes the plugin's command that
 * does the same (or goes, for a tool a person has no command for, such as `rewrite_link`, whose
 * finding has its fix button instead).
 */
export function forPeople(text: string): string {
	return text
		.replace(/ ?\(([a-z]+(?:_[a-z]+)+)\)|( with |, using | through )([a-z]+(?:_[a-z]+)+)\b/g, (whole, inParentheses: string | undefined, joiner: string | undefined, named: string | undefined) => {
			const tool = inParentheses ?? named ?? "";
			if (!TOOL_NAMES.has(tool)) return whole;
			const command = COMMANDS[tool];
			if (command === undefined) return "";
			return inParentheses !== undefined ? ` (the “${command}” command)` : `${joiner ?? " with "}the “${command}” command`;
		})
		.replace(/`([^`]*)`/g, "“$1”");
}

/** The MCP tools core's wording names. */
const TOOL_NAMES = new Set(["move_note", "rewrite_link", "delete_note", "bulk_move_notes", "update_properties", "create_page", "undo_change", "lint_wiki"]);

/**
 * Draws `report` into `container` and returns the findings drawn, in order. Clicking a
 * finding's subject calls `open` with where it is; a finding whose proposal names a tool the
 * plugin applies gets a fix button calling `fix`, when given. The vault's link health is shown
 * with how it moved since `previousHealth`, when given.
 */
export function renderLintReport(
	container: HTMLElement,
	report: LintReport,
	isNote: (path: string) => boolean,
	open: (location: LintLocation) => void,
	fix: FixFinding | null = null,
	previousHealth: LintHealth | null = null,
): RenderedFinding[] {
	container.empty();
	container.createEl("p", { cls: "vaultlink-lint-summary", text: summary(report) });
	if (report.health !== undefined) container.createEl("p", { cls: "vaultlink-lint-health", text: healthLine(report.health, previousHealth) });

	const byKind = new Map<string, LintProposal[]>();
	for (const proposal of report.proposals) {
		const list = byKind.get(proposal.kind) ?? [];
		list.push(proposal);
		byKind.set(proposal.kind, list);
	}
	const rendered: RenderedFinding[] = [];
	for (const [kind, total] of Object.entries(report.counts)) {
		const proposals = byKind.get(kind) ?? [];
		container.createEl("h3", { text: `${kindTitle(kind)} (${total})` });
		const list = container.createEl("ul", { cls: "vaultlink-lint-findings" });
		for (const proposal of proposals) {
			const item = list.createEl("li", { cls: "vaultlink-lint-finding" });
			rendered.push({ el: item, proposal, location: renderProposal(item, proposal, isNote, open, fix) });
		}
		if (total > proposals.length) container.createEl("p", { text: `${total - proposals.length} more, not listed here.` });
	}

	if (report.skipped.length > 0) {
		container.createEl("h3", { text: "Checks not run" });
		const list = container.createEl("ul");
		for (const skipped of report.skipped) list.createEl("li", { text: `${kindTitle(skipped.kind)}: ${forPeople(skipped.reason)}` });
	}
	return rendered;
}

function renderProposal(
	item: HTMLElement,
	proposal: LintProposal,
	isNote: (path: string) => boolean,
	open: (location: LintLocation) => void,
	fix: FixFinding | null,
): LintLocation | null {
	const location = locationOf(proposal, isNote);
	const name = proposal.line === undefined ? proposal.subject : `${proposal.subject}, line ${proposal.line}`;
	if (location === null) {
		item.createSpan({ cls: "vaultlink-lint-subject", text: name });
	} else {
		const where = location.line === undefined ? `Open ${location.path}` : `Open ${location.path} at line ${location.line}`;
		item.setAttr("aria-label", `${name}. ${where}`);
		const link = item.createEl("a", { cls: "vaultlink-lint-subject", text: name, attr: { title: where } });
		link.onClickEvent(() => open(location));
	}
	if (proposal.detail !== undefined) item.createDiv({ cls: "vaultlink-lint-detail", text: forPeople(proposal.detail) });
	if (proposal.related !== undefined && proposal.related.length > 0) {
		item.createDiv({ cls: "vaultlink-lint-related", text: `Involves: ${proposal.related.join(", ")}` });
	}
	const tool = proposal.tool;
	const fixable = fix !== null && tool !== undefined && FIXING_TOOLS.has(tool) && proposal.tool_args !== undefined;
	const command = tool === undefined || fixable ? undefined : COMMANDS[tool];
	const action = forPeople(proposal.suggested_action);
	const how = command === undefined || action.includes(`“${command}”`) ? "" : ` The “${command}” command does it.`;
	item.createDiv({ cls: "vaultlink-lint-action", text: `${action}${how}` });
	if (fixable) {
		const button = item.createEl("button", { cls: "vaultlink-lint-fix", text: tool === "move_note" ? "Preview the move" : "Preview the fix" });
		button.onClickEvent(() => fix(proposal));
	}
	return location;
}

function summary(report: LintReport): string {
	const found = report.total === 0 ? "No findings." : `${report.total} ${report.total === 1 ? "finding" : "findings"}.`;
	const more = report.next_cursor !== undefined || report.truncated === true ? " Only the first ones are listed." : "";
	return `${found}${more}`;
}

/**
 * The "Show the link graph's health" command: the vault's link health in counts and ratios,
 * the notes most linked to (and which of them hold parts of the vault together), and the
 * largest islands, from core's `link_graph` on the plugin's index. A hub opens on a click.
 */

import { Modal, Notice, Plugin, type App } from "obsidian";
import type { LinkEngine } from "../engine/client";
import { messageOf, ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";
import type { Health } from "../wire";

/** Stable: users bind hotkeys to it. */
export const LINK_GRAPH_COMMAND_ID = "show-link-graph-health";

/** How many hubs and islands the window lists; the counts stay exact. */
export const LISTED = 10;

interface Hub {
	path: string;
	in_degree: number;
	out_degree: number;
	cut_point: boolean;
}

export interface LinkGraphReport {
	health: Health;
	hubs: Hub[];
	cutPoints: number;
	islands: number[];
}

export function registerLinkGraphCommand(plugin: Plugin, settledIndex: () => Promise<LinkEngine | null>): void {
	plugin.addCommand({
		id: LINK_GRAPH_COMMAND_ID,
		name: "Show the link graph's health",
		callback: () => {
			void showLinkGraph(plugin.app, settledIndex).catch((error: unknown) => {
				console.error("vaultlink: could not read the link graph", error);
				new Notice(`vaultlink: could not read the link graph: ${messageOf(error)}`, ERROR_NOTICE_MS);
			});
		},
	});
}

/** Reads the report from the index and opens the window, or says why it cannot. */
export async function showLinkGraph(app: App, settledIndex: () => Promise<LinkEngine | null>): Promise<void> {
	const index = await settledIndex();
	if (index === null) {
		noticeIndexNotLoaded();
		return;
	}
	const report = await linkGraphReport(index);
	if (typeof report === "string") {
		new Notice(`vaultlink: ${report}`, ERROR_NOTICE_MS);
		return;
	}
	new LinkGraphModal(app, report, (path) => void app.workspace.openLinkText(path, "", false)).open();
}

/** The report, or a sentence saying why there is none. */
export async function linkGraphReport(index: LinkEngine): Promise<LinkGraphReport | string> {
	const health = await index.call("link_graph", { question: "health" });
	const hubs = await index.call("link_graph", { question: "hubs", limit: LISTED });
	const islands = await index.call("link_graph", { question: "islands", limit: LISTED, response_format: "concise" });
	for (const answer of [health, hubs, islands]) {
		if (!answer.ok) return `could not read the link graph: ${answer.error.message}. ${answer.error.hint}`;
	}
	const hubsAnswer = (hubs as { result: { hubs: Hub[]; cut_points: number } }).result;
	return {
		health: (health as { result: Health }).result,
		hubs: hubsAnswer.hubs,
		cutPoints: hubsAnswer.cut_points,
		islands: (islands as { result: { islands: { size: number }[] } }).result.islands.map((island) => island.size),
	};
}

function percent(ratio: number): string {
	return `${(ratio * 100).toFixed(1)}%`;
}

/** The health as lines of text, the window's first part. */
export function describeHealth(health: Health): string[] {
	return [
		`${health.notes} notes, ${health.links} links.`,
		`Broken links: ${health.broken_links} (${percent(health.broken_ratio)} of links). Ambiguous links: ${health.ambiguous_links} (${percent(health.ambiguous_ratio)}).`,
		`Orphans: ${health.orphans} (${percent(health.orphan_ratio)} of notes). Dead ends: ${health.dead_ends} (${percent(health.dead_end_ratio)}).`,
		`Islands: ${health.island_count}; the largest holds ${health.largest_island} notes (${percent(health.largest_island_share)}); ${health.isolated_notes} notes have no link to or from another note.`,
	];
}

export class LinkGraphModal extends Modal {
	private readonly report: LinkGraphReport;
	private readonly openNote: (path: string) => void;

	constructor(app: App, report: LinkGraphReport, openNote: (path: string) => void) {
		super(app);
		this.report = report;
		this.openNote = openNote;
	}

	override onOpen(): void {
		this.setTitle("Link graph health");
		const { contentEl } = this;
		for (const line of describeHealth(this.report.health)) contentEl.createEl("p", { text: line });
		contentEl.createEl("h3", { text: "Most linked notes" });
		contentEl.createEl("p", { text: `${this.report.cutPoints} notes are cut points: some notes connect only through them.` });
		const hubs = contentEl.createEl("ul", { cls: "vaultlink-links" });
		for (const hub of this.report.hubs) {
			const item = hubs.createEl("li", { cls: "vaultlink-link" });
			item.createSpan({ text: `${hub.path}: ${hub.in_degree} in, ${hub.out_degree} out${hub.cut_point ? ", cut point" : ""}` });
			item.onClickEvent(() => {
				this.close();
				this.openNote(hub.path);
			});
		}
		contentEl.createEl("h3", { text: "Largest islands" });
		contentEl.createEl("p", { text: this.report.islands.map((size) => `${size} ${size === 1 ? "note" : "notes"}`).join(", ") });
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}

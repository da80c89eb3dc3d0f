//! The wiki lint inside Obsidian: the "Lint the vault" command opens (or refreshes) the "Vault
//! lint" view, and the status bar counts the unresolved links. Core does the work
//! (`lint_wiki`, `find_unresolved_links`) on the plugin's index.

import { Plugin, type Workspace } from "obsidian";
import { callTool, type Vault as LinkIndex } from "../wasm";
import type { LintReport } from "./report";
import { UnresolvedLinksStatus } from "./status";
import { LINT_VIEW_TYPE, LintView, type LintRun } from "./view";

/** Stable: users bind hotkeys to it. */
export const LINT_COMMAND_ID = "lint-vault";

/** Findings one run lists; the counts per kind stay exact beyond it. */
export const LINT_LIMIT = 1000;

/** The link index once it is current, or null when the plugin is unloaded. */
export type IndexProvider = () => Promise<LinkIndex | null>;

export class VaultLint {
	/** What the command (or a click on the status bar) started last, for callers that wait on it. */
	opening: Promise<LintView | null> | null = null;
	readonly status: UnresolvedLinksStatus;
	private readonly workspace: Workspace;
	private readonly settledIndex: IndexProvider;

	/**
	 * `settledIndex` is the index with every vault event applied, for the lint; `idleIndex` the
	 * index once the indexer is idle on its own time, for the status bar's count.
	 */
	constructor(plugin: Plugin, settledIndex: IndexProvider, idleIndex: IndexProvider) {
		this.workspace = plugin.app.workspace;
		this.settledIndex = settledIndex;
		plugin.registerView(LINT_VIEW_TYPE, (leaf) => new LintView(leaf, () => this.run()));
		plugin.addCommand({
			id: LINT_COMMAND_ID,
			name: "Lint the vault",
			callback: () => {
				this.opening = this.open();
			},
		});
		this.status = new UnresolvedLinksStatus(plugin, () => countUnresolved(idleIndex), () => {
			this.opening = this.open();
		});
		void this.status.refresh();
	}

	/** Opens the view in the right sidebar, or lints again in the one already open, and shows it. */
	async open(): Promise<LintView | null> {
		let leaf = this.workspace.getLeavesOfType(LINT_VIEW_TYPE)[0] ?? null;
		const opened = leaf === null;
		if (leaf === null) {
			leaf = this.workspace.getRightLeaf(false);
			if (leaf === null) return null;
			await leaf.setViewState({ type: LINT_VIEW_TYPE, active: true });
		}
		await this.workspace.revealLeaf(leaf);
		const view = leaf.view;
		if (!(view instanceof LintView)) return null;
		// A view just opened is linting already (`onOpen`); one left open lints again.
		await (opened ? view.running : view.refresh());
		return view;
	}

	private async run(): Promise<LintRun> {
		const index = await this.settledIndex();
		if (index === null) return { ok: false, message: "The link index is not loaded; enable the plugin again and retry." };
		const outcome = callTool(index, "lint_wiki", { limit: LINT_LIMIT });
		if (!outcome.ok) return { ok: false, message: `The lint failed: ${outcome.error.message}. ${outcome.error.hint}` };
		return { ok: true, report: outcome.result as LintReport, isNote: (path) => index.findNote(path) === path };
	}
}

/** How many missing targets the index's links name, or null when unloaded. */
async function countUnresolved(index: IndexProvider): Promise<number | null> {
	const ready = await index();
	if (ready === null) return null;
	const outcome = callTool(ready, "find_unresolved_links", { limit: 1 });
	if (!outcome.ok) throw new Error(`${outcome.error.message}. ${outcome.error.hint}`);
	return (outcome.result as { total_targets: number }).total_targets;
}

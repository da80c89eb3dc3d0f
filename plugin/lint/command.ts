/**
 * The wiki lint inside Obsidian: the "Lint the vault" command opens (or refreshes) the "Vault
 * lint" view, and the status bar counts the unresolved links. Core does the work
 * (`lint_wiki`, `find_unresolved_links`) on the plugin's index, with the kinds and excluded
 * folders of the plugin's settings. A finding's fix is previewed (a dry run of its tool) and
 * applied only once confirmed, through the same tool host an agent's calls go through.
 */

import { Notice, Plugin, type App, type Workspace } from "obsidian";
import { renderRewritePreview } from "../audit/modal";
import { PreviewConfirmModal, renderMovePreview } from "../move/modals";
import type { HostProvider } from "../move/command";
import { enabledLintKinds, type VaultlinkSettings } from "../settings/settings";
import { cachedTextOrNull, eachAtMost, READ_CONCURRENCY } from "../change";
import { sketchNotes } from "../sketches";
import { runTool } from "../tools";
import type { LinkEngine } from "../engine/client";
import { lintRules, type MoveAnswer, type ToolError } from "../wasm";
import { FIXING_TOOLS, type LintProposal, type LintReport } from "./report";
import { UnresolvedLinksStatus } from "./status";
import { LINT_VIEW_TYPE, LintView, type LintRun } from "./view";
import { messageOf, ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";

/** Stable: users bind hotkeys to it. */
export const LINT_COMMAND_ID = "lint-vault";

/** Findings one run lists; the counts per kind stay exact beyond it. */
export const LINT_LIMIT = 1000;

/** The link index once it is current, or null when the plugin is unloaded. */
export type IndexProvider = () => Promise<LinkEngine | null>;

/** What the lint needs of the plugin besides the index. */
export interface LintContext {
	/** The index with every vault event applied, for the lint. */
	settledIndex: IndexProvider;
	/** The index once the indexer is idle on its own time, for the status bar's count. */
	idleIndex: IndexProvider;
	/** The tools' host, for fixes. */
	host: HostProvider;
	/** The plugin's settings once loaded. */
	settings: () => Promise<VaultlinkSettings>;
	/** Makes the index follow Obsidian's settings as they are now (its Excluded files). */
	followObsidianSettings: () => Promise<void>;
}

export class VaultLint {
	/** What the command (or a click on the status bar) started last, for callers that wait on it. */
	opening: Promise<LintView | null> | null = null;
	/** The fix started last (its preview, then what confirming it did), for callers that wait on it. */
	fixing: Promise<void> | null = null;
	readonly status: UnresolvedLinksStatus;
	private readonly app: App;
	private readonly workspace: Workspace;
	private readonly context: LintContext;

	constructor(plugin: Plugin, context: LintContext) {
		this.app = plugin.app;
		this.workspace = plugin.app.workspace;
		this.context = context;
		plugin.registerView(
			LINT_VIEW_TYPE,
			(leaf) =>
				new LintView(leaf, {
					runLint: () => this.run(),
					fix: (view) => (proposal) => {
						this.fixing = this.fix(proposal, view).catch((error: unknown) => {
							console.error("vaultlink: could not preview the fix", error);
							new Notice(`vaultlink: the fix could not be previewed: ${messageOf(error)}. Lint again and retry.`, ERROR_NOTICE_MS);
						});
					},
				}),
		);
		plugin.addCommand({
			id: LINT_COMMAND_ID,
			name: "Lint the vault",
			callback: () => {
				this.opening = this.open();
			},
		});
		this.status = new UnresolvedLinksStatus(plugin, context.idleIndex, () => {
			this.opening = this.open();
		});
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
		const settings = await this.context.settings();
		await this.context.followObsidianSettings();
		const index = await this.context.settledIndex();
		if (index === null) return { ok: false, message: "The link index is not loaded; enable the plugin again and retry." };
		const kinds = enabledLintKinds(lintRules(), settings);
		if (kinds.length === 0) {
			return { ok: false, message: "Every lint check is turned off; turn some on in the plugin's settings, under Lint." };
		}
		const args = { limit: LINT_LIMIT, kinds, excluded_folders: settings.excludedFolders };
		// `stale` compares the hashes pages keep with their sources as they are: core names the
		// sources, the plugin reads them (one that cannot be read is not compared).
		const needs = await index.needs("lint_wiki", args);
		await sketchNotes(index, "lint_wiki", args, needs.call, (paths) => eachAtMost(READ_CONCURRENCY, paths, (path) => cachedTextOrNull(this.app, path)));
		const texts = new Map<string, string>();
		for (const path of needs.notes) {
			const text = await cachedTextOrNull(this.app, path);
			if (text !== null) texts.set(path, text);
		}
		const outcome = await index.call("lint_wiki", args, { texts, call: needs.call });
		if (!outcome.ok) return { ok: false, message: `The lint failed: ${outcome.error.message}. ${outcome.error.hint}` };
		const report = outcome.result as LintReport;
		const notes = await notesAmong(index, report.proposals.map((proposal) => proposal.subject));
		return { ok: true, report, isNote: (path) => notes.has(path) };
	}

	/**
	 * Previews the fix `proposal` names (a dry run of its tool) and opens the preview; confirming
	 * applies exactly the previewed plan, then lints again in `view`. Nothing is written before.
	 */
	private async fix(proposal: LintProposal, view: LintView): Promise<void> {
		const tool = proposal.tool;
		const args = proposal.tool_args;
		if (tool === undefined || !FIXING_TOOLS.has(tool) || typeof args !== "object" || args === null) {
			new Notice(`vaultlink: this finding has no fix the plugin can apply; ${proposal.suggested_action}`, ERROR_NOTICE_MS);
			return;
		}
		const host = await this.context.host();
		if (host === null) {
			noticeIndexNotLoaded();
			return;
		}
		const preview = await runTool(host, tool, { ...args, dry_run: true });
		if (!preview.ok) {
			notifyError(preview.error);
			return;
		}
		const answer = preview.result as MoveAnswer;
		const record = args as Record<string, unknown>;
		const moving = tool === "move_note";
		const title = moving ? `Fix: move ${String(record["from"])}` : `Fix: point the links to ${String(record["to_target"])}`;
		const rewrite = { fromTarget: String(record["from_target"]), toTarget: String(record["to_target"]) };
		const modal = new PreviewConfirmModal(this.app, {
			title,
			render: (container) => (moving ? renderMovePreview(container, answer) : renderRewritePreview(container, [{ fix: rewrite, answer }])),
			confirmText: tool === "move_note" ? "Move" : "Rewrite the links",
			style: "cta",
			focusConfirm: true,
			onConfirm: async () => {
				try {
					const applied = await runTool(host, tool, { ...args, approved_plan_hash: answer.plan_hash });
					if (!applied.ok) notifyError(applied.error);
					else new Notice(`vaultlink: ${describeFix(applied.result as MoveAnswer)}`);
				} catch (error) {
					console.error("vaultlink: the fix failed", error);
					new Notice(`vaultlink: the fix failed: ${messageOf(error)}. Lint again to see the vault as it is.`, ERROR_NOTICE_MS);
				}
				await view.refresh();
			},
		});
		modal.open();
	}
}

function describeFix(answer: MoveAnswer): string {
	const links = `${answer.links_changed} ${answer.links_changed === 1 ? "link" : "links"}`;
	const notes = `${answer.notes_edited} ${answer.notes_edited === 1 ? "note" : "notes"}`;
	return answer.files_moved > 0 ? `moved ${answer.moves.map((move) => `${move.from} to ${move.to}`).join(", ")} and rewrote ${links} in ${notes}.` : `rewrote ${links} in ${notes}.`;
}

function notifyError(error: ToolError): void {
	new Notice(`vaultlink: the fix was not applied: ${error.message}. ${error.hint}`, ERROR_NOTICE_MS);
}

/** Those of `paths` that are notes of the index, as written (`findNote` finds them as they are). */
async function notesAmong(index: LinkEngine, paths: string[]): Promise<Set<string>> {
	const unique = [...new Set(paths)];
	const found = await Promise.all(unique.map((path) => index.findNote(path)));
	return new Set(unique.filter((path, at) => found[at] === path));
}

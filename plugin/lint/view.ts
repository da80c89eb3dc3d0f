//! The "Vault lint" view: runs `lint_wiki` on the plugin's index when it opens (and on "Lint
//! again"), and shows the report (`report.ts`); a finding's subject opens its note at its line.

import { ButtonComponent, ItemView, type WorkspaceLeaf } from "obsidian";
import { renderLintReport, type LintLocation, type LintReport } from "./report";

/** Stable: Obsidian saves open views in the workspace layout by their type. */
export const LINT_VIEW_TYPE = "vaultlink-lint";

/** One run of the lint: the report and which subjects are notes, or why there is none. */
export type LintRun = { ok: true; report: LintReport; isNote: (path: string) => boolean } | { ok: false; message: string };

export class LintView extends ItemView {
	/** The run under way or last finished, for callers that wait on it. */
	running: Promise<void> | null = null;
	private readonly runLint: () => Promise<LintRun>;

	constructor(leaf: WorkspaceLeaf, runLint: () => Promise<LintRun>) {
		super(leaf);
		this.runLint = runLint;
		this.icon = "list-checks";
	}

	getViewType(): string {
		return LINT_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Vault lint";
	}

	protected override async onOpen(): Promise<void> {
		await this.refresh();
	}

	protected override async onClose(): Promise<void> {
		this.contentEl.empty();
	}

	/** Lints the vault again and shows the new report. */
	refresh(): Promise<void> {
		this.running = this.run();
		return this.running;
	}

	private async run(): Promise<void> {
		const container = this.contentEl;
		container.empty();
		container.createEl("p", { text: "Linting the vault…" });
		const run = await this.runLint();
		container.empty();
		new ButtonComponent(container.createDiv({ cls: "vaultlink-lint-actions" })).setButtonText("Lint again").onClick(() => void this.refresh());
		const body = container.createDiv({ cls: "vaultlink-lint-report" });
		if (!run.ok) {
			body.createEl("p", { cls: "vaultlink-lint-error", text: run.message });
			return;
		}
		renderLintReport(body, run.report, run.isNote, (location) => void this.openLocation(location));
	}

	private async openLocation(location: LintLocation): Promise<void> {
		// A Markdown view's ephemeral `line` is 0-based; the report's lines are 1-based.
		const state = location.line === undefined ? undefined : { eState: { line: location.line - 1 } };
		await this.app.workspace.openLinkText(location.path, "", false, state);
	}
}

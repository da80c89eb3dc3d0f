//! The "Vault lint" view: runs `lint_wiki` on the plugin's index when it opens (and on "Lint
//! again"), and shows the report (`report.ts`). Every finding takes the keyboard: the arrow
//! keys move between findings, Enter (or a click on its subject) opens its note at its line,
//! and a finding whose proposal names a tool gets a button that previews the fix.

import { ButtonComponent, ItemView, type WorkspaceLeaf } from "obsidian";
import { KeyboardList } from "../ui/keyboard-list";
import { renderLintReport, type FixFinding, type LintHealth, type LintLocation, type LintReport } from "./report";

/** Stable: Obsidian saves open views in the workspace layout by their type. */
export const LINT_VIEW_TYPE = "vaultlink-lint";

/** One run of the lint: the report and which subjects are notes, or why there is none. */
export type LintRun = { ok: true; report: LintReport; isNote: (path: string) => boolean } | { ok: false; message: string };

/** What the view asks of the lint command: a run, and the fix of a finding (which refreshes the view). */
export interface LintViewActions {
	runLint(): Promise<LintRun>;
	fix: ((view: LintView) => FixFinding) | null;
}

export class LintView extends ItemView {
	/** The run under way or last finished, for callers that wait on it. */
	running: Promise<void> | null = null;
	/** The findings on screen, in order, as the keyboard moves through them. */
	readonly findings = new KeyboardList();
	/** The link health of the last lint shown, which the next one is compared with. */
	private lastHealth: LintHealth | null = null;
	private readonly actions: LintViewActions;

	constructor(leaf: WorkspaceLeaf, actions: LintViewActions) {
		super(leaf);
		this.actions = actions;
		this.icon = "list-checks";
	}

	getViewType(): string {
		return LINT_VIEW_TYPE;
	}

	getDisplayText(): string {
		return "Vault lint";
	}

	protected override async onOpen(): Promise<void> {
		// One listener for every finding, however often the report is drawn again; it goes
		// when the view closes.
		this.registerDomEvent(this.contentEl, "keydown", (evt) => {
			this.findings.handleKeydown(evt);
		});
		await this.refresh();
	}

	protected override async onClose(): Promise<void> {
		this.findings.setItems([]);
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
		this.findings.setItems([]);
		container.createEl("p", { text: "Linting the vault…" });
		const run = await this.runLint();
		container.empty();
		new ButtonComponent(container.createDiv({ cls: "vaultlink-lint-actions" })).setButtonText("Lint again").onClick(() => void this.refresh());
		const body = container.createDiv({ cls: "vaultlink-lint-report" });
		if (!run.ok) {
			body.createEl("p", { cls: "vaultlink-lint-error", text: run.message });
			return;
		}
		const open = (location: LintLocation) => void this.openLocation(location);
		const rendered = renderLintReport(body, run.report, run.isNote, open, this.actions.fix?.(this) ?? null, this.lastHealth);
		this.lastHealth = run.report.health ?? this.lastHealth;
		this.findings.setItems(
			rendered.map((finding) => {
				const location = finding.location;
				return { el: finding.el, activate: location === null ? null : () => open(location) };
			}),
		);
	}

	private async runLint(): Promise<LintRun> {
		try {
			return await this.actions.runLint();
		} catch (error) {
			return { ok: false, message: `The lint failed: ${error instanceof Error ? error.message : String(error)}. Run it again; if it fails again, reload the plugin.` };
		}
	}

	private async openLocation(location: LintLocation): Promise<void> {
		// A Markdown view's ephemeral `line` is 0-based; the report's lines are 1-based.
		const state = location.line === undefined ? undefined : { eState: { line: location.line - 1 } };
		await this.app.workspace.openLinkText(location.path, "", false, state);
	}
}

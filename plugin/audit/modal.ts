/**
 * The rename audit on screen: `RenameAuditModal` lists each rename's stale links with a "Fix
 * these links" button, and `RewritePreviewModal` shows every link that fix rewrites (a dry run)
 * before it is confirmed. Buttons are focusable; Enter presses the focused one, or, when there
 * is one obvious action (a single rename to fix, or the preview's confirmation), takes it.
 */

import { App, ButtonComponent, Modal } from "obsidian";
import { PreviewConfirmModal, describeChange, fromButton } from "../move/modals";
import type { RenameFindings, StaleLink } from "./findings";
import type { PreviewedRewrite } from "./fix";
import { byNote, count } from "../ui/lists";

/**
 * Links listed per rename, and changes per preview. A rename of a much-linked note could
 * otherwise build a list of many thousands of elements; the counts stay exact.
 */
export const MAX_LISTED_LINKS = 500;

/** Lists what the audit found; `onFix` previews the fix for one rename. */
export class RenameAuditModal extends Modal {
	/** What the last "Fix these links" started (the preview), for callers that wait on it. */
	action: Promise<void> | null = null;
	private readonly findings: RenameFindings[];
	private readonly onFix: (findings: RenameFindings) => Promise<void>;

	constructor(app: App, findings: RenameFindings[], onFix: (findings: RenameFindings) => Promise<void>) {
		super(app);
		this.findings = findings;
		this.onFix = onFix;
		this.scope.register([], "Enter", (evt) => {
			if (fromButton(evt)) return true;
			const fixable = this.findings.filter((found) => found.stale.length > 0);
			const only = fixable[0];
			if (fixable.length === 1 && only !== undefined) this.fix(only);
			return false;
		});
	}

	override onOpen(): void {
		this.setTitle("Rename audit: links that still name an old path");
		const buttons = renderAudit(this.contentEl, this.findings, (found) => this.fix(found));
		buttons[0]?.buttonEl.focus();
	}

	override onClose(): void {
		this.contentEl.empty();
	}

	/** Closes the audit and previews the fix for `found`'s links. */
	fix(found: RenameFindings): void {
		if (this.action !== null) return;
		this.close();
		this.action = this.onFix(found);
	}
}

/**
 * Draws the audit into `container`: for each rename with stale links, its links and a button
 * that calls `onFix`; then the renames not checked, and why. Returns the buttons, in order.
 */
export function renderAudit(
	container: HTMLElement,
	findings: RenameFindings[],
	onFix: (found: RenameFindings) => void,
	maxListed = MAX_LISTED_LINKS,
): ButtonComponent[] {
	container.empty();
	const withStale = findings.filter((found) => found.stale.length > 0);
	const links = withStale.reduce((sum, found) => sum + found.stale.length, 0);
	container.createEl("p", {
		cls: "vaultlink-audit-summary",
		text: `${count(links, "link")} still ${links === 1 ? "names" : "name"} the old path of ${count(withStale.length, "renamed file")}, of ${count(findings.length, "recent rename")} checked.`,
	});
	const buttons: ButtonComponent[] = [];
	for (const found of withStale) {
		container.createEl("h3", { text: `${found.rename.from} → ${found.rename.to}` });
		const list = container.createEl("ul");
		for (const stale of found.stale.slice(0, maxListed)) list.createEl("li", { text: describeStaleLink(stale) });
		const unlisted = found.stale.length - maxListed;
		if (unlisted > 0) container.createEl("p", { text: `${unlisted} more, not listed here.` });
		const row = container.createDiv({ cls: "modal-button-container" });
		buttons.push(
			new ButtonComponent(row)
				.setButtonText("Fix these links")
				.setTooltip(`Preview repointing these links to ${found.rename.to}`)
				.onClick(() => onFix(found)),
		);
	}
	const skipped = findings.filter((found) => found.skipped !== undefined);
	if (skipped.length > 0) {
		container.createEl("h3", { text: "Not checked" });
		const list = container.createEl("ul");
		for (const found of skipped) list.createEl("li", { text: `${found.rename.from} → ${found.rename.to}: ${found.skipped ?? ""}` });
	}
	return buttons;
}

/** A stale link as the audit lists it: where, as written, and where it points now. */
export function describeStaleLink(stale: StaleLink): string {
	const where = stale.source === "property" ? ` in property ${stale.key ?? ""}`.trimEnd() : "";
	const now = stale.resolvedPath === undefined ? "points nowhere" : `now points to ${stale.resolvedPath}`;
	return `${stale.note}, line ${stale.line}: ${stale.text}${where} (${now})`;
}

/** Shows the links a fix rewrites and applies exactly those on confirmation. */
export class RewritePreviewModal extends PreviewConfirmModal {
	constructor(app: App, previews: PreviewedRewrite[], onConfirm: () => Promise<void>) {
		super(app, {
			title: "Fix stale links: check the changes",
			render: (container) => renderRewritePreview(container, previews),
			confirmText: "Rewrite links",
			style: "cta",
			focusConfirm: true,
			onConfirm,
		});
	}
}

/** Draws the dry runs of a fix: each rewrite, and every link it changes, by note. */
export function renderRewritePreview(container: HTMLElement, previews: PreviewedRewrite[], maxListed = MAX_LISTED_LINKS): void {
	container.empty();
	const changes = previews.flatMap((preview) => preview.answer.changes ?? []);
	const notes = new Set(changes.map((change) => change.note)).size;
	container.createEl("p", {
		cls: "vaultlink-audit-summary",
		text: `Rewrites ${count(changes.length, "link")} in ${count(notes, "note")}. Nothing changes until you confirm.`,
	});
	let listed = 0;
	for (const preview of previews) {
		container.createEl("h3", { text: `${preview.fix.fromTarget} → ${preview.fix.toTarget}` });
		for (const [note, noteChanges] of byNote(preview.answer.changes ?? [])) {
			if (listed >= maxListed) break;
			container.createEl("h4", { text: note });
			const list = container.createEl("ul");
			for (const change of noteChanges) {
				if (listed >= maxListed) break;
				list.createEl("li", { text: describeChange(change) });
				listed += 1;
			}
		}
	}
	const unlisted = changes.length - listed;
	if (unlisted > 0) container.createEl("p", { text: `${unlisted} more ${unlisted === 1 ? "link is" : "links are"} rewritten, not listed here.` });
}

/**
 * The "Fix broken links" command: a dry run of `fix_broken_links` over the vault shows each link
 * it would repair (with its evidence and confidence) and those it leaves, and confirming applies
 * exactly that plan (its `plan_hash` goes back as `approved_plan_hash`, so a vault that changed
 * in between is refused). Which links are repaired, and to what, is core's
 * (`crates/core/src/repair.rs`).
 */

import { App, Notice, Plugin } from "obsidian";
import type { HostProvider } from "../move/command";
import type { ToolHost } from "../host";
import { runCall } from "../change";
import { PreviewConfirmModal } from "../move/modals";
import type { ToolError } from "../wasm";
import { ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";

/** Stable: users bind hotkeys to it. */
export const FIX_LINKS_COMMAND_ID = "fix-broken-links";

/** The most repairs the preview lists; the count says how many there are. */
const PREVIEW_LIMIT = 200;

/** One link the plan repairs (core's `repair::Repair`). */
export interface Repair {
	note: string;
	line: number;
	before: string;
	after: string;
	target: string;
	evidence: string;
	confidence: number;
}

/** One broken link left as it is (core's `repair::LinkLeft`). */
export interface LinkLeft {
	note: string;
	line: number;
	link: string;
	reason: string;
	candidates: { target: string; evidence: string; confidence: number }[];
}

/** What `fix_broken_links` answers (core's `repair::RepairAnswer`). */
export interface RepairAnswer {
	dry_run: boolean;
	applied: boolean;
	plan_hash: string;
	notes_edited: number;
	links_repaired: number;
	repairs?: Repair[];
	unrepaired: LinkLeft[];
	unrepaired_count: number;
	min_confidence: number;
	change_id?: string;
}

export function registerFixLinksCommand(plugin: Plugin, host: HostProvider): void {
	plugin.addCommand({
		id: FIX_LINKS_COMMAND_ID,
		name: "Fix broken links",
		callback: () => void previewFixLinks(plugin.app, host),
	});
}

/** Previews the repairs of the vault's broken links and opens the preview, or says there are none. */
export async function previewFixLinks(app: App, host: HostProvider): Promise<PreviewConfirmModal | null> {
	const ready = await host();
	if (ready === null) {
		noticeIndexNotLoaded();
		return null;
	}
	const outcome = await runCall(ready, "fix_broken_links", { dry_run: true, limit: PREVIEW_LIMIT });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return null;
	}
	const preview = outcome.result as RepairAnswer;
	if (preview.links_repaired === 0) {
		new Notice(`vaultlink: no broken link can be repaired with confidence${left(preview)}.`, ERROR_NOTICE_MS);
		return null;
	}
	const modal = new PreviewConfirmModal(app, {
		title: "Fix broken links",
		render: (container) => renderRepairPreview(container, preview),
		confirmText: "Repair",
		style: "cta",
		onConfirm: () => applyPreviewedRepair(ready, preview),
	});
	modal.open();
	return modal;
}

/** Draws the links repaired and those left. */
export function renderRepairPreview(container: HTMLElement, preview: RepairAnswer): void {
	container.createEl("p", { text: `${describeRepair(preview)}${left(preview)}. Undo last change takes it back.` });
	const list = container.createEl("ul");
	for (const repair of preview.repairs ?? []) {
		const confidence = repair.confidence.toFixed(2);
		list.createEl("li", { text: `${repair.note}:${repair.line} ${repair.before} → ${repair.after} (${repair.evidence.replace(/_/g, " ")}, ${confidence})` });
	}
	const listed = preview.repairs?.length ?? 0;
	if (preview.links_repaired > listed) list.createEl("li", { text: `and ${preview.links_repaired - listed} more` });
	if (preview.unrepaired.length === 0) return;
	container.createEl("p", { text: "Left as they are:" });
	const leftList = container.createEl("ul");
	for (const link of preview.unrepaired) {
		const candidates = link.candidates.map((candidate) => `${candidate.target} (${candidate.confidence.toFixed(2)})`).join(", ");
		leftList.createEl("li", { text: `${link.note}:${link.line} ${link.link}: ${link.reason.replace(/_/g, " ")}${candidates === "" ? "" : `: ${candidates}`}` });
	}
}

/** Applies the repairs `preview` showed, and only those. */
export async function applyPreviewedRepair(host: ToolHost, preview: RepairAnswer): Promise<void> {
	const outcome = await runCall(host, "fix_broken_links", { approved_plan_hash: preview.plan_hash });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return;
	}
	new Notice(`vaultlink: ${describeRepair(outcome.result as RepairAnswer)}.`);
}

/** What a repair does, in one sentence's worth of counts. */
export function describeRepair(answer: RepairAnswer): string {
	const links = answer.links_repaired === 1 ? "1 link" : `${answer.links_repaired} links`;
	const notes = answer.notes_edited === 1 ? "1 note" : `${answer.notes_edited} notes`;
	return `${answer.dry_run ? "Would repair" : "Repaired"} ${links} in ${notes}`;
}

function left(answer: RepairAnswer): string {
	if (answer.unrepaired_count === 0) return "";
	return answer.unrepaired_count === 1 ? "; 1 broken link is left" : `; ${answer.unrepaired_count} broken links are left`;
}

function notifyError(error: ToolError): void {
	new Notice(`vaultlink: ${error.message}\n${error.hint}`, ERROR_NOTICE_MS);
}

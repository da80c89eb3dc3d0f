/**
 * The "Delete note safely…" command's preview on screen: every link to the note (where, as
 * written, in the body or which property), drawn by `renderDeletePreview`, and one button whose
 * words say what confirming does. The keyboard starts on Cancel; Escape cancels.
 */

import type { App } from "obsidian";
import { PreviewConfirmModal } from "../move/modals";
import type { DeleteAnswer, DeleteReferrer } from "../wasm";
import { byNote, count } from "../ui/lists";

/**
 * Backlinks listed in a preview. A much-linked note could otherwise build a list of many
 * thousands of elements; the counts above the list stay exact.
 */
export const MAX_LISTED_BACKLINKS = 500;

/** Shows a delete's dry run and deletes exactly the previewed note on confirmation. */
export class DeletePreviewModal extends PreviewConfirmModal {
	constructor(app: App, answer: DeleteAnswer, onConfirm: () => Promise<void>) {
		super(app, {
			title: `Delete ${answer.path}`,
			render: (container) => renderDeletePreview(container, answer),
			confirmText: confirmLabel(answer),
			// The keyboard starts on Cancel, as a removing change's preview does; the delete button
			// says what it does (and how many links it leaves dangling).
			style: "warning",
			onConfirm,
		});
	}
}

/** The confirm button's words: a plain trash, or a warning that the backlinks will dangle. */
export function confirmLabel(answer: DeleteAnswer): string {
	const links = answer.backlinks.length;
	if (links === 0) return "Move to trash";
	return `Move to trash; ${links === 1 ? "1 link will dangle" : `${links} links will dangle`}`;
}

/** Draws a dry run's answer into `container`: what goes, and every link that will point nowhere. */
export function renderDeletePreview(container: HTMLElement, answer: DeleteAnswer, maxListed = MAX_LISTED_BACKLINKS): void {
	container.empty();
	container.createEl("p", { cls: "vaultlink-delete-summary", text: describePreview(answer) });
	if (answer.backlinks.length === 0) return;

	container.createEl("h3", { text: "Backlinks" });
	let listed = 0;
	for (const [note, referrers] of byNote(answer.backlinks)) {
		if (listed >= maxListed) break;
		container.createEl("h4", { text: note });
		const list = container.createEl("ul");
		for (const referrer of referrers) {
			if (listed >= maxListed) break;
			list.createEl("li", { text: describeReferrer(referrer) });
			listed += 1;
		}
	}
	const unlisted = answer.backlinks.length - listed;
	if (unlisted > 0) container.createEl("p", { text: `${unlisted} more ${unlisted === 1 ? "link points" : "links point"} to it, not listed here.` });
}

/** One sentence on what confirming the preview does. */
export function describePreview(answer: DeleteAnswer): string {
	const links = answer.backlinks.length;
	const notes = new Set(answer.backlinks.map((referrer) => referrer.note)).size;
	const fate =
		links === 0
			? `No note links to ${answer.path}; it goes to the trash.`
			: `${count(links, "link")} in ${count(notes, "note")} ${links === 1 ? "points" : "point"} to ${answer.path}; deleting it leaves ${links === 1 ? "that link" : "them"} pointing nowhere. Other notes are not edited.`;
	return `${fate} Nothing changes until you confirm.`;
}

/** A backlink as the preview lists it: the line, the link as written, and where in the note it is. */
export function describeReferrer(referrer: DeleteReferrer): string {
	const where =
		referrer.source === "property"
			? `in the property ${referrer.key ?? "(unnamed)"}`
			: referrer.source === "canvas_file"
				? "a file card of the canvas"
				: referrer.source === "canvas_text"
					? "in a text card of the canvas"
					: "in the body";
	return `line ${referrer.line}: ${referrer.link} (${where})`;
}

/** Why a confirmed delete was refused, in words, from core's `blocked_reasons`. */
export function describeBlockedReasons(reasons: string[]): string {
	return reasons.map((reason) => BLOCKED_REASONS[reason] ?? `it was refused (${reason})`).join("; ");
}

const BLOCKED_REASONS: Record<string, string> = {
	has_backlinks: "other notes link to it, and leaving their links dangling was not confirmed",
	concurrent_modification: "it was edited after it was read",
	plan_hash_mismatch: "the note or the links to it changed since the preview",
};

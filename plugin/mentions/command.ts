/**
 * The "Link unlinked mentions" command: a dry run of `link_mentions` over the vault lists each
 * plain-text mention of a note's name it would link (note, line, text, target), each with a
 * switch the user may turn off, and the names it leaves as ambiguous. Confirming applies exactly
 * the mentions left on: those turned off go back to core as `exclude`, core plans that set (its
 * own `plan_hash`), and only when it is the set shown is it applied by that hash. Which text is a
 * mention, and how its link is written, is core's (`crates/core/src/mentions.rs`).
 */

import { App, Notice, Plugin, ToggleComponent } from "obsidian";
import type { HostProvider } from "../move/command";
import type { ToolHost } from "../host";
import { runCall } from "../change";
import { PreviewConfirmModal } from "../move/modals";
import type { ToolError } from "../wasm";
import { ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";

/** Stable: users bind hotkeys to it. */
export const LINK_MENTIONS_COMMAND_ID = "link-unlinked-mentions";

/** The most mentions the preview lists; the count says how many there are, and the rest are linked. */
const PREVIEW_LIMIT = 500;

/** One mention the plan links (core's `mentions::Mention`). */
export interface Mention {
	id: string;
	note: string;
	line: number;
	text: string;
	target: string;
	link: string;
}

/** A name several notes share (core's `mentions::AmbiguousName`). */
export interface AmbiguousName {
	name: string;
	notes: string[];
	mentions: number;
}

/** What `link_mentions` answers (core's `mentions::MentionsAnswer`). */
export interface MentionsAnswer {
	dry_run: boolean;
	applied: boolean;
	plan_hash: string;
	notes_edited: number;
	mentions_linked: number;
	mentions?: Mention[];
	ambiguous: AmbiguousName[];
	ambiguous_count: number;
	change_id?: string;
}

export function registerLinkMentionsCommand(plugin: Plugin, host: HostProvider): void {
	plugin.addCommand({
		id: LINK_MENTIONS_COMMAND_ID,
		name: "Link unlinked mentions",
		callback: () => void previewLinkMentions(plugin.app, host),
	});
}

/** Previews the links of the vault's unlinked mentions and opens the preview, or says there are none. */
export async function previewLinkMentions(app: App, host: HostProvider): Promise<PreviewConfirmModal | null> {
	const ready = await host();
	if (ready === null) {
		noticeIndexNotLoaded();
		return null;
	}
	const outcome = await runCall(ready, "link_mentions", { dry_run: true, limit: PREVIEW_LIMIT });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return null;
	}
	const preview = outcome.result as MentionsAnswer;
	if (preview.mentions_linked === 0) {
		new Notice(`vaultlink: no unlinked mention of a note's name was found${ambiguous(preview)}.`, ERROR_NOTICE_MS);
		return null;
	}
	const ticked = new Map<string, boolean>((preview.mentions ?? []).map((mention) => [mention.id, true]));
	const modal = new PreviewConfirmModal(app, {
		title: "Link unlinked mentions",
		render: (container) => renderMentionsPreview(container, preview, ticked),
		confirmText: "Link",
		style: "cta",
		onConfirm: () => applyTicked(ready, preview, ticked),
	});
	modal.open();
	return modal;
}

/** Draws each mention with its switch, and the names left as ambiguous. */
export function renderMentionsPreview(container: HTMLElement, preview: MentionsAnswer, ticked: Map<string, boolean>): void {
	container.createEl("p", { text: `${describeMentions(preview)}${ambiguous(preview)}. Turn off what should stay plain text. Undo last change takes it back.` });
	const list = container.createEl("ul", { cls: "vaultlink-mentions" });
	for (const mention of preview.mentions ?? []) {
		const item = list.createEl("li");
		new ToggleComponent(item)
			.setValue(ticked.get(mention.id) ?? true)
			.setTooltip(`Link this mention of ${mention.target}`)
			.onChange((on) => ticked.set(mention.id, on));
		item.createSpan({ text: ` ${mention.note}:${mention.line} “${mention.text}” → ${mention.target}` });
	}
	const listed = preview.mentions?.length ?? 0;
	if (preview.mentions_linked > listed) list.createEl("li", { text: `and ${preview.mentions_linked - listed} more, linked too` });
	if (preview.ambiguous.length === 0) return;
	container.createEl("p", { text: "Names several notes share, left as they are:" });
	const names = container.createEl("ul");
	for (const name of preview.ambiguous) {
		names.createEl("li", { text: `${name.name} (${name.mentions}): ${name.notes.join(", ")}` });
	}
}

/**
 * Applies the mentions left on, and only those: core plans the set without the ones turned off,
 * and the plan is applied by its own hash once its mentions are the ones shown on.
 */
export async function applyTicked(host: ToolHost, preview: MentionsAnswer, ticked: Map<string, boolean>): Promise<void> {
	const exclude = [...ticked].filter(([, on]) => !on).map(([id]) => id);
	if (exclude.length === ticked.size && preview.mentions_linked === ticked.size) {
		new Notice("vaultlink: every mention was turned off; nothing was linked.");
		return;
	}
	let planHash = preview.plan_hash;
	if (exclude.length > 0) {
		const narrowed = await runCall(host, "link_mentions", { dry_run: true, exclude, limit: PREVIEW_LIMIT });
		if (!narrowed.ok) {
			notifyError(narrowed.error);
			return;
		}
		const chosen = narrowed.result as MentionsAnswer;
		const shown = [...ticked].filter(([, on]) => on).map(([id]) => id);
		const planned = (chosen.mentions ?? []).map((mention) => mention.id);
		const same = chosen.mentions_linked === preview.mentions_linked - exclude.length && shown.every((id, index) => planned[index] === id);
		if (!same) {
			new Notice("vaultlink: the vault changed since the preview; nothing was linked. Preview the mentions again.", ERROR_NOTICE_MS);
			return;
		}
		planHash = chosen.plan_hash;
	}
	const outcome = await runCall(host, "link_mentions", { approved_plan_hash: planHash, ...(exclude.length > 0 ? { exclude } : {}) });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return;
	}
	new Notice(`vaultlink: ${describeMentions(outcome.result as MentionsAnswer)}.`);
}

/** What linking does, in one sentence's worth of counts. */
export function describeMentions(answer: MentionsAnswer): string {
	const mentions = answer.mentions_linked === 1 ? "1 mention" : `${answer.mentions_linked} mentions`;
	const notes = answer.notes_edited === 1 ? "1 note" : `${answer.notes_edited} notes`;
	return `${answer.dry_run ? "Would link" : "Linked"} ${mentions} in ${notes}`;
}

function ambiguous(answer: MentionsAnswer): string {
	if (answer.ambiguous_count === 0) return "";
	return answer.ambiguous_count === 1 ? "; 1 name several notes share is left" : `; ${answer.ambiguous_count} names several notes share are left`;
}

function notifyError(error: ToolError): void {
	new Notice(`vaultlink: ${error.message}\n${error.hint}`, ERROR_NOTICE_MS);
}

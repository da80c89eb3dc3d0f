/**
 * Moves made outside Obsidian (a file manager, `mv`, a script, a sync client), which Obsidian's
 * file watcher reports as a delete and a create, so Obsidian updates no link: the "Heal links
 * broken by moves made outside Obsidian" command previews `heal_moves` (each move detected and
 * every link it rewrites) and applies exactly that plan on confirmation (its `plan_hash` goes
 * back as `approved_plan_hash`, so a vault that changed in between is refused). A notice says
 * when such moves broke links. What counts as a move, and the rewrite, are core's
 * (`crates/core/src/moves_detected.rs`).
 */

import { App, Notice, Plugin, debounce, type Debouncer, type TAbstractFile } from "obsidian";
import { runCall } from "../change";
import type { ToolHost } from "../host";
import type { HostProvider } from "../move/command";
import { PreviewConfirmModal, renderMovePreview } from "../move/modals";
import type { FileMove, MoveAnswer, ToolError } from "../wasm";
import { ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";
import { count } from "../ui/lists";

/** Stable: users bind hotkeys to it. */
export const HEAL_MOVES_COMMAND_ID = "heal-moves-made-outside-obsidian";
export const HEAL_MOVES_COMMAND_NAME = "Heal links broken by moves made outside Obsidian";

/** How long the vault's deletes and creates must be quiet before moves are looked for: a folder moved comes as many. */
export const MOVES_QUIET_MS = 2_000;

/** What `heal_moves` answers (core's `moves_detected::HealAnswer`): a move's answer with nothing moved. */
export interface HealAnswer extends MoveAnswer {
	healed: FileMove[];
	healed_total: number;
	ambiguous: number;
}

/** What `detected_moves` answers, as far as the notice reads it (core's `DetectedMovesAnswer`). */
interface DetectedMoves {
	observed: boolean;
	links_broken: number;
	moves: { from: string; to: string; notes_total: number }[];
	total: number;
	next_cursor?: string;
}

/** The moves the notice counts the notes of: a page as long as `detected_moves` gives. */
const MOVES_LISTED = 1000;

export function registerHealMovesCommand(plugin: Plugin, host: HostProvider): void {
	plugin.addCommand({
		id: HEAL_MOVES_COMMAND_ID,
		name: HEAL_MOVES_COMMAND_NAME,
		// The preview it opens is returned for callers that wait on it (Obsidian ignores it).
		callback: () => previewHeal(plugin.app, host),
	});
}

/** Previews healing the links broken by moves made outside Obsidian and opens the preview, or says there are none. */
export async function previewHeal(app: App, host: HostProvider): Promise<PreviewConfirmModal | null> {
	const ready = await host();
	if (ready === null) {
		noticeIndexNotLoaded();
		return null;
	}
	const outcome = await runCall(ready, "heal_moves", { dry_run: true });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return null;
	}
	const preview = outcome.result as HealAnswer;
	if (preview.links_changed === 0) {
		new Notice(
			preview.healed_total === 0
				? "vaultlink: no move made outside Obsidian since vaultlink loaded is left to heal."
				: `vaultlink: ${count(preview.healed_total, "note was", "notes were")} moved outside Obsidian, and no link they broke is left to rewrite.`,
		);
		return null;
	}
	const modal = new PreviewConfirmModal(app, {
		title: "Heal links broken by moves made outside Obsidian",
		render: (container) => renderHealPreview(container, preview),
		confirmText: "Rewrite links",
		style: "cta",
		// The heal can be undone ("Undo last change"); the keyboard starts on the button that makes it.
		focusConfirm: true,
		onConfirm: () => applyPreviewedHeal(ready, preview),
	});
	modal.open();
	return modal;
}

/** Draws the moves detected and every link the heal rewrites. */
export function renderHealPreview(container: HTMLElement, preview: HealAnswer): void {
	renderMovePreview(container, preview);
	container.createEl("h3", { text: "Moved outside Obsidian" });
	container.createEl("p", {
		text: "Each note has the same size and content at its new path as it had at its old one. No file is moved; only the links are rewritten.",
	});
	const list = container.createEl("ul");
	for (const move of preview.healed) list.createEl("li", { text: `${move.from} → ${move.to}` });
	if (preview.healed_total > preview.healed.length) list.createEl("li", { text: `and ${preview.healed_total - preview.healed.length} more` });
	if (preview.ambiguous > 0) {
		container.createEl("p", {
			text: `${count(preview.ambiguous, "note looks", "notes look")} moved but ${preview.ambiguous === 1 ? "is" : "are"} left alone (copied, or moved and edited); an agent's detected_moves lists why.`,
		});
	}
}

/** Applies the heal `preview` showed, and only that one. */
export async function applyPreviewedHeal(host: ToolHost, preview: HealAnswer): Promise<void> {
	const outcome = await runCall(host, "heal_moves", { approved_plan_hash: preview.plan_hash });
	if (!outcome.ok) {
		notifyError(outcome.error);
		return;
	}
	const answer = outcome.result as HealAnswer;
	new Notice(`vaultlink: rewrote ${count(answer.links_changed, "link", "links")} broken by moves made outside Obsidian; "Undo last change" gives them back.`);
}

/**
 * Says when moves made outside Obsidian broke links: once the vault's deletes and creates have
 * been quiet for `quietMs`, asks `detected_moves`, and shows a notice naming the command when
 * links are broken and the moves are not the ones it last told of.
 */
export class MovesNotice {
	private told = "";
	private readonly check: Debouncer<[], void>;

	constructor(
		private readonly plugin: Plugin,
		private readonly host: HostProvider,
		quietMs = MOVES_QUIET_MS,
	) {
		this.check = debounce(() => void this.lookForMoves(), quietMs, true);
	}

	registerEvents(): void {
		const vault = this.plugin.app.vault;
		const changed = (file: TAbstractFile) => {
			void file;
			this.check();
		};
		this.plugin.registerEvent(vault.on("delete", changed));
		this.plugin.registerEvent(vault.on("create", changed));
	}

	/** Drops a look that is waiting for the vault to be quiet (the plugin unloads). */
	stop(): void {
		this.check.cancel();
	}

	/** Asks `detected_moves` now, and shows the notice when there is news; the notice, for tests. */
	async lookForMoves(): Promise<Notice | null> {
		const ready = await this.host();
		if (ready === null) return null;
		const outcome = await runCall(ready, "detected_moves", { limit: MOVES_LISTED });
		if (!outcome.ok) return null;
		const detected = outcome.result as DetectedMoves;
		if (!detected.observed || detected.links_broken === 0) return null;
		const news = JSON.stringify([detected.links_broken, detected.moves.map((move) => [move.from, move.to])]);
		if (news === this.told) return null;
		this.told = news;
		const notes = detected.moves.reduce((sum, move) => sum + move.notes_total, 0);
		const moved = detected.next_cursor === undefined ? count(notes, "note was", "notes were") : `more than ${count(notes, "note was", "notes were")}`;
		// A notice only tells (a click handler on it needs `messageEl`, from Obsidian 1.8.7, past
		// the manifest's minAppVersion); the command it names previews and heals.
		const notice = new Notice(
			`vaultlink: ${moved} moved outside Obsidian; ${count(detected.links_broken, "link", "links")} broke. Run "${HEAL_MOVES_COMMAND_NAME}" to review and heal them.`,
			ERROR_NOTICE_MS,
		);
		return notice;
	}
}

function notifyError(error: ToolError): void {
	new Notice(`vaultlink: no link was rewritten: ${error.message}. ${error.hint}`, ERROR_NOTICE_MS);
}

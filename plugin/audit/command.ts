/**
 * The "Audit recent renames" command. Obsidian's own link updater, after a rename made in its
 * interface, misses some links (Markdown links inside properties; every link when "Automatically
 * update internal links" is off). This records the vault's renames (`renames.ts`), finds the
 * links that still name an old path (`findings.ts`), and fixes them with `rewrite_link` after a
 * preview (`fix.ts`, `modal.ts`).
 */

import { App, Notice, Plugin } from "obsidian";
import { whenMetadataResolved } from "../metadata";
import type { HostProvider } from "../move/command";
import type { ToolHost } from "../host";
import type { ToolError } from "../wasm";
import { auditRenames, type RenameFindings } from "./findings";
import { applyFixes, previewFixes, type PreviewedRewrite } from "./fix";
import { RenameAuditModal, RewritePreviewModal } from "./modal";
import { count } from "../ui/lists";
import { RenameLog } from "./renames";
import { ERROR_NOTICE_MS, noticeIndexNotLoaded } from "../ui/notice";

/** Stable: users bind hotkeys to it. */
export const AUDIT_RENAMES_COMMAND_ID = "audit-renames";

/**
 * How long after a rename the audit waits before it looks. Obsidian's own link updater rewrites
 * the links to a file renamed in its interface just after the rename, one note after another,
 * and the metadata cache reads those notes a moment later; audited before then, links it is about
 * to fix would be reported stale, and a fix would race its writes.
 */
export const RENAME_SETTLE_MS = 2_000;

/** How long the audit then waits for the metadata cache to resolve those notes, at most. */
const METADATA_WAIT_MS = 5_000;

/** The settle time, read when the command runs, so a test may shorten it. */
export type SettleTime = () => number;

/** Records renames from now until `plugin` unloads, and adds the command; returns the log. */
export function registerRenameAuditCommand(plugin: Plugin, host: HostProvider, settleMs: SettleTime = () => RENAME_SETTLE_MS): RenameLog {
	const log = new RenameLog();
	log.registerEvents(plugin, plugin.app.vault);
	plugin.addCommand({
		id: AUDIT_RENAMES_COMMAND_ID,
		name: "Audit recent renames",
		// Returns the run's promise, which Obsidian ignores; tests await it.
		callback: () => runRenameAudit(plugin.app, host, log, settleMs()),
	});
	return log;
}

/**
 * Audits the recorded renames, once the latest is `settleMs` old and Obsidian's metadata cache
 * has resolved (see `RENAME_SETTLE_MS`). Stale links open the audit modal; otherwise a Notice
 * says so. Returns the findings (null when the index is not loaded).
 */
export async function runRenameAudit(app: App, host: HostProvider, log: RenameLog, settleMs = RENAME_SETTLE_MS): Promise<RenameFindings[] | null> {
	if (log.size === 0) {
		new Notice("vaultlink: no file has been renamed since vaultlink loaded, so there is nothing to audit.");
		return [];
	}
	const sinceLast = log.lastRecordedAt === null ? Infinity : Date.now() - log.lastRecordedAt;
	if (sinceLast < settleMs) await new Promise((resolve) => window.setTimeout(resolve, settleMs - sinceLast));
	await whenMetadataResolved(app, METADATA_WAIT_MS);
	// Read after the wait: a rename made meanwhile is audited too.
	const renames = log.entries();
	const ready = await host();
	if (ready === null) {
		noticeIndexNotLoaded();
		return null;
	}
	// The index must hold what the vault holds, including the rename itself and Obsidian's
	// rewrites that followed it.
	await ready.settle();
	const findings = await auditRenames(app, ready.index, renames);
	const stale = findings.reduce((sum, found) => sum + found.stale.length, 0);
	if (stale === 0) {
		new Notice(`vaultlink: checked ${count(renames.length, "recent rename")}; no link still names an old path.`);
		return findings;
	}
	new RenameAuditModal(app, findings, (found) => previewFix(app, ready, found)).open();
	return findings;
}

/** Dry-runs the fix for one rename's stale links and opens its preview, or says why it cannot be made. */
export async function previewFix(app: App, host: ToolHost, found: RenameFindings): Promise<void> {
	const previews = await previewFixes(host, found.fixes);
	if (!previews.ok) {
		notifyError(found, previews.error);
		return;
	}
	new RewritePreviewModal(app, previews.value, () => applyPreviewedFix(host, found, previews.value)).open();
}

/** Applies the rewrites the preview showed, and only those. */
export async function applyPreviewedFix(host: ToolHost, found: RenameFindings, previews: PreviewedRewrite[]): Promise<void> {
	const outcome = await applyFixes(host, previews);
	if (!outcome.ok) {
		notifyError(found, outcome.error);
		return;
	}
	const { linksChanged, notesEdited } = outcome.value;
	new Notice(`vaultlink: rewrote ${count(linksChanged, "link")} in ${count(notesEdited, "note")} to point to ${found.rename.to}.`);
}

function notifyError(found: RenameFindings, error: ToolError): void {
	new Notice(`vaultlink: the links to ${found.rename.to} were not fixed: ${error.message}. ${error.hint}`, ERROR_NOTICE_MS);
}

/**
 * Fixing a rename's stale links with `rewrite_link` (`batch/execute.ts`), the same tool path an
 * agent uses: a dry run for each way the old target is written, shown as a preview, then each
 * applied with the `plan_hash` it was previewed with.
 */

import type { ToolHost } from "../host";
import { rewriteLink } from "../change";
import type { LinkChange, MoveAnswer, ToolError } from "../wasm";
import type { RewriteFix } from "./findings";
import { ErrorCode } from "../error-codes";

/** One previewed `rewrite_link`: its arguments and its dry run's answer. */
export interface PreviewedRewrite {
	fix: RewriteFix;
	answer: MoveAnswer;
}

export type FixOutcome<T> = { ok: true; value: T } | { ok: false; error: ToolError };

/** Dry-runs each fix; nothing is written. */
export async function previewFixes(host: ToolHost, fixes: RewriteFix[]): Promise<FixOutcome<PreviewedRewrite[]>> {
	const previews: PreviewedRewrite[] = [];
	for (const fix of fixes) {
		const outcome = await rewriteLink(host, { from_target: fix.fromTarget, to_target: fix.toTarget, dry_run: true, limit: AUDIT_PAGE });
		if (!outcome.ok) return outcome;
		previews.push({ fix, answer: outcome.result as MoveAnswer });
	}
	return { ok: true, value: previews };
}

/** The most changes a fix's preview lists: the audit compares a preview with the plan it applies, change for change. */
const AUDIT_PAGE = 1000;

/**
 * Applies the previewed rewrites, in order, and returns how many links were rewritten.
 *
 * The first is applied with its previewed `plan_hash`. A later one may edit a note the first
 * just edited (a note with both a bare and a path-qualified stale link), and a plan's hash
 * covers its notes' texts, so its previewed hash cannot match any more: it is planned again and
 * applied only if it rewrites exactly the links the preview showed, the same way. Anything else
 * stops with `plan_hash_mismatch` before it writes.
 */
export async function applyFixes(host: ToolHost, previews: PreviewedRewrite[]): Promise<FixOutcome<{ linksChanged: number; notesEdited: number }>> {
	let linksChanged = 0;
	const notesEdited = new Set<string>();
	for (const [position, preview] of previews.entries()) {
		let approvedHash = preview.answer.plan_hash;
		if (position > 0) {
			const again = await rewriteLink(host, { from_target: preview.fix.fromTarget, to_target: preview.fix.toTarget, dry_run: true, limit: AUDIT_PAGE });
			if (!again.ok) return again;
			const answer = again.result as MoveAnswer;
			if (!sameChanges(answer.changes ?? [], preview.answer.changes ?? [])) return { ok: false, error: changedSincePreview(linksChanged) };
			approvedHash = answer.plan_hash;
		}
		const outcome = await rewriteLink(host, { from_target: preview.fix.fromTarget, to_target: preview.fix.toTarget, approved_plan_hash: approvedHash, limit: AUDIT_PAGE });
		if (!outcome.ok) {
			if (outcome.error.code === "plan_hash_mismatch") return { ok: false, error: changedSincePreview(linksChanged) };
			return outcome;
		}
		const answer = outcome.result as MoveAnswer;
		linksChanged += answer.links_changed;
		for (const change of answer.changes ?? []) notesEdited.add(change.note);
	}
	return { ok: true, value: { linksChanged, notesEdited: notesEdited.size } };
}

function sameChanges(a: LinkChange[], b: LinkChange[]): boolean {
	const key = (change: LinkChange): string => JSON.stringify([change.note, change.line, change.before, change.after, change.reason]);
	return a.length === b.length && a.every((change, position) => key(change) === key(b[position] as LinkChange));
}

function changedSincePreview(alreadyRewritten: number): ToolError {
	const done = alreadyRewritten === 0 ? "nothing was changed" : `${alreadyRewritten} links were rewritten before this was found; the rest were not`;
	return {
		code: ErrorCode.PlanHashMismatch,
		message: `the vault changed since the preview, so the links are no longer the ones shown; ${done}`,
		hint: "Run the rename audit again and check its new preview.",
		retryable: false,
	};
}

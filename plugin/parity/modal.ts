//! Shows a link parity report: the summary counts, the disagreements grouped by note, and the
//! intended differences with why they are intended. A Modal, so Escape closes it.

import { App, Modal } from "obsidian";
import {
	INTENDED_DIFFERENCES,
	describeDisagreement,
	describeIntended,
	describeTotals,
	type ParityReport,
} from "./compare";

/**
 * Items listed per section. A vault where every link disagrees could otherwise build a list of
 * many thousands of elements; the console has the full report.
 */
export const MAX_LISTED_ITEMS = 500;

export class LinkParityModal extends Modal {
	private readonly report: ParityReport;

	constructor(app: App, report: ParityReport) {
		super(app);
		this.report = report;
	}

	override onOpen(): void {
		this.setTitle("Link parsing compared with Obsidian");
		renderReport(this.contentEl, this.report);
	}

	override onClose(): void {
		this.contentEl.empty();
	}
}

/** Renders `report` into `container`, replacing what was there. */
export function renderReport(container: HTMLElement, report: ParityReport, maxListedItems = MAX_LISTED_ITEMS): void {
	container.empty();
	const summary = container.createEl("ul", { cls: "vaultlink-parity-summary" });
	for (const phrase of describeTotals(report.totals)) summary.createEl("li", { text: phrase });

	container.createEl("h3", { text: "Disagreements" });
	const withDisagreements = report.notes.filter((note) => note.disagreements.length > 0);
	if (withDisagreements.length === 0) {
		container.createEl("p", { text: "None: every link is read alike, apart from the intended differences below." });
	}
	let listed = 0;
	for (const note of withDisagreements) {
		if (listed >= maxListedItems) break;
		container.createEl("h4", { text: note.truncated ? `${note.path} (over vaultlink's link limit)` : note.path });
		const list = container.createEl("ul");
		for (const disagreement of note.disagreements) {
			if (listed >= maxListedItems) break;
			list.createEl("li", { text: describeDisagreement(disagreement) });
			listed += 1;
		}
	}
	if (listed < report.totals.disagreements) {
		container.createEl("p", { text: `${report.totals.disagreements - listed} more not listed here; the developer console has the full report.` });
	}

	container.createEl("h3", { text: "Intended differences" });
	const explanations = container.createEl("ul");
	for (const explanation of Object.values(INTENDED_DIFFERENCES)) explanations.createEl("li", { text: explanation });
	const withIntended = report.notes.filter((note) => note.intended.length > 0);
	if (withIntended.length === 0) container.createEl("p", { text: "None in this vault." });
	let listedIntended = 0;
	for (const note of withIntended) {
		if (listedIntended >= maxListedItems) break;
		container.createEl("h4", { text: note.path });
		const list = container.createEl("ul");
		for (const difference of note.intended) {
			if (listedIntended >= maxListedItems) break;
			list.createEl("li", { text: describeIntended(difference) });
			listedIntended += 1;
		}
	}
	if (listedIntended < report.totals.intendedDifferences) {
		container.createEl("p", {
			text: `${report.totals.intendedDifferences - listedIntended} more not listed here; the developer console has the full report.`,
		});
	}

	if (report.skipped.length > 0) {
		container.createEl("h3", { text: "Skipped" });
		const list = container.createEl("ul");
		for (const skipped of report.skipped.slice(0, maxListedItems)) list.createEl("li", { text: `${skipped.path}: ${skipped.reason}` });
	}
}

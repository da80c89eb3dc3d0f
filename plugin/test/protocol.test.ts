/**
 * The bridge's line framing: newline-delimited, at most 1 MiB a line, whatever the chunking.
 */

import assert from "node:assert/strict";
import { test } from "node:test";
import { LineSplitter } from "../bridge/protocol";

/** Feeds `chunks` to a splitter with a `maxLineBytes` cap and checks the lines and the overflow. */
function check(maxLineBytes: number, chunks: string[], expectedLines: string[], expectedOverflow = false): void {
	const splitter = new LineSplitter(maxLineBytes);
	const lines = chunks.flatMap((chunk) => splitter.push(Buffer.from(chunk, "utf8")).map((line) => line.toString("utf8")));
	assert.deepEqual(lines, expectedLines, JSON.stringify(chunks));
	assert.equal(splitter.overflowed, expectedOverflow, `overflow for ${JSON.stringify(chunks)}`);
}

test("lines are split at newlines however the bytes arrive", () => {
	check(100, ["a\n"], ["a"]);
	check(100, ["a\nb\n"], ["a", "b"]);
	check(100, ["a", "b", "\nc"], ["ab"]);
	check(100, ["a", "b", "\nc", "\n"], ["ab", "c"]);
	check(100, ["\n\n"], ["", ""]);
	check(100, ["{\"x\":1}\r\n"], ["{\"x\":1}\r"]);
});

test("a multi-byte character split across chunks is kept whole", () => {
	const splitter = new LineSplitter(100);
	const bytes = Buffer.from("ü\n", "utf8");
	assert.deepEqual(splitter.push(bytes.subarray(0, 1)), []);
	assert.deepEqual(splitter.push(bytes.subarray(1)).map((line) => line.toString("utf8")), ["ü"]);
});

test("a line longer than the cap overflows, with or without its newline", () => {
	check(4, ["abcd\n"], ["abcd"]);
	check(4, ["abcde\n"], [], true);
	check(4, ["abcde"], [], true);
	check(4, ["ab", "cd", "e"], [], true);
	check(4, ["ok\nabcdef\nlater\n"], ["ok"], true);
	check(4, ["abcdef", "\nlater\n"], [], true);
});

test("the default cap is 1 MiB", () => {
	const splitter = new LineSplitter();
	assert.equal(splitter.push(Buffer.alloc(1024 * 1024, 0x61)).length, 0);
	assert.equal(splitter.overflowed, false);
	assert.equal(splitter.push(Buffer.from("\n")).length, 1);
	splitter.push(Buffer.alloc(1024 * 1024 + 1, 0x61));
	assert.equal(splitter.overflowed, true);
});

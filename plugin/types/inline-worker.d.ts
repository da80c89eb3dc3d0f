/**
 * `inline-worker:<path>` imports a worker's entry bundled on its own, as its source text
 * (plugin/engine/inline-worker.mjs, an esbuild plugin of the build and of the test build).
 */
declare module "inline-worker:*" {
	const source: string;
	export default source;
}

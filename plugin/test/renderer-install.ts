/**
 * Injected first into every test bundle (plugin/test/build.mjs): the bundle runs under the
 * rules of Obsidian's renderer window (`renderer.ts`) from its first line.
 */

import { installRenderer } from "./renderer";

installRenderer();

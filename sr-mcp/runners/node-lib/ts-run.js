// ts-run.js - of sr-mcp's typescript runner: runs the JavaScript ts.js
// emitted for the code (main, by URL in files) as an ES module, through
// the hooks of ts-hooks.mjs, with require as from /workspace (asIf). Only
// once ts.js has closed the verdict fd and applied the call's env.
'use strict';
const Module = require('module');
const url = require('url');

module.exports = (main, asIf, files) => {
  Module.register('./ts-hooks.mjs', url.pathToFileURL(__filename), { data: { main, asIf, files } });
  globalThis.require = Module.createRequire(asIf);
  import(url.pathToFileURL(main).href);  // a rejection: Node's own report, exit 1
};

// oom.js - the start-up module of sr-mcp's javascript runner, bound
// read-only at /run/sr/node/oom.js and loaded before the program (node -r).
//
// An allocation the memory limit refused that the program does not catch
// (a RangeError "Array buffer allocation failed", an ENOMEM error, also
// from a rejected promise) gets a line on stderr at exit naming the job
// (the runner passes its id in SR_MCP_JOB, removed here before the program
// runs), by which sr-mcp knows the run ran out of memory (sr-mcp(1),
// run_code). A full V8 heap needs no help: it ends in V8's own fatal error.
'use strict';
const job = process.env.SR_MCP_JOB || '';
delete process.env.SR_MCP_JOB;
if (/^[0-9a-f]{32}$/.test(job)) {
  let what = '';
  process.on('uncaughtExceptionMonitor', (e) => {
    if (e instanceof RangeError && /Array buffer allocation failed/.test(e.message))
      what = 'RangeError: Array buffer allocation failed';
    else if (e && e.code === 'ENOMEM')
      what = 'ENOMEM';
  });
  process.on('exit', () => {
    if (what)
      require('fs').writeSync(2, `sr-mcp: the program ran out of memory (Node.js: ${what}) [job ${job}]\n`);
  });
}

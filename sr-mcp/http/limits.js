'use strict';
// limits.js - what sr-mcp-http keeps at most, per request, stream, session,
// tenant and in all (sr-mcp-http(1), LIMITS). A client that asks for more
// is refused (400, 413, 429, 503, each with what to do); a client that does
// not read what it asked for loses that response (the connection is cut,
// the rest waits, bounded, for Last-Event-ID), never the server's memory.
const L = module.exports = {
  BATCH: 64,                  // messages in one POST
  ID_CHARS: 256,              // a request id or a progress token, as JSON
  DEPTH: 64,                  // arrays and objects nested in a message (sr-mcp reads no deeper)
  LINE: 4 << 20,              // a message as sr-mcp reads it (its longest line)
  SESSION_INFLIGHT: 64,       // unanswered requests of one session
  TENANT_INFLIGHT: 256,       // ... of one tenant, all its sessions
  STREAM_UNSENT: 4 << 20,     // bytes written to one response and not yet taken by the client
  SESSION_UNSENT: 8 << 20,    // ... to all the responses of one session
  REPLAY: 2 << 20,            // events kept per session for Last-Event-ID
  REPLAY_EVENTS: 1000,        // ... and their count
  JSON_ANSWERS: 8 << 20,      // answers gathered for JSON bodies, one session
  QUEUE: 1 << 20,             // messages waiting for a GET stream, one session
  QUEUE_EVENTS: 1000,
  STDIN: 4 << 20,             // messages written to a session's sr-mcp and not yet read by it
  TENANT_HELD: 64 << 20,      // all of the above, one tenant: past it, its POSTs are 429
  BODIES: 64 << 20,           // request bodies being read, all clients: past it, 503
  PRESSURE_RSS: 256 << 20,    // the front's resident memory past which it sheds load
  HEAP_MB: 384,               // node's --max-old-space-size (the launcher's #! line)
  RSS_BOUND: 512 << 20,       // what the front's resident memory stays under (documented, tested)
  DETACHED_MS: 10 * 60e3,     // a stream no client reads, kept for Last-Event-ID
  ONE_MS: 120e3,              // a stateless request's sr-mcp, its input ended, ends by itself within it
  ANSWER_MS: 5000,            // past sr-mcp's --wait-max, for an answer to come (Retry-After)
};

// SR_MCP_HTTP_LIMITS="NAME=N,...": lower limits (a test's smaller bounds);
// a limit is never raised this way.
for (const kv of (process.env.SR_MCP_HTTP_LIMITS || '').split(',').filter(Boolean)) {
  const [k, v] = kv.split('=');
  if (Object.hasOwn(L, k) && /^\d+$/.test(v || '') && Number(v) < L[k]) L[k] = Number(v);
}

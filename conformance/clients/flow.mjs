// The interop flow: one third-party MCP client (named on the command
// line, see drivers.mjs) drives a real dbeast broker through an agent's
// whole life and meets every error code the contract lists, each of which
// it must surface as dbeast's own code and message (isError with the
// error JSON in a text block, or inside get_request's answer), never as a
// client-side validation error.
//
// Usage: node flow.mjs CLIENT
// Environment (set by cmd/dbeast/interop_test.go):
//   DBEAST_MCP_URL, DBEAST_AGENT_TOKEN        the agent's endpoint and token
//   DBEAST_API_URL, DBEAST_CONSOLE_TOKEN      the console API (the person)
//   DBEAST_CONNECTION_ID                      the agent's connection id
// It prints one line per step and exits non-zero on the first failure.
import { randomUUID } from "node:crypto";
import { drivers } from "./drivers.mjs";

const name = process.argv[2];
const driver = drivers[name];
if (!driver) {
  console.error(`usage: node flow.mjs (${Object.keys(drivers).join("|")})`);
  process.exit(2);
}
const env = (k) => {
  const v = process.env[k];
  if (!v) throw new Error(`${k} is not set`);
  return v;
};
const mcpURL = env("DBEAST_MCP_URL");
const apiURL = env("DBEAST_API_URL").replace(/\/$/, "");
const agentToken = env("DBEAST_AGENT_TOKEN");
const consoleToken = env("DBEAST_CONSOLE_TOKEN");
const connectionID = env("DBEAST_CONNECTION_ID");

const fail = (msg) => {
  throw new Error(msg);
};
const step = (msg) => console.log(`${name}: ${msg}`);
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// consoleAPI is the person's side: the console API with its bearer token.
async function consoleAPI(method, p, body) {
  const res = await fetch(apiURL + p, {
    method,
    headers: { Authorization: `Bearer ${consoleToken}`, "Content-Type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  if (!res.ok) fail(`console ${method} ${p}: ${res.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

const connected = await driver.connect(mcpURL, agentToken);

// dbeast limits each connection to 20 HTTP requests per second (burst 20);
// an agent polls at poll_after_ms, so the flow paces its calls too, at
// most one every 120 ms (a client may send more than one HTTP request per
// call).
let last = 0;
const c = {
  ...connected,
  call: async (tool, args) => {
    const wait = last + 120 - Date.now();
    if (wait > 0) await sleep(wait);
    last = Date.now();
    return connected.call(tool, args);
  },
};

// ok calls a tool that must succeed and returns its structured content.
async function ok(tool, args) {
  let r;
  try {
    r = await c.call(tool, args);
  } catch (e) {
    fail(`${tool}: the client rejected the result: ${e.message}`);
  }
  if (r.isError) fail(`${tool}: unexpected tool error ${r.text}`);
  if (!r.structured) fail(`${tool}: no structured content`);
  return r.structured;
}

// toolError calls a tool that must fail with code and returns the message.
// The error must reach the caller as dbeast sent it: isError and the
// {"error":{"code","message"}} JSON in a text block.
async function toolError(tool, args, code, message) {
  let r;
  try {
    r = await c.call(tool, args);
  } catch (e) {
    fail(`${tool}: want tool error ${code}, the client threw instead: ${e.message}`);
  }
  if (!r.isError) fail(`${tool}: want tool error ${code}, got success ${JSON.stringify(r.structured)}`);
  let body;
  try {
    body = JSON.parse(r.text);
  } catch {
    fail(`${tool}: error text is not dbeast's JSON: ${r.text}`);
  }
  checkError(`${tool} error`, body.error, code, message);
  step(`${code} surfaced by ${tool}: ${body.error.message}`);
}

// checkError checks one error object against the wanted code and, when
// given, the exact static message.
function checkError(what, err, code, message) {
  if (!err || err.code !== code) fail(`${what}: code ${JSON.stringify(err)}, want ${code}`);
  if (typeof err.message !== "string" || err.message === "" || err.message.length > 300) fail(`${what}: bad message ${JSON.stringify(err.message)}`);
  if (message instanceof RegExp ? !message.test(err.message) : message && err.message !== message) {
    fail(`${what}: message ${JSON.stringify(err.message)}, want ${message}`);
  }
}

// poll calls get_request until the request leaves pending/running (or,
// with until, reaches that status).
async function poll(tok, id, until) {
  for (let i = 0; i < 400; i++) {
    const r = await ok("get_request", { session_token: tok, request_id: id });
    if (until ? r.status === until : r.status !== "pending" && r.status !== "running") return r;
    await sleep(Math.min(r.poll_after_ms || 100, 250));
  }
  fail(`request ${id} did not settle`);
}

// inner checks a request's answer for an error reported inside it.
function inner(what, r, status, code, message) {
  if (r.status !== status) fail(`${what}: status ${r.status}, want ${status} (${JSON.stringify(r.error)})`);
  checkError(what, r.error, code, message);
  step(`${code} surfaced inside ${what}: ${r.error.message}`);
}

async function pendingIDs() {
  const list = await consoleAPI("GET", "/requests?status=pending");
  return list.requests.map((r) => r.id);
}

try {
  // Connect and discover.
  if (c.version() !== driver.version) fail(`negotiated ${c.version()}, want ${driver.version}`);
  step(`negotiated ${c.version()}`);
  const tools = (await c.listTools()).map((t) => t.name).sort();
  const want = ["begin_session", "cancel_request", "describe_table", "end_session", "get_request", "list_catalog",
    "list_tables", "query_sql", "read_open_file", "read_table", "request_sql"];
  if (JSON.stringify(tools) !== JSON.stringify(want)) fail(`tools ${tools}`);
  step(`listed ${tools.length} tools`);

  // An unknown session token: session_expired, the agent can recover.
  await toolError("list_catalog", { session_token: "dbs_" + "A".repeat(43) }, "session_expired",
    "the session is not valid; begin a new session");

  const begun = await ok("begin_session", { label: `interop ${name}` });
  const tok = begun.session_token;
  const cat = await ok("list_catalog", { session_token: tok });
  if (cat.sources.length !== 1) fail(`catalog ${JSON.stringify(cat)}`);
  const src = cat.sources[0].source_id;
  step(`began a session; catalog lists ${cat.sources[0].alias}`);

  // invalid_input names the offending argument.
  await toolError("query_sql", { session_token: tok, source_id: src, request_key: "not-a-uuid", sql: "SELECT 1" },
    "invalid_input", /request_key/);
  await toolError("query_sql", { session_token: tok, source_id: src, request_key: randomUUID() }, "invalid_input", /\bsql\b/);

  // A source id that is not shared (or does not exist): resource_unavailable.
  await toolError("list_tables", { session_token: tok, source_id: "src_" + "0".repeat(32), request_key: randomUUID() },
    "resource_unavailable", "the resource is not available");
  await toolError("get_request", { session_token: tok, request_id: "req_" + "0".repeat(32) },
    "resource_unavailable", "the resource is not available");

  // The verifier refuses: unsupported_safe_read naming the function.
  await toolError("query_sql", { session_token: tok, source_id: src, request_key: randomUUID(),
    sql: "SELECT load_extension('x') FROM main.products" }, "unsupported_safe_read", /load_extension/);
  await toolError("query_sql", { session_token: tok, source_id: src, request_key: randomUUID(),
    sql: "SELECT name FROM main.products WHERE" }, "unsupported_safe_read", /offset \d+/);

  // query_sql → pending → the person approves once → poll → completed.
  const key = randomUUID();
  const sql = "SELECT name, price_cents FROM main.products ORDER BY price_cents DESC LIMIT 3";
  const sub = await ok("query_sql", { session_token: tok, source_id: src, request_key: key, sql });
  if (sub.status !== "pending") fail(`query_sql: ${JSON.stringify(sub)}`);
  if (!(await pendingIDs()).includes(sub.request_id)) fail("the request is not in the console's pending list");
  await consoleAPI("POST", `/requests/${sub.request_id}/approve`, { scope: "once" });
  const done = await poll(tok, sub.request_id);
  if (done.status !== "completed" || done.result.rows.length !== 3) fail(`approved query: ${JSON.stringify(done)}`);
  step("query_sql approved in the console and polled to completed");

  // The same key with other parameters: request_conflict.
  await toolError("query_sql", { session_token: tok, source_id: src, request_key: key, sql: sql.replace("3", "2") },
    "request_conflict", "the request key was already used with different parameters");

  // Standing read access covers query_sql: it completes inline.
  await consoleAPI("PUT", "/sharing", { connection_id: connectionID, source_id: src, database_level: "read", tables: [] });
  // It never waits for the person; the broker answers once it completes,
  // waiting a moment at most, so on a loaded machine it may still be
  // running in the answer.
  let inline = await ok("query_sql", { session_token: tok, source_id: src, request_key: randomUUID(),
    sql: "SELECT count(*) AS n FROM main.products" });
  const inlineStatus = inline.status;
  if (inlineStatus === "running") inline = await poll(tok, inline.request_id);
  if (!["completed", "running"].includes(inlineStatus) || inline.status !== "completed" || inline.result.rows.length !== 1) {
    fail(`covered query: ${inlineStatus} then ${JSON.stringify(inline)}`);
  }
  step(`query_sql covered by sharing completed without approval (${inlineStatus} in the answer)`);
  await consoleAPI("PUT", "/sharing", { connection_id: connectionID, source_id: src, database_level: "ask", tables: [] });

  // Four pending requests fill the session's quota; a fifth is limit_exceeded.
  const pend = [];
  for (let i = 0; i < 4; i++) {
    const r = await ok("query_sql", { session_token: tok, source_id: src, request_key: randomUUID(),
      sql: `SELECT name FROM main.products ORDER BY id LIMIT ${i + 1}` });
    if (r.status !== "pending") fail(`pending #${i}: ${JSON.stringify(r)}`);
    pend.push(r.request_id);
  }
  await toolError("query_sql", { session_token: tok, source_id: src, request_key: randomUUID(),
    sql: "SELECT name FROM main.products ORDER BY id LIMIT 9" }, "limit_exceeded");

  // The agent cancels one: cancelled, inside the answer.
  inner("cancel_request", await ok("cancel_request", { session_token: tok, request_id: pend[0] }), "cancelled", "cancelled",
    "the operation was cancelled");
  // The person denies one: permission_denied, inside get_request.
  await consoleAPI("POST", `/requests/${pend[1]}/deny`, {});
  inner("get_request", await poll(tok, pend[1]), "denied", "permission_denied", "access was not granted");
  for (const id of pend.slice(2)) await ok("cancel_request", { session_token: tok, request_id: id });

  // Full SQL that fails on the server: execution_failed, inside get_request.
  const bad = await ok("request_sql", { session_token: tok, source_id: src, request_key: randomUUID(),
    sql: "SELECT * FROM main.no_such_table" });
  await consoleAPI("POST", `/requests/${bad.request_id}/approve`, { scope: "once" });
  inner("get_request", await poll(tok, bad.request_id), "failed", "execution_failed");

  // A full SQL statement cancelled while it runs: outcome_unknown (it may
  // have taken effect), inside the answer.
  const long = await ok("request_sql", { session_token: tok, source_id: src, request_key: randomUUID(),
    sql: "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c LIMIT 1000000000) SELECT count(*) FROM c" });
  await consoleAPI("POST", `/requests/${long.request_id}/approve`, { scope: "once" });
  await poll(tok, long.request_id, "running");
  inner("cancel_request", await ok("cancel_request", { session_token: tok, request_id: long.request_id }),
    "outcome_unknown", "outcome_unknown", "the statement was sent; whether it took effect is unknown");

  await ok("end_session", { session_token: tok });
  // After end_session the token is gone.
  await toolError("get_request", { session_token: tok, request_id: sub.request_id }, "session_expired");
  step("ended the session");
  console.log(`${name}: PASS`);
} catch (e) {
  console.error(`${name}: FAIL: ${e.message}`);
  process.exitCode = 1;
} finally {
  await c.close().catch(() => {});
}

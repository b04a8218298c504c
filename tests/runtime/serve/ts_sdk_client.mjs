// Official TypeScript MCP SDK clients over Streamable HTTP, for tests/runtime/serve/test_ts_sdk_client.py.
//
//   node ts_sdk_client.mjs URL PLAN [PLAN ...]
//
// Each PLAN is a JSON object, one client session against URL:
//   sdk        "client" (@modelcontextprotocol/client, v2) or "sdk" (@modelcontextprotocol/sdk, v1)
//   revision   "2025-11-25" (the initialize handshake), "2026-07-28" (pinned: server/discover, stateless)
//              or "auto" (v2 only: probe with server/discover, fall back to initialize)
//   token      a bearer token to send (optional)
//   resume     {sessionId, protocolVersion}: a transport resuming a session, which skips initialize (optional)
//   calls      [{name, arguments}]: the tools to call after tools/list
//
// The sessions run at once (one process: the SDKs load once, and the server sees them interleaved).
// For each PLAN, in order, one line of JSON on stdout: the negotiated protocol version and era, the
// session id the server issued (null for none), the tools listed and their output schemas, each
// call's result, and every HTTP exchange (JSON-RPC method, status, the session and version headers
// both ways); or, when the session failed, {"error": {name, message, status, code}, "wire": [...]}.
// Exits 1 when any session failed.
//
// The packages are found through NODE_PATH (the test points it at .venv/node/node_modules), which
// only require() consults: they are loaded as CommonJS, which both ship.

import { createRequire } from "node:module";

const require = createRequire(import.meta.url);
// stdout holds the reports alone: the SDKs' own notices (console.log and friends) go to stderr.
for (const level of ["log", "info", "debug", "warn"]) console[level] = console.error;
const [url, ...plans] = process.argv.slice(2);

function recorder(wire) {
  return async (input, init) => {
    const response = await fetch(input, init);
    const sent = new Headers(init?.headers);
    const body = typeof init?.body === "string" ? JSON.parse(init.body) : null;
    wire.push({
      http: init?.method ?? "GET",
      method: body?.method ?? null,
      status: response.status,
      sentSessionId: sent.get("mcp-session-id"),
      sentProtocolVersion: sent.get("mcp-protocol-version"),
      sessionId: response.headers.get("mcp-session-id"),
    });
    return response;
  };
}

async function open(plan, wire) {
  const options = { fetch: recorder(wire), ...plan.resume };
  if (plan.token !== undefined) {
    options.requestInit = { headers: { Authorization: `Bearer ${plan.token}` } };
  }
  const info = { name: "toolproof-ts-sdk-test", version: "1.0.0" };
  if (plan.sdk === "sdk") {
    const { Client } = require("@modelcontextprotocol/sdk/client/index.js");
    const { StreamableHTTPClientTransport } = require("@modelcontextprotocol/sdk/client/streamableHttp.js");
    if (plan.revision !== "2025-11-25") throw new Error(`@modelcontextprotocol/sdk speaks no ${plan.revision}`);
    const transport = new StreamableHTTPClientTransport(new URL(url), options);
    const client = new Client(info);
    await client.connect(transport);
    return { client, transport, version: () => transport.protocolVersion, era: () => "legacy" };
  }
  const { Client, StreamableHTTPClientTransport } = require("@modelcontextprotocol/client");
  const mode = { "2025-11-25": "legacy", auto: "auto" }[plan.revision] ?? { pin: plan.revision };
  const transport = new StreamableHTTPClientTransport(new URL(url), options);
  const client = new Client(info, { versionNegotiation: { mode } });
  await client.connect(transport);
  return {
    client,
    transport,
    version: () => client.getNegotiatedProtocolVersion() ?? transport.protocolVersion,
    era: () => client.getProtocolEra(),
  };
}

async function session(plan, wire) {
  const { client, transport, version, era } = await open(plan, wire);
  try {
    const listed = await client.listTools();
    const outputSchemas = Object.fromEntries(listed.tools.map((tool) => [tool.name, tool.outputSchema ?? null]));
    const results = [];
    for (const call of plan.calls ?? []) {
      const result = await client.callTool({ name: call.name, arguments: call.arguments });
      results.push({
        content: result.content,
        structuredContent: result.structuredContent ?? null,
        isError: result.isError ?? false,
        _meta: result._meta ?? null,
      });
    }
    return {
      protocolVersion: version() ?? null,
      era: era() ?? null,
      sessionId: transport.sessionId ?? null,
      names: listed.tools.map((tool) => tool.name),
      outputSchemas,
      results,
      wire,
    };
  } finally {
    await client.close();
  }
}

async function outcome(planText) {
  const wire = [];
  try {
    return await session(JSON.parse(planText), wire);
  } catch (error) {
    process.exitCode = 1;
    const described = {
      name: error?.constructor?.name ?? typeof error,
      message: String(error?.message ?? error),
      // v2's SdkHttpError carries the HTTP status as `status`, v1's StreamableHTTPError as `code`.
      status: error?.status ?? (typeof error?.code === "number" ? error.code : null),
      code: error?.code ?? null,
    };
    return { error: described, wire };
  }
}

const outcomes = await Promise.all(plans.map(outcome));
process.stdout.write(outcomes.map((each) => `${JSON.stringify(each)}\n`).join(""));

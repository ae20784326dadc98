// Adapters over third-party MCP clients. Each driver connects to dbeast's
// MCP endpoint with the agent's bearer token and offers the same small
// surface to flow.mjs:
//
//   version()            the negotiated protocol version, as the client saw it
//   listTools()          the tools array
//   call(name, args)     {isError, structured, text} of a tools/call result;
//                        it throws when the client itself rejected the result
//   close()
//
// A client that throws on a result (an output-schema or resultType check)
// is exactly what the suite exists to catch: flow.mjs reports it as a
// failure naming the client.
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));

function textOf(res) {
  const t = (res.content || []).find((c) => c.type === "text");
  return t ? t.text : "";
}

// sdk1 is @modelcontextprotocol/sdk 1.x, the client most hosts embed.
async function sdk1(url, token) {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StreamableHTTPClientTransport } = await import("@modelcontextprotocol/sdk/client/streamableHttp.js");
  const client = new Client({ name: "dbeast-interop-sdk1", version: "1" });
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    requestInit: { headers: { Authorization: `Bearer ${token}` } },
  });
  await client.connect(transport);
  return {
    version: () => transport.protocolVersion,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args) => {
      const res = await client.callTool({ name, arguments: args });
      return { isError: !!res.isError, structured: res.structuredContent, text: textOf(res) };
    },
    close: () => client.close(),
  };
}

// mcpRemote runs Claude Desktop's route to dbeast: the exact command,
// arguments and environment of dbeast's Claude Desktop snippet (given in
// DBEAST_DESKTOP_SNIPPET), i.e. `npx -y mcp-remote URL --header …`, which
// npx resolves to the pinned mcp-remote in this directory, driven over
// stdio by the 1.x SDK as Claude Desktop would. The token comes from the
// snippet, not from the caller.
async function mcpRemote() {
  const { Client } = await import("@modelcontextprotocol/sdk/client/index.js");
  const { StdioClientTransport } = await import("@modelcontextprotocol/sdk/client/stdio.js");
  const snippet = JSON.parse(process.env.DBEAST_DESKTOP_SNIPPET || "null");
  const server = snippet?.mcpServers?.dbeast;
  if (!server) throw new Error("DBEAST_DESKTOP_SNIPPET has no mcpServers.dbeast");
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: { ...process.env, HOME: process.env.INTEROP_HOME || process.env.HOME, ...server.env },
    cwd: here,
    stderr: "ignore",
  });
  let negotiated;
  transport.setProtocolVersion = (v) => (negotiated = v);
  const client = new Client({ name: "dbeast-interop-mcp-remote", version: "1" });
  await client.connect(transport);
  return {
    version: () => negotiated,
    listTools: async () => (await client.listTools()).tools,
    call: async (name, args) => {
      const res = await client.callTool({ name, arguments: args });
      return { isError: !!res.isError, structured: res.structuredContent, text: textOf(res) };
    },
    close: () => client.close(),
  };
}

// v2 is @modelcontextprotocol/client 2.x in one negotiation mode: legacy
// (initialize) or auto (server/discover first, 2026-07-28 when offered).
function v2(mode) {
  return async (url, token) => {
    const { Client, StreamableHTTPClientTransport } = await import("@modelcontextprotocol/client");
    const client = new Client({ name: `dbeast-interop-v2-${mode}`, version: "1" }, { versionNegotiation: { mode } });
    const transport = new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    return {
      version: () => client.getNegotiatedProtocolVersion(),
      listTools: async () => (await client.listTools()).tools,
      call: async (name, args) => {
        const res = await client.callTool({ name, arguments: args });
        return { isError: !!res.isError, structured: res.structuredContent, text: textOf(res) };
      },
      close: () => client.close(),
    };
  };
}

// inspector is MCP Inspector's CLI (`mcp-inspector --cli`), one process
// per method as a person or a script would run it, in one protocol era.
// HOME points at a scratch directory (the CLI keeps a catalog there).
function inspector(era) {
  const bin = path.join(here, "node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js");
  return async (url, token) => {
    const run = (extra) =>
      new Promise((resolve, reject) => {
        const args = [bin, "--cli", "--protocol-era", era, "--format", "json", "-q", "--server-url", url,
          "--header", `Authorization: Bearer ${token}`, ...extra];
        const p = spawn(process.execPath, args, { env: { ...process.env, HOME: process.env.INTEROP_HOME || process.env.HOME } });
        let out = "", err = "";
        p.stdout.on("data", (d) => (out += d));
        p.stderr.on("data", (d) => (err += d));
        p.on("error", reject);
        p.on("close", (code) => {
          let parsed;
          try {
            parsed = JSON.parse(out || err);
          } catch {
            return reject(new Error(`inspector exited ${code}: ${(out + err).slice(0, 500)}`));
          }
          resolve({ code, parsed });
        });
      });
    const must = async (extra) => {
      const { parsed } = await run(extra);
      if (parsed.error) throw new Error(`inspector: ${JSON.stringify(parsed.error)}`);
      return parsed.result ?? parsed;
    };
    const init = await must(["--method", "initialize"]);
    return {
      version: () => init.protocolVersion,
      listTools: async () => (await must(["--method", "tools/list"])).tools,
      call: async (name, args) => {
        const res = await must(["--method", "tools/call", "--tool-name", name, "--tool-args-json", JSON.stringify(args)]);
        return { isError: !!res.isError, structured: res.structuredContent, text: textOf(res) };
      },
      close: async () => {},
    };
  };
}

// drivers maps a client name to its connect function and the protocol
// version it must negotiate with dbeast.
export const drivers = {
  "sdk1": { connect: sdk1, version: "2025-11-25" },
  "v2-legacy": { connect: v2("legacy"), version: "2025-11-25" },
  "v2-auto": { connect: v2("auto"), version: "2026-07-28" },
  "inspector-legacy": { connect: inspector("legacy"), version: "2025-11-25" },
  "inspector-auto": { connect: inspector("auto"), version: "2026-07-28" },
  "mcp-remote": { connect: mcpRemote, version: "2025-11-25" },
};

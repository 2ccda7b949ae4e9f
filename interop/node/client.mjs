// Drives presa's `library` example server (crates/presa/examples/library) with an independent
// MCP client from the npm registry, and prints what it saw as one JSON object on stdout.
// crates/presa/tests/it/interop_*.rs run it and assert on that object; this script checks nothing
// itself, it only fails (exit 1) when a step it needs throws.
//
//   node client.mjs SDK ERA --stdio COMMAND [ARGS...]
//   node client.mjs SDK ERA --http URL
//
// SDK is `v1` (@modelcontextprotocol/sdk, initialize era only) or `v2` (@modelcontextprotocol/
// client, both eras). ERA is `2025` (the `initialize` handshake, the newest revision the client
// offers), `2026` (v2 only: pinned to 2026-07-28, discovered with `server/discover`, no
// fallback) or `auto` (v2 only: probes with `server/discover`, falls back to `initialize`).

import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Client as ClientV2, StreamableHTTPClientTransport as HttpV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioV2 } from '@modelcontextprotocol/client/stdio';

const PROTOCOL_VERSION_KEY = 'io.modelcontextprotocol/protocolVersion';

const [sdk, era, kind, ...target] = process.argv.slice(2);
if (!['v1', 'v2'].includes(sdk) || !['2025', '2026', 'auto'].includes(era) || (sdk === 'v1' && era !== '2025')) {
    fail(`usage: node client.mjs v1|v2 2025|2026|auto --stdio COMMAND [ARGS...] | --http URL (got ${process.argv.slice(2)})`);
}

const info = { name: `interop-${sdk}`, version: '1.0.0' };
const client =
    sdk === 'v1'
        ? new ClientV1(info)
        : new ClientV2(info, {
              versionNegotiation: { mode: { 2025: 'legacy', 2026: { pin: '2026-07-28' }, auto: 'auto' }[era] }
          });

let transport;
if (kind === '--stdio') {
    const [command, ...args] = target;
    const Stdio = sdk === 'v1' ? StdioV1 : StdioV2;
    transport = new Stdio({ command, args, stderr: 'inherit' });
} else if (kind === '--http') {
    const Http = sdk === 'v1' ? HttpV1 : HttpV2;
    transport = new Http(new URL(target[0]));
} else {
    fail(`unknown transport ${kind}`);
}

// Record the wire: every message the client sends, and every one it receives.
const sent = [];
const received = [];
const send = transport.send.bind(transport);
transport.send = (message, options) => {
    sent.push(message);
    return send(message, options);
};
let onmessage;
Object.defineProperty(transport, 'onmessage', {
    configurable: true,
    get: () => onmessage && (message => (received.push(message), onmessage(message))),
    set: handler => (onmessage = handler)
});

/**
 * The outcome of a call that may fail: its result, or the error the SDK raised together with
 * the JSON-RPC error that came over the wire (an SDK may map codes, e.g. -32002 to -32602).
 */
async function attempt(call) {
    const before = received.length;
    try {
        return { result: await call() };
    } catch (error) {
        const wire = received.slice(before).find(message => message.error !== undefined)?.error;
        return { error: { code: error.code, message: String(error.message) }, wire };
    }
}

await client.connect(transport);
const report = { sdk, era };
report.serverInfo = client.getServerVersion();

report.tools = (await client.listTools()).tools;
report.add = await client.callTool({ name: 'add', arguments: { numbers: [1, 2, 3] } });
report.addInvalid = await client.callTool({ name: 'add', arguments: { numbers: 'one, two' } });
report.logo = await client.callTool({ name: 'logo', arguments: {} });
report.unknownTool = await attempt(() => client.callTool({ name: 'no-such-tool', arguments: {} }));

report.resources = (await client.listResources()).resources;
report.readme = await client.readResource({ uri: 'file:///readme.txt' });
report.templates = (await client.listResourceTemplates()).resourceTemplates;
report.ada = await client.readResource({ uri: 'people://ada' });
report.nobody = await attempt(() => client.readResource({ uri: 'people://nobody' }));

report.prompts = (await client.listPrompts()).prompts;
report.introduce = await client.getPrompt({ name: 'introduce', arguments: { id: 'ada' } });
report.completion = (
    await client.complete({ ref: { type: 'ref/prompt', name: 'introduce' }, argument: { name: 'id', value: 'a' } })
).completion;

report.protocolVersion =
    sdk === 'v2'
        ? client.getNegotiatedProtocolVersion()
        : received.find(m => m.result?.protocolVersion !== undefined)?.result.protocolVersion;

// An initialize-era Streamable HTTP session is ended with DELETE, as a well-behaved client does.
if (kind === '--http' && era === '2025') {
    report.sessionId = transport.sessionId;
    await transport.terminateSession();
}
await client.close();

report.sent = sent.map(message => ({
    method: message.method,
    request: message.id !== undefined,
    protocolVersionMeta: message.params?._meta?.[PROTOCOL_VERSION_KEY]
}));
console.log(JSON.stringify(report));

function fail(message) {
    console.error(`client.mjs: ${message}`);
    process.exit(2);
}

// An MCP server built on the TypeScript SDK v2 (@modelcontextprotocol/server), which serves
// both protocol eras from one factory: the 2025 `initialize` handshake and the stateless
// 2026-07-28 revision. presa's client drives it in crates/presa/tests/it/interop_*.rs.
//
//   node sdk-v2-server.mjs stdio   serves on stdin/stdout
//   node sdk-v2-server.mjs http    serves Streamable HTTP at /mcp on 127.0.0.1, a free port;
//                                  the first stdout line is `listening http://127.0.0.1:PORT/mcp`
//
// Every answer is computed by the SDK's own McpServer; the `era` tool reports which era the
// SDK decided it is serving, so the tests can tell that the era they asked for is the one the
// independent server saw.

import { createServer } from 'node:http';

import { toNodeHandler } from '@modelcontextprotocol/node';
import { createMcpHandler, fromJsonSchema, McpServer } from '@modelcontextprotocol/server';
import { serveStdio } from '@modelcontextprotocol/server/stdio';

/** One server instance; the SDK calls this per connection (stdio) or per request (HTTP). */
function build(ctx) {
    const server = new McpServer({ name: 'typescript-sdk-v2-interop', version: '1.0.0' });

    server.registerTool(
        'echo',
        {
            description: 'Echoes the message back.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { message: { type: 'string' } },
                required: ['message']
            })
        },
        async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] })
    );

    server.registerTool(
        'multiply',
        {
            description: 'Multiplies two numbers; the product is structured content.',
            inputSchema: fromJsonSchema({
                type: 'object',
                properties: { a: { type: 'number' }, b: { type: 'number' } },
                required: ['a', 'b']
            }),
            outputSchema: fromJsonSchema({
                type: 'object',
                properties: { product: { type: 'number' } },
                required: ['product']
            })
        },
        async ({ a, b }) => {
            const output = { product: a * b };
            return { content: [{ type: 'text', text: JSON.stringify(output) }], structuredContent: output };
        }
    );

    server.registerTool('era', { description: 'Which protocol era the SDK is serving.' }, async () => ({
        content: [{ type: 'text', text: ctx.era }]
    }));

    server.registerResource('motto', 'memo://motto', { mimeType: 'text/plain' }, async uri => ({
        contents: [{ uri: uri.href, mimeType: 'text/plain', text: 'Interoperate or die.' }]
    }));

    server.registerPrompt(
        'greet',
        {
            description: 'Greets someone.',
            argsSchema: fromJsonSchema({
                type: 'object',
                properties: { name: { type: 'string' } },
                required: ['name']
            })
        },
        ({ name }) => ({
            messages: [{ role: 'user', content: { type: 'text', text: `Say hello to ${name}.` } }]
        })
    );

    return server;
}

const mode = process.argv[2];
if (mode === 'stdio') {
    serveStdio(build, { onerror: error => console.error(`sdk-v2-server: ${error}`) });
} else if (mode === 'http') {
    const handler = toNodeHandler(createMcpHandler(build));
    const http = createServer((req, res) => {
        if (new URL(req.url ?? '/', 'http://127.0.0.1').pathname !== '/mcp') {
            res.writeHead(404).end();
            return;
        }
        void handler(req, res);
    });
    http.listen(0, '127.0.0.1', () => {
        console.log(`listening http://127.0.0.1:${http.address().port}/mcp`);
    });
    // The test ends this process by closing its stdin (or killing it).
    process.stdin.on('end', () => process.exit(0)).resume();
} else {
    console.error('usage: node sdk-v2-server.mjs stdio|http');
    process.exit(2);
}

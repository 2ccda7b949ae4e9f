// The test host of presa's MCP Apps test, bundled for the browser by apps-browser.mjs: the
// TypeScript SDK's client on Streamable HTTP, and the app-bridge of @modelcontextprotocol/
// ext-apps rendering a tool's page in a sandboxed iframe. The page's own calls go through the
// bridge to the server.

import { AppBridge, PostMessageTransport, getToolUiResourceUri } from '@modelcontextprotocol/ext-apps/app-bridge';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';

const APPS = 'io.modelcontextprotocol/ui';
const host = { name: 'presa-test-host', version: '1.0.0' };
const params = new URLSearchParams(location.search);

const client = new Client(host, { capabilities: { extensions: { [APPS]: { mimeTypes: ['text/html;profile=mcp-app'] } } } });
await client.connect(new StreamableHTTPClientTransport(new URL(params.get('mcp'))));
const { tools } = await client.listTools();
const tool = tools.find(t => t.name === params.get('tool'));
const uri = getToolUiResourceUri(tool);
const result = client.callTool({ name: tool.name, arguments: {} });
const { contents } = await client.readResource({ uri });

const iframe = document.createElement('iframe');
iframe.id = 'app';
iframe.setAttribute('sandbox', 'allow-scripts');
document.body.append(iframe);
const capabilities = { serverTools: client.getServerCapabilities()?.tools ?? {} };
const bridge = new AppBridge(client, host, capabilities, { hostContext: {} });
bridge.oninitialized = async () => {
    await bridge.sendToolInput({ arguments: {} });
    await bridge.sendToolResult(await result);
};
await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
// after connect, so that the page's `ui/initialize` finds the bridge listening
iframe.srcdoc = contents[0].text;
// what a host asks of a page it shows, each to be answered: a ping, then the teardown it sends
// before it removes the page
window.hostRequests = async () => {
    await bridge.request({ method: 'ping' });
    await bridge.teardownResource({});
    return 'answered';
};
document.body.dataset.ready = 'true';

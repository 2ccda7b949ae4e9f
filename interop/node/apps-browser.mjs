// Runs presa's MCP Apps example in a real browser: serves a host page (apps-host.mjs, bundled
// here with esbuild) on 127.0.0.1, opens it in Debian's headless Chromium through puppeteer-core,
// and reports, as one JSON object on stdout, the text the app's page showed with the tool's
// result and again after it called its second tool through the host. crates/presa/tests/it/
// apps.rs runs it and asserts on that object.
//
//   node apps-browser.mjs MCP_URL TOOL [SCREENSHOT.png]

import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import puppeteer from 'puppeteer-core';

const [mcp, tool, screenshot] = process.argv.slice(2);
if (!mcp || !tool) {
    console.error('usage: node apps-browser.mjs MCP_URL TOOL [SCREENSHOT.png]');
    process.exit(2);
}

// the whole run's deadline: a browser that hangs (launching, closing) ends the run, killed
let browser;
const DEADLINE_MS = 120000;
setTimeout(() => {
    console.error(`no report within ${DEADLINE_MS} ms: the browser is killed`);
    browser?.process()?.kill('SIGKILL');
    process.exit(3);
}, DEADLINE_MS).unref();

const out = mkdtempSync(join(tmpdir(), 'presa-apps-'));
await build({
    entryPoints: [new URL('./apps-host.mjs', import.meta.url).pathname],
    bundle: true,
    format: 'esm',
    platform: 'browser',
    outfile: join(out, 'host.js'),
    logLevel: 'error'
});
const pages = {
    '/host.html': ['text/html', '<!doctype html><meta charset="utf-8"><title>host</title><script type="module" src="/host.js"></script>'],
    '/host.js': ['text/javascript', readFileSync(join(out, 'host.js'))]
};
const server = createServer((request, response) => {
    const [type, body] = pages[new URL(request.url, 'http://x').pathname] ?? [];
    response.writeHead(type ? 200 : 404, type ? { 'content-type': type } : {});
    response.end(body);
});
await new Promise(resolve => server.listen(0, '127.0.0.1', resolve));

// the host page and the MCP endpoint are two loopback origins: the test browser lets the page
// reach the endpoint without CORS (presa's Origin guard admits loopback origins)
browser = await puppeteer.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    headless: true,
    args: ['--no-sandbox', '--disable-web-security', '--disable-gpu', `--user-data-dir=${join(out, 'profile')}`]
});
const report = {};
try {
    const page = await browser.newPage();
    page.on('pageerror', error => (report.pageErrors ??= []).push(String(error)));
    const url = `http://127.0.0.1:${server.address().port}/host.html?mcp=${encodeURIComponent(mcp)}&tool=${encodeURIComponent(tool)}`;
    await page.goto(url);
    await page.waitForSelector('body[data-ready=true]', { timeout: 30000 });
    const frame = await (await page.waitForSelector('#app')).contentFrame();
    const sky = () => frame.$eval('#sky', element => element.textContent);
    await frame.waitForFunction(() => !document.getElementById('sky').textContent.startsWith('Waiting'), { timeout: 30000 });
    report.shown = await sky();
    await frame.click('#refresh');
    await frame.waitForFunction(() => document.getElementById('sky').textContent.startsWith('Refreshed'), { timeout: 30000 });
    report.refreshed = await sky();
    report.hostRequests = await page.evaluate(() => window.hostRequests());
    if (screenshot) {
        await page.screenshot({ path: screenshot, fullPage: true });
    }
} finally {
    await browser.close();
    server.close();
    rmSync(out, { recursive: true, force: true });
}
console.log(JSON.stringify(report));

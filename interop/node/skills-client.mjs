// Drives presa's `skills` example server (crates/presa/examples/skills.rs) over Streamable HTTP
// with the TypeScript SDK's client (@modelcontextprotocol/client, v2), as a host of the Skills
// extension (SEP-2640) does: it reads the server's extension declaration, lists the skills with
// `skills/list`, and reads each `SKILL.md` through `resources/read`. It prints what it saw as
// one JSON object on stdout, with the SHA-256 of each text it read; crates/presa/tests/it/
// interop_http.rs asserts on it. This script checks nothing itself.
//
//   node skills-client.mjs 2025|2026 URL

import { createHash } from 'node:crypto';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { z } from 'zod';

const SKILLS = 'io.modelcontextprotocol/skills';

const [era, url] = process.argv.slice(2);
if (!['2025', '2026'].includes(era) || !url) {
    console.error(`usage: node skills-client.mjs 2025|2026 URL (got ${process.argv.slice(2)})`);
    process.exit(2);
}

const client = new Client(
    { name: 'interop-skills', version: '1.0.0' },
    { versionNegotiation: { mode: era === '2025' ? 'legacy' : { pin: '2026-07-28' } } }
);
const transport = new StreamableHTTPClientTransport(new URL(url));
await client.connect(transport);

const report = { era };
report.declared = client.getServerCapabilities()?.extensions?.[SKILLS] ?? null;

const ListSkillsResult = z.looseObject({ skills: z.array(z.looseObject({ uri: z.string() })) });
const listed = await client.request({ method: 'skills/list', params: {} }, ListSkillsResult);
report.skills = listed.skills;

report.read = [];
for (const skill of listed.skills) {
    const result = await client.readResource({ uri: skill.uri });
    const text = result.contents[0]?.text ?? '';
    report.read.push({
        uri: skill.uri,
        mimeType: result.contents[0]?.mimeType,
        digest: `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`,
        size: Buffer.byteLength(text, 'utf8'),
        text
    });
}

if (era === '2025') {
    await transport.terminateSession();
}
await client.close();
console.log(JSON.stringify(report));

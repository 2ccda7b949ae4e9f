// Runs the reference server @modelcontextprotocol/server-everything on Streamable HTTP, unchanged
// except for where it listens: its own entry point (`streamableHttp`, built on the TypeScript
// SDK v1) listens on $PORT on every interface and prints only the port it was asked for, so this
// launcher makes that listen happen on 127.0.0.1 with a free port, and prints
// `listening http://127.0.0.1:PORT/mcp` once it is listening (the server's own log lines go to
// stdout too; the tests read up to this one).
//
//   node everything-http.mjs
//
// The process exits when its stdin closes, so it never outlives the test that started it.

import http from 'node:http';

const listen = http.Server.prototype.listen;
http.Server.prototype.listen = function (_port, ...rest) {
    const callback = rest.find(argument => typeof argument === 'function');
    this.once('listening', () => console.log(`listening http://127.0.0.1:${this.address().port}/mcp`));
    return listen.call(this, 0, '127.0.0.1', callback);
};

process.stdin.on('end', () => process.exit(0)).resume();
process.argv.splice(2, Infinity, 'streamableHttp');
await import('@modelcontextprotocol/server-everything/dist/index.js');

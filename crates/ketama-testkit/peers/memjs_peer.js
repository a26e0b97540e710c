// Asks npm memjs (1.3.2, installed into target/memjs-peer by scripts/deps.sh)
// where keys go: `memjs.Client.create(servers, { failover: true })` and its
// own `server(key)`, which hashes the key (`getServer`) and skips a server
// whose `wakeupAt` lies ahead, as the client sets it on a server that failed
// (`failoverTime` seconds ahead). No connection is made.
//
// Usage: node memjs_peer.js CASE_DIR...
// Each CASE_DIR has `servers` (HOST:PORT per line), `keys` (UTF-8 keys, one
// per line) and optionally `down` (server indices). The peer writes `out`:
// each key's server index, -1 when `server` finds none.
'use strict';
const fs = require('fs');
const path = require('path');
const memjs = require('memjs');

const quiet = { log() {} };
for (const dir of process.argv.slice(2)) {
  const servers = fs.readFileSync(path.join(dir, 'servers'), 'utf8').split('\n').filter((l) => l !== '');
  const client = memjs.Client.create(servers.join(','), { failover: true, logger: quiet });
  const downFile = path.join(dir, 'down');
  if (fs.existsSync(downFile)) {
    for (const index of fs.readFileSync(downFile, 'utf8').split(/\s+/).filter((l) => l !== '')) {
      client.servers[Number(index)].wakeupAt = Date.now() + client.options.failoverTime * 1000;
    }
  }
  const keys = fs.readFileSync(path.join(dir, 'keys'), 'utf8').split('\n');
  keys.pop();
  fs.writeFileSync(path.join(dir, 'out'), keys.map((k) => `${client.servers.indexOf(client.server(k))}\n`).join(''));
}
console.log(`memjs ${require('memjs/package.json').version}`);

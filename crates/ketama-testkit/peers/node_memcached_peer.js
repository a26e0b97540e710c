// Asks the npm `memcached` client (2.2.2, installed into target/node-peer by
// scripts/deps.sh) where keys go: `new Memcached(servers).HashRing` is the
// ring the client builds (its `hashring` dependency, ketama compatibility);
// no connection is made.
//
// Usage: node node_memcached_peer.js CASE_DIR...
// Each CASE_DIR has `servers` (lines `ADDRESS` for a plain list, or
// `ADDRESS<TAB>WEIGHT` for the `{ "ADDRESS": WEIGHT }` form) and `keys` (UTF-8
// keys, one per line); the program writes `out` (each key's server index) and
// `dump` (the continuum, "value index" in ring order).
'use strict';
const fs = require('fs');
const path = require('path');
const Memcached = require('memcached');

for (const dir of process.argv.slice(2)) {
  const lines = fs.readFileSync(path.join(dir, 'servers'), 'utf8').split('\n').filter((l) => l !== '');
  const weighted = lines.some((l) => l.includes('\t'));
  let servers;
  if (weighted) {
    servers = {};
    for (const line of lines) {
      const [address, weight] = line.split('\t');
      servers[address] = Number(weight);
    }
  } else {
    servers = lines;
  }
  const order = lines.map((l) => l.split('\t')[0]);
  const index = (server) => {
    const at = order.indexOf(server);
    if (at < 0) throw new Error(`unknown server ${server}`);
    return at;
  };
  const ring = new Memcached(servers, { retries: 0 }).HashRing;
  fs.writeFileSync(path.join(dir, 'dump'), ring.ring.map((n) => `${n.value} ${index(n.server)}\n`).join(''));
  const keys = fs.readFileSync(path.join(dir, 'keys'), 'utf8').split('\n');
  keys.pop();
  fs.writeFileSync(path.join(dir, 'out'), keys.map((k) => `${index(ring.get(k))}\n`).join(''));
}

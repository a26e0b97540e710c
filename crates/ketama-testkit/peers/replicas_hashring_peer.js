// Asks npm `hashring` 3.2.0 for replica lists, on the ring the npm
// `memcached` client 2.2.2 builds (both installed into target/node-peer by
// scripts/deps.sh): `new Memcached(servers).HashRing.range(key, size)`, the
// `size` distinct servers from the key's position on, each once. (The
// client's own `redundancy` option calls `HashRing.createRange`, which
// hashring 3.2.0 does not have.) No connection is made.
//
// Usage: node replicas_hashring_peer.js CASE_DIR...
// Each CASE_DIR has `servers` (first line: the sizes asked, separated by
// spaces; then lines `ADDRESS` for a plain list, or `ADDRESS<TAB>WEIGHT` for
// the `{ "ADDRESS": WEIGHT }` form) and `keys` (one key per line in hex,
// UTF-8 text). The program writes `out`: per key one line, per size the
// server indices joined by `,`, sizes separated by a space.
'use strict';
const fs = require('fs');
const path = require('path');
const Memcached = require('memcached');

for (const dir of process.argv.slice(2)) {
  const lines = fs.readFileSync(path.join(dir, 'servers'), 'utf8').split('\n').filter((l) => l !== '');
  const sizes = lines.shift().split(' ').map(Number);
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
  const keys = fs.readFileSync(path.join(dir, 'keys'), 'utf8').split('\n');
  keys.pop();
  const out = keys.map((hex) => {
    const key = Buffer.from(hex, 'hex').toString('utf8');
    return sizes.map((size) => ring.range(key, size).map(index).join(',')).join(' ') + '\n';
  });
  fs.writeFileSync(path.join(dir, 'out'), out.join(''));
}
console.log(`hashring ${require('hashring/package.json').version}`);

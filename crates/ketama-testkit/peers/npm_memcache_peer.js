// Asks npm memcache (1.10.0 in target/npm-memcache-peer, 1.5.0 in
// target/npm-memcache15-peer, installed by scripts/deps.sh; NODE_PATH names
// the one asked) where keys go: `new Memcache({ nodes: [] })`, each node
// added as its users add one, `addNode(uri)` or `addNode(uri, weight)`,
// then the client's own distribution (`client.hash`, the default
// KetamaHash) asked `getNodesByKey(key)`, what every command asks before
// it connects. No connection is made.
//
// Usage: node npm_memcache_peer.js CASE_DIR...
// Each CASE_DIR has `servers` (URI or URI<TAB>WEIGHT per line) and `keys`
// (one key per line in hex; the client takes strings: the bytes are read
// as UTF-8). The peer writes `out` (each key's node index) and `dump` (the
// ring: "point index" in ring order, the signed hash with its sign bit
// flipped).
'use strict';
const fs = require('fs');
const path = require('path');
const { Memcache } = require('memcache');

async function main() {
  for (const dir of process.argv.slice(2)) {
    const lines = fs.readFileSync(path.join(dir, 'servers'), 'utf8').split('\n').filter((l) => l !== '');
    const client = new Memcache({ nodes: [] });
    for (const line of lines) {
      const [uri, weight] = line.split('\t');
      await client.addNode(uri, weight === undefined ? undefined : Number(weight));
    }
    const index = new Map(client.nodes.map((node, i) => [node.id, i]));
    const keys = fs.readFileSync(path.join(dir, 'keys'), 'utf8').split('\n');
    keys.pop();
    const out = keys.map((hex) => {
      const key = Buffer.from(hex, 'hex').toString('utf8');
      return `${index.get(client.hash.getNodesByKey(key)[0].id)}\n`;
    });
    fs.writeFileSync(path.join(dir, 'out'), out.join(''));
    const clock = client.hash.hashRing.clock;
    fs.writeFileSync(
      path.join(dir, 'dump'),
      clock.map(([hash, id]) => `${((hash ^ 0x80000000) >>> 0)} ${index.get(id)}\n`).join(''),
    );
  }
}

main().then(() => {
  // memcache 1.5 exports no `./package.json`: read it from NODE_PATH.
  const manifest = path.join(process.env.NODE_PATH, 'memcache', 'package.json');
  console.log(`memcache ${JSON.parse(fs.readFileSync(manifest, 'utf8')).version}`);
});

<?php

/*
 * Tests of the Ketama\ namespace API. Run: php bindings/php/tests/ring_test.php
 * Prints one line per check and "PASS n checks"; exits 1 at the first failure.
 * Driven by tests/bindings/php.rs (cargo test).
 */

declare(strict_types=1);

require __DIR__ . '/../ketama.php';

use Ketama\Ring;

require __DIR__ . '/harness.php';

$dir = sys_get_temp_dir() . '/ketama-php-test-' . getmypid();
@mkdir($dir);
$file = "{$dir}/servers";
file_put_contents($file, "127.0.0.1:11211\t600\n127.0.0.1:11212\t400\n");

// The python_ketama test vectors of the original (libketama.md §11).
$ring = Ring::fromFile($file);
check($ring->serverCount() === 2, 'two servers');
check($ring->pointCount() === 320, '320 points');
$at = $ring->find('test');
check($at->point === 3454255383 && $at->address === '127.0.0.1:11211' && $at->serverIndex === 0, 'find("test") = (3454255383, 127.0.0.1:11211)');
check($ring->server('test') === '127.0.0.1:11211', 'server("test")');
$servers = $ring->servers();
check($servers[0]['weight'] === 600 && $servers[1]['points'] === 128 && $servers[0]['points'] === 192, 'servers(): weights and point counts');
$points = $ring->points();
check(count($points) === 320, 'points(): 320 entries');
$sorted = array_column($points, 0);
$copy = $sorted;
sort($copy);
check($copy === $sorted, 'points(): sorted');
check($points[$at->pointIndex][0] === $at->point, 'pointIndex refers to the hit point');

// The same ring from an array, in the three accepted shapes.
$byMap = Ring::fromServers(['127.0.0.1:11211' => 600, '127.0.0.1:11212' => 400]);
$byList = Ring::fromServers([['address' => '127.0.0.1:11211', 'weight' => 600], ['address' => '127.0.0.1:11212', 'weight' => 400]]);
$same = true;
for ($i = 0; $i < 2000; $i++) {
    $key = "key:{$i}";
    $want = $ring->server($key);
    $same = $same && $byMap->server($key) === $want && $byList->server($key) === $want;
}
check($same, 'fromServers (map and list) agrees with fromFile on 2000 keys');
$unweighted = Ring::fromServers(['10.0.0.1:11211', '10.0.0.2:11211', '10.0.0.3:11211']);
check($unweighted->serverCount() === 3 && $unweighted->pointCount() === 480, 'unweighted list: 3 servers, 480 points');

// Binary keys: bytes, NUL included, are hashed as given.
check($ring->find("a\0b")->point !== $ring->find('a')->point, 'a key with a NUL byte is hashed whole');
check($ring->find(str_repeat('x', 5000))->address !== '', 'a 5000-byte key');
check($ring->find('')->address !== '', 'the empty key');
$agree = true;
foreach (['test', '', "a\0b", str_repeat('x', 5000), "\xff\xfe"] as $key) {
    $at = $ring->find($key);
    $agree = $agree && $ring->serverIndex($key) === $at->serverIndex && $ring->server($key) === $at->address;
}
check($agree, 'serverIndex() and server() agree with find() (empty, NUL, 5000-byte and non-UTF-8 keys)');

// Failover.
$down = $ring->findAvoiding('test', [0]);
check($down->address === '127.0.0.1:11212', 'findAvoiding by index skips the down server');
check($ring->findAvoiding('test', ['127.0.0.1:11211'])->serverIndex === 1, 'findAvoiding by address');
check($ring->findAvoiding('test', [])->point === 3454255383, 'findAvoiding with none down = find');
$e = throws(fn () => $ring->findAvoiding('test', [0, 1]), 'all servers down');
check($e->status === 'KETAMA_ERR_NO_SERVER_AVAILABLE', 'all down: KETAMA_ERR_NO_SERVER_AVAILABLE');
$e = throws(fn () => $ring->findAvoiding('test', [7]), 'down index out of range');
check(str_contains($e->getMessage(), '7'), 'out-of-range message names the index');
throws(fn () => $ring->findAvoiding('test', ['10.9.9.9:1']), 'unknown down address');

// Flavour and hash names map onto the C enums.
check(Ring::fromFile($file, 'libketama', 'md5')->server('test') === '127.0.0.1:11211', "flavour 'libketama', hash 'md5'");
$e = throws(fn () => Ring::fromFile($file, 'no-such-flavour'), 'unknown flavour');
check(str_contains($e->getMessage(), '"no-such-flavour"'), 'unknown flavour message names it');
throws(fn () => Ring::fromFile($file, 'libketama', 'no-such-hash'), 'unknown hash');

// Key hashes.
// python-memcached's placement: ((crc32 >> 16) & 0x7fff) or 1, modulo the weighted bucket list.
$weights = ['10.0.0.1:11211' => 1, '10.0.0.2:11211' => 3, '10.0.0.3:11211' => 2];
$buckets = [];
foreach ($weights as $address => $weight) {
    for ($i = 0; $i < $weight; $i++) {
        $buckets[] = $address;
    }
}
$modulo = Ring::fromServers($weights, 'python-memcached');
$same = true;
for ($i = 0; $i < 2000; $i++) {
    $key = "key:$i";
    $same = $same && $modulo->server($key) === $buckets[(((crc32($key) >> 16) & 0x7fff) ?: 1) % count($buckets)];
}
check($same, "python-memcached flavour: 2000 keys land in bucket ((crc32 >> 16) & 0x7fff ?: 1) % 6");
$e = throws(fn () => $modulo->points(), "points() of a python-memcached ring");
check($e->status === 'KETAMA_ERR_INVALID_ARGUMENT' && str_contains($e->getMessage(), 'no continuum points'), 'python-memcached flavour: points() refused naming the placement');
check(Ring::hash('test') === 3446378249, "hash('test') = ketama_hashi('test') = 3446378249");
check(Ring::hash('test', 'crc32') === crc32('test'), "hash('test', 'crc32') = PHP's crc32()");
check(Ring::hash('test', 'fnv1a_32') !== Ring::hash('test', 'fnv1_32'), 'fnv1a_32 and fnv1_32 differ');
throws(fn () => Ring::hash('test', 'default'), "hash 'default' (no flavour to take it from)");
throws(fn () => Ring::hash('test', 'sha1'), 'an unknown hash');

// Error paths carry the library's message.
$e = throws(fn () => Ring::fromFile("{$dir}/missing"), 'missing file');
check($e->status === 'KETAMA_ERR_IO' && str_contains($e->getMessage(), "{$dir}/missing"), 'missing file: KETAMA_ERR_IO naming the file');
$e = throws(fn () => Ring::fromFile('/dev/zero'), '/dev/zero');
check($e->status === 'KETAMA_ERR_PARSE' && str_contains($e->getMessage(), '(line 1 in /dev/zero)'), '/dev/zero: refused at its first line, KETAMA_ERR_PARSE');
file_put_contents("{$dir}/bad", "127.0.0.1:11211\t600\n127.0.0.1:11212\tlots\n");
$e = throws(fn () => Ring::fromFile("{$dir}/bad"), 'bad line (strict)');
check($e->status === 'KETAMA_ERR_PARSE' && str_contains($e->getMessage(), 'line 2'), 'bad line: KETAMA_ERR_PARSE naming line 2');
check($e->getMessage() === ketama_error(), 'the exception message is ketama_error()');
file_put_contents("{$dir}/empty", "# nothing\n");
$e = throws(fn () => Ring::fromFile("{$dir}/empty"), 'no servers');
check($e->status === 'KETAMA_ERR_NO_SERVERS', 'no servers: KETAMA_ERR_NO_SERVERS');
throws(fn () => Ring::fromServers([]), 'empty server list');
throws(fn () => Ring::fromServers(['']), 'empty address');
throws(fn () => Ring::fromServers(['a:1' => -5]), 'negative weight');
throws(fn () => Ring::fromServers([3.5]), 'a server entry of the wrong shape');

// fromServers hands the list over as packed columns (ketama_ring_new_packed);
// what the columns cannot carry goes field by field, refused with the same messages.
$named = Ring::fromServers([['address' => '10.0.0.1:11211', 'weight' => 5, 'name' => 'alpha'], ['address' => '10.0.0.2:11211']]);
check(array_map(fn (array $s): array => [$s['address'], $s['name'], $s['weight']], $named->servers())
    === [['10.0.0.1:11211', 'alpha', 5], ['10.0.0.2:11211', null, 0]], 'fromServers: names and weights as given');
$big = [];
$bigFile = '';
for ($i = 0; $i < 1000; $i++) {
    $big["10.1.{$i}.1:11211"] = 50 + $i % 7;
    $bigFile .= "10.1.{$i}.1:11211\t" . (50 + $i % 7) . "\n";
}
file_put_contents("{$dir}/big", $bigFile);
$fromFile = Ring::fromFile("{$dir}/big");
$fromList = Ring::fromServers($big);
$again = Ring::fromServers($big);
$agree = true;
for ($i = 0; $i < 2000; $i++) {
    $agree = $agree && $fromList->server("key:{$i}") === $fromFile->server("key:{$i}") && $again->serverIndex("key:{$i}") === $fromFile->serverIndex("key:{$i}");
}
check($agree, 'fromServers (packed, 1000 servers, twice) agrees with fromFile on 2000 keys');
$e = throws(fn () => Ring::fromServers(["10.0.0.1:11211\0x"]), 'an address with a NUL byte');
check(str_contains($e->getMessage(), 'NUL byte'), 'an address with a NUL byte: named as such');
$e = throws(fn () => Ring::fromServers([['address' => 'a:1', 'name' => '']]), 'an empty name');
check(str_contains($e->getMessage(), 'empty'), 'an empty name: named as such');
$ffi = Ketama\Library::ffi();
$raw = $ffi->new('const ketama_ring*');
$status = $ffi->ketama_ring_new_packed(2, "a:1\0b:2\0c:3", 11, null, 0, null, 0, 0, 0, null, FFI::addr($raw));
check($status === $ffi->KETAMA_ERR_INVALID_ARGUMENT && str_starts_with(ketama_error(), 'the packed addresses hold 3 field(s) for 2 server(s)'),
    'ketama_ring_new_packed: a column of the wrong length is refused naming it');
$status = $ffi->ketama_ring_new_packed(2, "a:1\0b:2", 7, "10\0x", 4, null, 0, 0, 0, null, FFI::addr($raw));
check($status === $ffi->KETAMA_ERR_INVALID_ARGUMENT && str_starts_with(ketama_error(), "server 1: weight 'x' is not a whole number"),
    'ketama_ring_new_packed: a weight that is not a number is refused naming the server');

// The usual forms cross as serialize($servers) (ketama_ring_new_serialized): the ring
// the other forms give, built once per process and then found (Ketama\RingCache).
$stats = Ketama\RingCache::stats();
$serialized = Ring::fromServers(['10.2.0.1:11211' => 100, '10.2.0.2:11211' => 200]);
Ring::fromServers(['10.2.0.1:11211' => 100, '10.2.0.2:11211' => 200]);
$now = Ketama\RingCache::stats();
check([$now['hits'] - $stats['hits'], $now['misses'] - $stats['misses'], $now['rolled'] - $stats['rolled'],
        $now['attached'] - $stats['attached']] === [1, 1, 1, 0] && is_bool($now['sharing']),
    'fromServers: built once, then found (RingCache::stats); a small ring is rolled, never mapped');
$structs = Ring::fromServers([['address' => '10.2.0.1:11211', 'weight' => 100], ['address' => '10.2.0.2:11211', 'weight' => 200]]);
check(Ketama\RingCache::stats()['misses'] === $now['misses'] && $structs->server('k') === $serialized->server('k'),
    'fromServers: the same list in another form is the same ring');
$status = $ffi->ketama_ring_new_serialized('a:1:{i:0;d:1.5;}', 16, 'libketama', null, null, FFI::addr($raw));
check($status === $ffi->KETAMA_ERR_INVALID_ARGUMENT && str_contains(ketama_error(), 'at byte 9'),
    'ketama_ring_new_serialized: an entry of another form is refused saying where');
check($now['rings'] >= 1 && $now['bytes'] > 0 && $now['max_rings'] === 64 && $now['max_bytes'] === 256 << 20,
    'RingCache::stats: rings, bytes and the default bounds');
Ketama\RingCache::configure(0, 0);
$none = Ketama\RingCache::stats();
check([$none['rings'], $none['bytes'], $none['max_rings'], $none['max_bytes']] === [0, 0, 0, 0], 'RingCache::configure(0, 0): nothing kept');
Ring::fromServers(['10.2.0.1:11211' => 100, '10.2.0.2:11211' => 200]);
check(Ketama\RingCache::stats()['misses'] === $none['misses'] + 1 && $serialized->server('k') === $structs->server('k'),
    'with nothing kept each build builds; rings made before stay valid');
Ketama\RingCache::configure($now['max_rings'], $now['max_bytes']);
check(Ketama\RingCache::stats()['max_rings'] === 64, 'RingCache::configure: bounds back');
throws(fn () => Ketama\RingCache::configure(-1, 0), 'negative ring cache bounds');

// Closing.
$closed = Ring::fromFile($file);
$closed->close();
$closed->close();
check(true, 'closing twice is harmless');
throws(fn () => $closed->find('test'), 'use after close');
$e = throws(fn () => $closed->serverIndex('test'), 'serverIndex after close');
check($e->getMessage() === 'the ring is closed', 'serverIndex after close: the ring is closed');
$e = throws(fn () => $closed->server('test'), 'server after close');
check($e->getMessage() === 'the ring is closed', 'server after close: the ring is closed');

// Many rings, no growth: create and drop 2000 rings.
$before = memory_get_usage();
for ($i = 0; $i < 2000; $i++) {
    $r = Ring::fromServers(['127.0.0.1:1' => 1, '127.0.0.1:2' => 2]);
    $r->find("k{$i}");
}
unset($r);
check(memory_get_usage() - $before < 200000, '2000 rings created and dropped without PHP memory growth');
// Native memory: 3000 rings of 10 servers would leak tens of MB if never freed.
$rss = fn (): int => (int) explode(' ', file_get_contents('/proc/self/statm'))[1] * 4096;
$list = [];
for ($i = 0; $i < 10; $i++) {
    $list[] = "10.0.0.{$i}:11211";
}
Ring::fromServers($list);
$before = $rss();
for ($i = 0; $i < 3000; $i++) {
    Ring::fromServers($list)->close();
}
$grown = $rss() - $before;
check($grown < 16 << 20, "3000 native rings of 10 servers freed (RSS grew by {$grown} bytes)");

array_map('unlink', glob("{$dir}/*"));
rmdir($dir);
echo "PASS {$checks} checks\n";

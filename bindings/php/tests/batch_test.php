<?php

/*
 * Tests of the batch lookups Ring::serverIndices(), Ring::serversFor() and
 * Ring::serverIndicesPacked(): the same answers as the single-key lookups.
 * Run: php bindings/php/tests/batch_test.php; prints one line per check and
 * "PASS n checks", exits 1 at the first failure. Driven by tests/bindings/php.rs.
 */

declare(strict_types=1);

require __DIR__ . '/../ketama.php';
require __DIR__ . '/harness.php';

use Ketama\Ring;

/**
 * 12,000 deterministic keys: the empty key, typical ASCII keys, long keys
 * (up to 10,000 bytes), UTF-8 non-ASCII keys and random binary keys with NUL
 * and high bytes.
 *
 * @return list<string>
 */
function batchKeys(): array
{
    mt_srand(20261122);
    $keys = [''];
    for ($i = 1; $i < 12000; $i++) {
        $keys[] = match ($i % 6) {
            0 => "user:{$i}",
            1 => str_repeat(chr(97 + $i % 26), 1 + mt_rand(0, 2) * mt_rand(0, 5000)),
            2 => "ключ:{$i}:键:😀",
            3 => implode('', array_map(fn () => chr(mt_rand(0, 255)), range(0, mt_rand(0, 80)))),
            4 => "é{$i}\0tail",
            default => (string) mt_rand(),
        };
    }
    return $keys;
}

$keys = batchKeys();
check(count($keys) === 12000 && in_array('', $keys, true), '12000 keys including the empty key');
check(max(array_map('strlen', $keys)) > 5000, 'long keys (over 5000 bytes)');
check(count(array_filter($keys, fn ($k) => preg_match('/[\x80-\xff]/', $k) === 1)) > 4000, 'non-ASCII keys');

$servers = [];
for ($i = 0; $i < 150; $i++) {
    $servers["10.0.{$i}.1:11211"] = 1 + $i % 7;
}
foreach (['libketama', 'libmemcached', 'spymemcached', 'twemproxy'] as $flavour) {
    $ring = Ring::fromServers($servers, $flavour);
    $indices = $ring->serverIndices($keys);
    check(array_is_list($indices) && count($indices) === count($keys), "{$flavour}: serverIndices of a list is a list of the same length");
    $same = 0;
    $addresses = [];
    foreach ($keys as $i => $key) {
        $same += $indices[$i] === $ring->serverIndex($key) ? 1 : 0;
        $addresses[$i] = $ring->server($key);
    }
    check($same === count($keys), "{$flavour}: serverIndices equals serverIndex for {$same}/" . count($keys) . ' keys');
    check($ring->serversFor($keys) === $addresses, "{$flavour}: serversFor equals server() for every key");
    check(count(array_unique($indices)) > 100, "{$flavour}: the keys spread over " . count(array_unique($indices)) . ' servers');
    check(
        $ring->serverIndicesPacked(implode('', $keys), array_map('strlen', $keys)) === $indices,
        "{$flavour}: serverIndicesPacked equals serverIndices",
    );
}

// Arrays keep their keys (like array_map); small and repeated batches reuse the buffers.
$ring = Ring::fromServers(['127.0.0.1:11211' => 600, '127.0.0.1:11212' => 400]);
check($ring->serversFor(['t' => 'test', 7 => '', 'x' => 'test']) === ['t' => '127.0.0.1:11211', 7 => $ring->server(''), 'x' => '127.0.0.1:11211'], 'serversFor keeps the array keys');
check($ring->serverIndices([]) === [] && $ring->serversFor([]) === [], 'an empty batch');
check($ring->serverIndices(['test']) === [0], 'a batch of one: test -> server 0');
$small = $ring->serverIndices(array_slice($keys, 0, 10));
check($ring->serverIndices(array_slice($keys, 0, 10)) === $small && count($small) === 10, 'a smaller batch after a large one');

// The multi-GET planner: every key once, under the server a single lookup
// gives, servers in ring order, keys in input order.
$planRing = Ring::fromServers($servers);
$sample = array_slice($keys, 0, 3000);
$expected = [];
foreach ($planRing->servers() as $info) {
    $expected[$info['address']] = [];
}
foreach ($sample as $key) {
    $expected[$planRing->server($key)][] = $key;
}
$expected = array_filter($expected, fn ($group) => $group !== []);
$plan = $planRing->groupKeys($sample);
check($plan === $expected, 'groupKeys: ' . count($plan) . ' servers, each with its keys in input order');
check(array_sum(array_map('count', $plan)) === 3000, 'groupKeys: every key once');
$few = Ring::fromServers($servers)->groupKeys(['user:1', 'user:2']);
check(count($few) <= 2 && count($few) >= 1, 'groupKeys leaves out servers without keys');
check($planRing->groupKeys([]) === [], 'groupKeys of no keys');

// Error paths: the library's message, and the ring left usable.
$e = throws(fn () => $ring->serverIndicesPacked('abcdef', [3, 4]), 'lengths past the end of packed');
check($e->status === 'KETAMA_ERR_INVALID_ARGUMENT', 'lengths past the end: KETAMA_ERR_INVALID_ARGUMENT');
check($e->getMessage() === 'lengths[1] = 4 runs past the end of packed (6 bytes) at offset 3', "the library's message: {$e->getMessage()}");
check($e->getMessage() === ketama_error(), 'the exception message is ketama_error()');
$e = throws(fn () => $ring->serverIndicesPacked('abc', [-1]), 'a negative length');
check(str_contains($e->getMessage(), 'lengths[0] = 4294967295 runs past the end'), 'a negative length is a huge one to the library');
check($ring->serverIndicesPacked('testtest', [4, 4]) === [0, 0], 'packed keys after an error');
$closed = Ring::fromServers(['a:1', 'b:2']);
$closed->close();
$e = throws(fn () => $closed->serverIndices(['k']), 'a batch on a closed ring');
check($e->getMessage() === 'the ring is closed', 'closed ring message');
try {
    $ring->serverIndices([['not a string']]);
    check(false, 'a non-string key should be rejected');
} catch (TypeError $e) {
    check(true, "a non-string key is a TypeError: {$e->getMessage()}");
}

echo "PASS {$checks} checks\n";

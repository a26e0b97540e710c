<?php

/*
 * php-memcached (the Memcached extension) against real memcached servers,
 * with keys placed by libketama's ring.
 *
 *   php bindings/php/examples/memcached_ring.php 127.0.0.1:11211 127.0.0.1:11212 ...
 *
 * One Memcached client per server, so that the library (not php-memcached's
 * own distribution) decides where each key lives. Stores 300 keys, reads each
 * back from its server and checks that no other server has it. Then keeps a
 * set in one key with the library's set codec: members added and removed
 * with APPEND/ADD (the SetWriter recipe), read back, and compacted under CAS.
 * Also shows that php-memcached's own OPT_LIBKETAMA_COMPATIBLE placement is
 * the library's 'libmemcached' flavour.
 */

declare(strict_types=1);

require __DIR__ . '/../ketama.php';

use Ketama\Ring;
use Ketama\Set;
use Ketama\SetWriter;

$addresses = array_slice($argv, 1) ?: ['127.0.0.1:11211', '127.0.0.1:11212', '127.0.0.1:11213'];
$ring = Ring::fromServers($addresses);

/** @var array<string, Memcached> $clients one client per server address */
$clients = [];
foreach ($addresses as $address) {
    [$host, $port] = explode(':', $address);
    $client = new Memcached();
    $client->setOption(Memcached::OPT_CONNECT_TIMEOUT, 1000);
    $client->setOption(Memcached::OPT_COMPRESSION, false); // APPEND needs raw values
    $client->addServer($host, (int) $port);
    $clients[$address] = $client;
}

function fail(string $message): never
{
    fwrite(STDERR, "memcached_ring.php: {$message}\n");
    exit(1);
}

// Place 300 keys with the ring.
$perServer = array_fill_keys($addresses, 0);
for ($i = 0; $i < 300; $i++) {
    $key = "user:{$i}";
    $server = $ring->server($key);
    if (!$clients[$server]->set($key, "value of {$key}", 60)) {
        fail("set {$key} on {$server}: " . $clients[$server]->getResultMessage());
    }
    $perServer[$server]++;
}
echo 'placed 300 keys: ' . implode(' ', array_map(fn ($a, $n) => "{$a}={$n}", array_keys($perServer), $perServer)) . "\n";

// Every key is on its server and on no other.
$found = 0;
$misplaced = 0;
for ($i = 0; $i < 300; $i++) {
    $key = "user:{$i}";
    $server = $ring->server($key);
    foreach ($clients as $address => $client) {
        $value = $client->get($key);
        if ($address === $server) {
            $found += (int) ($value === "value of {$key}");
        } elseif ($value !== false) {
            $misplaced++;
        }
    }
}
echo "read back {$found}/300 keys from their servers, {$misplaced} found elsewhere\n";

// Failover: with the first server marked down, its keys move, the others stay.
$moved = 0;
for ($i = 0; $i < 300; $i++) {
    $key = "user:{$i}";
    $moved += (int) ($ring->findAvoiding($key, [0])->address !== $ring->server($key));
}
echo "with {$addresses[0]} down, {$moved} keys move (exactly the {$perServer[$addresses[0]]} it held)\n";

// php-memcached's own consistent placement (OPT_LIBKETAMA_COMPATIBLE) is the
// library's 'libmemcached' flavour: keys stored through one pooled client
// are found on the server the ring names.
$pool = new Memcached();
$pool->setOption(Memcached::OPT_LIBKETAMA_COMPATIBLE, true);
$pool->setOption(Memcached::OPT_COMPRESSION, false);
foreach ($addresses as $address) {
    [$host, $port] = explode(':', $address);
    $pool->addServer($host, (int) $port);
}
$libmemcached = Ring::fromServers($addresses, 'libmemcached');
$agree = 0;
for ($i = 0; $i < 300; $i++) {
    $key = "pooled:{$i}";
    $pool->set($key, 'v', 60) || fail("pooled set {$key}: " . $pool->getResultMessage());
    $agree += (int) ($clients[$libmemcached->server($key)]->get($key) === 'v');
}
echo "php-memcached OPT_LIBKETAMA_COMPATIBLE placed {$agree}/300 keys where the 'libmemcached' ring says\n";

/**
 * Adds or removes members with the set codec's write recipe: APPEND the
 * payload, ADD it when the key is missing, probe when both keep failing.
 * Returns the outcome ('appended', 'created' or 'nothing_to_remove').
 *
 * @param list<string> $members
 */
function writeSet(Memcached $m, string $key, array $members, string $op): string
{
    $payload = Set::encode($members, $op);
    $writer = new SetWriter($op);
    while (!$writer->done()) {
        $action = $writer->action();
        $ok = match ($action) {
            'append' => $m->append($key, $payload),
            'add' => $m->add($key, $payload), // no expiry: compaction keeps it
            'probe' => $m->get($key) !== false,
        };
        $code = $m->getResultCode();
        $reply = match (true) {
            $action === 'probe' => $ok ? 'exists' : 'not_found',
            $ok => 'stored',
            $code === Memcached::RES_NOTSTORED => 'not_stored',
            $code === Memcached::RES_E2BIG => 'too_large',
            default => fail("{$action} {$key}: " . $m->getResultMessage()),
        };
        $writer->step($reply);
    }
    return $writer->action();
}

// A set in one key, on the server the ring picks for it.
$setKey = 'followers:alice';
$home = $ring->server($setKey);
$m = $clients[$home];
$m->delete($setKey);
$outcomes = [
    writeSet($m, $setKey, ['bob', 'carol'], 'add'),
    writeSet($m, $setKey, ['dave'], 'add'),
    writeSet($m, $setKey, ['bob'], 'remove'),
];
for ($i = 0; $i < 150; $i++) {
    writeSet($m, $setKey, ["fan{$i}"], 'add');
}
for ($i = 0; $i < 150; $i += 2) {
    writeSet($m, $setKey, ["fan{$i}"], 'remove');
}
echo "set {$setKey} on {$home}: " . implode(', ', $outcomes) . "\n";

// Read it with its CAS; compact when the library says so.
$read = $m->get($setKey, null, Memcached::GET_EXTENDED) ?: fail("get {$setKey}: " . $m->getResultMessage());
$plan = Set::planRead($read['value'], (int) $read['cas']);
$stats = $plan['set']->stats();
echo "read {$stats['members']} members from {$stats['records']} records ({$stats['redundant']} redundant)\n";
$compaction = $plan['compaction'] ?? fail('expected the library to ask for compaction');
$stored = $m->cas($compaction['cas'], $setKey, $compaction['value'], $compaction['exptime'] ?? 0);
echo 'compacted under CAS: ' . ($stored ? 'stored' : 'lost the race (a later read compacts)') . "\n";
$after = Set::decode($m->get($setKey));
$expected = array_merge(['carol', 'dave'], array_map(fn ($i) => "fan{$i}", range(1, 149, 2)));
sort($expected, SORT_STRING);
$sameMembers = $after->members() === $expected;
echo "after compaction: {$after->stats()['members']} members in {$after->stats()['records']} records, "
    . ($sameMembers ? 'none lost' : 'MEMBERS DIFFER') . "\n";

exit($found === 300 && $misplaced === 0 && $agree === 300 && $moved === $perServer[$addresses[0]] && $stored && $sameMembers ? 0 : 1);

<?php

/*
 * A 3 -> 4 move under warm-up with Ketama\MigratingMemcached over
 * php-memcached, on real memcached servers (tests/bindings/php.rs starts
 * them and passes their addresses: the first three are the old pool, all
 * four the new one). Before the move the keys are written where the old
 * ring puts them, with plain Memcached objects; during the warm phase every
 * key is read through the migrating client (0 misses, 0 stale), keys are
 * rewritten and deleted and read back (by this client and by one a phase
 * behind), and what the servers hold is read directly. Prints one summary
 * line; exits 1 at the first failed check.
 */

declare(strict_types=1);

require __DIR__ . '/../ketama.php';

use Ketama\MigratingMemcached;
use Ketama\Migration;
use Ketama\Ring;

function expect(bool $ok, string $what): void
{
    if (!$ok) {
        fwrite(STDERR, "FAIL: {$what}\n");
        exit(1);
    }
}

$servers = array_slice($argv, 1);
expect(count($servers) === 4, 'four servers');
[$old, $new] = [array_slice($servers, 0, 3), $servers];
$direct = [];
foreach ($servers as $address) {
    [$host, $port] = explode(':', $address);
    $direct[$address] = new Memcached();
    $direct[$address]->addServer($host, (int) $port);
}
$keys = array_map(fn (int $i): string => "user:{$i}", range(0, 2999));

// Before the move: each key on its server in the old ring.
$oldRing = Ring::fromServers($old);
foreach ($keys as $key) {
    expect($direct[$oldRing->server($key)]->set($key, "v1:{$key}"), "set {$key} before the move");
}
$migration = Migration::create($oldRing, Ring::fromServers($new));
$moved = array_values(array_filter($keys, fn (string $k): bool => $migration->route($k)[1] !== null));
foreach ($moved as $key) {
    [$to, $from] = $migration->route($key);
    expect($to === $new[3] && in_array($from, $old, true), "{$key} moves to the new server");
}
$share = count($moved) / count($keys);
expect($share > 0.15 && $share < 0.35, "a quarter moves ({$share})");

$now = (int) (microtime(true) * 1000);
$client = new MigratingMemcached($old, $new, mode: 'warmup', startMs: $now - 2000, options: 'interval=1s,warmup=1h');
expect($client->migration()->phase($moved[0]) === 'warm', 'warm phase');
$misses = $stale = 0;
foreach ($keys as $key) {
    $value = $client->get($key);
    if ($value === false) {
        $misses++;
    } elseif ($value !== "v1:{$key}") {
        $stale++;
    }
}
expect($misses === 0 && $stale === 0, "every key read ({$misses} misses, {$stale} stale)");
$copied = count(array_filter($moved, fn (string $k): bool => $direct[$new[3]]->get($k) === "v1:{$k}"));
expect($copied === count($moved), "moved keys copied forward ({$copied})");
$many = $client->getMulti(array_slice($keys, 0, 200));
expect($many === array_combine(array_slice($keys, 0, 200), array_map(fn ($k) => "v1:{$k}", array_slice($keys, 0, 200))), 'getMulti');

// Writes during the move, read back here and by a client a phase behind.
$behind = new MigratingMemcached($old, $new, startMs: (int) (microtime(true) * 1000) - 100, options: 'interval=60s,warmup=1h');
expect($behind->migration()->phase($moved[0]) === 'prepare', 'the late client is in prepare');
$unmoved = array_values(array_diff($keys, $moved));
$rewritten = [...array_slice($moved, 0, 100), ...array_slice($unmoved, 0, 100)];
foreach ($rewritten as $key) {
    expect($client->set($key, "v2:{$key}"), "set {$key} during the move");
}
$back = count(array_filter($rewritten, fn (string $k): bool => $client->get($k) === "v2:{$k}"));
expect($back === count($rewritten), "writes read back ({$back})");
$staleBehind = count(array_filter($rewritten, fn (string $k): bool => !in_array($behind->get($k), [false, "v2:{$k}"], true)));
expect($staleBehind === 0, "no stale read a phase behind ({$staleBehind})");
foreach (array_slice($moved, 0, 100) as $key) {
    expect($direct[$migration->route($key)[1]]->get($key) === false, "{$key} cleared on its old owner");
}
expect($client->setMulti(array_combine(array_slice($moved, 100, 50), array_map(fn ($k) => "v3:{$k}", array_slice($moved, 100, 50)))), 'setMulti');
foreach (array_slice($moved, 100, 50) as $key) {
    expect($client->get($key) === "v3:{$key}", "setMulti {$key} read back");
}

// Deletes and adds during the move: nothing comes back from the old owner.
$deleted = array_slice($moved, 150, 100);
foreach ($deleted as $key) {
    expect($client->delete($key), "delete {$key}");
    expect(!$client->delete($key) && $client->getResultCode() === Memcached::RES_NOTFOUND, "second delete of {$key}");
}
$resurrected = count(array_filter($deleted, fn (string $k): bool => $client->get($k) !== false || $behind->get($k) !== false));
expect($resurrected === 0, "no deleted key read ({$resurrected})");
foreach (array_slice($deleted, 0, 50) as $key) {
    expect($client->add($key, 'added') && $client->get($key) === 'added', "add {$key}");
}
expect(!$client->add($moved[300], 'added') && $client->getResultCode() === Memcached::RES_NOTSTORED, 'add of a held key');

// After the schedule: the new ring alone finds every key carried forward.
$after = new MigratingMemcached($old, $new, startMs: $now - 10_000_000, options: 'interval=1s,warmup=1h');
expect($after->migration()->phase($moved[0]) === 'new', 'after the schedule');
$untouched = array_slice($moved, 300);
$afterHits = count(array_filter($untouched, fn (string $k): bool => $after->get($k) === "v1:{$k}"));
expect($afterHits === count($untouched), "after the move ({$afterHits})");

printf(
    "keys=%d moved=%d misses=%d stale=%d copied=%d rewritten=%d deleted=%d resurrected=%d after_hits=%d\n",
    count($keys), count($moved), $misses, $stale, $copied, $back, count($deleted), $resurrected, $afterHits,
);

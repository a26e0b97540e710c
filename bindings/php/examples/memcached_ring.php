<?php

/*
 * php-memcached (the Memcached extension) against real memcached servers,
 * with keys placed by libketama's ring.
 *
 *   php bindings/php/examples/memcached_ring.php 127.0.0.1:11211 127.0.0.1:11212 ...
 *
 * One Memcached client per server, so that the library (not php-memcached's
 * own distribution) decides where each key lives. Stores 300 keys, reads each
 * back from its server and checks that no other server has it.
 */

declare(strict_types=1);

require __DIR__ . '/../ketama.php';

use Ketama\Ring;

$addresses = array_slice($argv, 1) ?: ['127.0.0.1:11211', '127.0.0.1:11212', '127.0.0.1:11213'];
$ring = Ring::fromServers($addresses);

/** @var array<string, Memcached> $clients one client per server address */
$clients = [];
foreach ($addresses as $address) {
    [$host, $port] = explode(':', $address);
    $client = new Memcached();
    $client->setOption(Memcached::OPT_CONNECT_TIMEOUT, 1000);
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

exit($found === 300 && $misplaced === 0 && $moved === $perServer[$addresses[0]] ? 0 : 1);

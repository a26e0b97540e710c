<?php
// Asks php-memcached (getServerByKey) or pecl memcache (findServer) where
// keys go, for crates/ketama-core/tests/peers/php.rs. No network: both only consult the pool's
// continuum. Run one extension per php process (they conflict):
//   php -n -d extension=igbinary -d extension=msgpack -d extension=memcached php_peer.php memcached CASE.json...
//   php -n -d extension=memcache -d memcache.hash_strategy=consistent -d memcache.hash_function=crc32|fnv php_peer.php memcache CASE.json...
// CASE.json: {"options": {NAME: VALUE}, "servers": [[host, port, weight]], "keys": PATH, "out": PATH}
// (options are Memcached::OPT_* names with Memcached constant names or integers as values)
// Writes "host:port" per key to "out".

function keys_of(string $path): array {
    $keys = explode("\n", file_get_contents($path));
    array_pop($keys); // after the last newline
    return $keys;
}

function run_memcached(array $case): array {
    $m = new Memcached();
    foreach ($case['options'] as $name => $value) {
        $v = is_numeric($value) ? (int)$value : constant("Memcached::$value");
        if (!$m->setOption(constant("Memcached::$name"), $v)) {
            throw new RuntimeException("setOption $name failed");
        }
    }
    if (!$m->addServers($case['servers'])) throw new RuntimeException("addServers failed");
    $out = [];
    foreach (keys_of($case['keys']) as $key) {
        $s = $m->getServerByKey($key);
        if ($s === false) throw new RuntimeException("getServerByKey failed for '$key': " . $m->getResultMessage());
        $out[] = $s['host'] . ':' . $s['port'];
    }
    return $out;
}

function run_memcache(array $case): array {
    $pool = new MemcachePool();
    foreach ($case['servers'] as [$host, $port, $weight]) {
        if (!$pool->addServer($host, $port, 0, false, $weight)) throw new RuntimeException("addServer failed");
    }
    $out = [];
    foreach (keys_of($case['keys']) as $key) {
        $s = $pool->findServer($key);
        if ($s === false) throw new RuntimeException("findServer failed for '$key'");
        $out[] = $s;
    }
    return $out;
}

$mode = $argv[1] ?? '';
if (($mode !== 'memcached' && $mode !== 'memcache') || $argc < 3) {
    fwrite(STDERR, "usage: php_peer.php memcached|memcache CASE.json...\n");
    exit(2);
}
foreach (array_slice($argv, 2) as $file) {
    $case = json_decode(file_get_contents($file), true, 16, JSON_THROW_ON_ERROR);
    $lines = $mode === 'memcached' ? run_memcached($case) : run_memcache($case);
    file_put_contents($case['out'], implode("\n", $lines) . "\n");
}

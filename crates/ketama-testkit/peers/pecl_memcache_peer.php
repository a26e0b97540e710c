<?php
// Asks pecl memcache (Debian php8.2-memcache) where keys go with its
// standard strategy, for crates/ketama-core/tests/peers/pecl_memcache_standard.rs: a MemcachePool
// built from the servers as its users add them (addServer with the weight)
// and its own findServer on each key, which prepares the key and, when the
// chosen server is down, rehashes `key-0`, `key-1`, ... (mmc_pool_find). A
// server listed in `down` is added in failed mode (status false) with a
// retry interval of -1, so it stays down. No connection is made.
//
// Usage: php -n -d extension=memcache -d memcache.hash_strategy=standard
//            -d memcache.hash_function=crc32|fnv pecl_memcache_peer.php CASE_DIR...
// Each CASE_DIR has `servers` (ADDRESS or ADDRESS<TAB>WEIGHT per line),
// `keys` (one key per line, bytes) and optionally `down` (server indices).
// The peer writes `out`: each key's server index, -1 when findServer ends
// on a server that is down.

error_reporting(E_ALL & ~E_DEPRECATED); // MemcachePool sets a dynamic property

foreach (array_slice($argv, 1) as $dir) {
    $down = [];
    if (file_exists("$dir/down")) {
        $down = array_map('intval', preg_split('/\s+/', trim(file_get_contents("$dir/down")), -1, PREG_SPLIT_NO_EMPTY));
    }
    $pool = new MemcachePool();
    $position = [];
    $lines = file("$dir/servers", FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES);
    foreach ($lines as $i => $line) {
        [$address, $weight] = array_pad(explode("\t", $line), 2, '1');
        $colon = strrpos($address, ':');
        $host = trim(substr($address, 0, $colon), '[]');
        $port = (int)substr($address, $colon + 1);
        $up = !in_array($i, $down, true);
        // addServer(host, tcp_port, udp_port, persistent, weight, timeout, retry_interval, status)
        if (!$pool->addServer($host, $port, 0, false, (int)$weight, 1, -1, $up)) {
            throw new RuntimeException("addServer $line failed");
        }
        $position["$host:$port"] ??= $i;
    }
    $keys = explode("\n", file_get_contents("$dir/keys"));
    array_pop($keys); // after the last newline
    $out = '';
    foreach ($keys as $key) {
        $server = $pool->findServer($key);
        if ($server === false) throw new RuntimeException("findServer failed for '$key'");
        $index = $position[$server];
        $out .= (in_array($index, $down, true) ? -1 : $index) . "\n";
    }
    file_put_contents("$dir/out", $out);
}
echo "pecl memcache " . phpversion('memcache') . "\n";

<?php
// Stores keys through php-memcached (Debian php8.2-memcached, over
// libmemcached) with Memcached::OPT_NUMBER_OF_REPLICAS set, over the binary
// protocol (libmemcached writes replicas over it alone) and with
// OPT_LIBKETAMA_COMPATIBLE, into real memcached servers; the test then reads
// what each server holds. Run as
//   php -n -d extension=igbinary -d extension=msgpack -d extension=memcached replicas_php_memcached_peer.php CASE_DIR...
// Each CASE_DIR has `servers` (first line: `libketama` and the number of
// replicas, separated by a space; then one server per line, `HOST:PORT` or
// `HOST:PORT:WEIGHT`) and `keys` (one key per line in hex). Every key is set
// to `1`; a failed set fails.

foreach (array_slice($argv, 1) as $dir) {
    $lines = explode("\n", rtrim(file_get_contents("$dir/servers"), "\n"));
    [$mode, $replicas] = explode(' ', array_shift($lines));
    if ($mode !== 'libketama') {
        throw new RuntimeException("unknown mode $mode");
    }
    $m = new Memcached();
    foreach ([
        Memcached::OPT_BINARY_PROTOCOL => true,
        Memcached::OPT_LIBKETAMA_COMPATIBLE => true,
        Memcached::OPT_NUMBER_OF_REPLICAS => (int)$replicas,
    ] as $option => $value) {
        if (!$m->setOption($option, $value)) {
            throw new RuntimeException("setOption $option failed");
        }
    }
    $servers = array_map(function (string $line): array {
        $fields = explode(':', $line);
        return [$fields[0], (int)$fields[1], (int)($fields[2] ?? 0)];
    }, $lines);
    if (!$m->addServers($servers)) {
        throw new RuntimeException('addServers failed');
    }
    $keys = explode("\n", rtrim(file_get_contents("$dir/keys"), "\n"));
    foreach ($keys as $hex) {
        $key = hex2bin($hex);
        if (!$m->set($key, '1')) {
            throw new RuntimeException("set failed for '$key': " . $m->getResultMessage());
        }
    }
    // The replicas are quiet sets left in each connection's buffer: quit flushes them.
    $m->quit();
}
echo 'php-memcached ', phpversion('memcached'), "\n";

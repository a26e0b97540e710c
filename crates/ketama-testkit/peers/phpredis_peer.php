<?php
// Asks phpredis (Debian php8.2-redis) where keys go: a RedisArray of the
// hosts as its users write them ("10.0.0.1:6379"), with `lazy_connect` so
// that nothing connects, and with or without `consistent`; each key's host
// is RedisArray::_target($key), the node ra_find_node picks for commands.
//
// Usage: php phpredis_peer.php CASE_DIR...
// Each CASE_DIR has `servers` (first line `modulo` or `consistent`, then
// one host string per line) and `keys` (one key per line in hex). The peer
// writes `out` (the index of each key's host, the first host of that name).
$version = phpversion('redis');
foreach (array_slice($argv, 1) as $dir) {
    $hosts = explode("\n", rtrim(file_get_contents("$dir/servers"), "\n"));
    $mode = array_shift($hosts);
    $options = array('lazy_connect' => true);
    if ($mode === 'consistent') {
        $options['consistent'] = true;
    }
    $array = new RedisArray($hosts, $options);
    $index = array();
    foreach ($hosts as $i => $host) {
        if (!isset($index[$host])) {
            $index[$host] = $i;
        }
    }
    $hexes = explode("\n", file_get_contents("$dir/keys"));
    array_pop($hexes); // after the last newline
    $out = fopen("$dir/out", 'w');
    foreach ($hexes as $hex) {
        $host = $array->_target(hex2bin($hex));
        fwrite($out, (isset($index[$host]) ? $index[$host] : -1) . "\n");
    }
    fclose($out);
}
echo "phpredis $version\n";

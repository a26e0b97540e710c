<?php
// Asks Predis (Debian php-predis) where keys go: a Predis\Client with
// client-side sharding ('cluster' => 'predis', whose PredisStrategy uses a
// HashRing, or a PredisCluster built on a KetamaRing as Predis documents),
// its connections given as its users write them (URI strings such as
// tcp://10.0.0.1:6379?weight=2). Each key goes through the path of a
// command: the cluster's connection for a GET of the key. Nothing connects.
//
// Usage: php predis_peer.php CASE_DIR...
// Each CASE_DIR has `servers` (first line `hashring` or `ketama`, then one
// connection URI per line) and `keys` (one key per line in hex). The peer
// writes `out` (each key's connection index) and `dump` (the distributor's
// ring, "point index" in ring order).
require 'Predis/autoload.php';

use Predis\Cluster\Distributor\KetamaRing;
use Predis\Cluster\PredisStrategy;
use Predis\Connection\Aggregate\PredisCluster;

foreach (array_slice($argv, 1) as $dir) {
    $lines = explode("\n", rtrim(file_get_contents("$dir/servers"), "\n"));
    $kind = array_shift($lines);
    $cluster = $kind === 'ketama'
        ? new PredisCluster(new PredisStrategy(new KetamaRing()))
        : 'predis';
    $client = new Predis\Client($lines, array('cluster' => $cluster));
    $connection = $client->getConnection();
    $index = array();
    $i = 0;
    foreach ($connection as $node) {
        $index[spl_object_id($node)] = $i++;
    }
    $out = fopen("$dir/out", 'w');
    $hexes = explode("\n", file_get_contents("$dir/keys"));
    array_pop($hexes); // after the last newline
    foreach ($hexes as $hex) {
        $command = $client->createCommand('GET', array(hex2bin($hex)));
        fwrite($out, $index[spl_object_id($connection->getConnection($command))] . "\n");
    }
    fclose($out);
    $distributor = $connection->getClusterStrategy()->getDistributor();
    $distributor->getSlot(0); // builds the ring
    $ring = new ReflectionProperty('Predis\Cluster\Distributor\HashRing', 'ring');
    $ring->setAccessible(true);
    $dump = fopen("$dir/dump", 'w');
    foreach ($ring->getValue($distributor) as $point => $node) {
        fwrite($dump, "$point " . $index[spl_object_id($node)] . "\n");
    }
    fclose($dump);
}
echo 'Predis ' . Predis\Client::VERSION . "\n";

<?php

/*
 * Per-key lookup cost from PHP, measured like benches/c/lookup_peers.c: the
 * median over 15 rounds of (time to look up every key) / keys, after one
 * warm-up round. Run by scripts/bench.sh:
 *
 *   php bindings/php/bench.php SERVERS_FILE SERVER_COUNT KEYS_FILE
 *
 * prints NAME<TAB>SERVERS<TAB>NS_PER_KEY for Ring::serverIndex (one FFI call
 * per key) and Ring::serverIndices (one FFI call for all keys), on the
 * libketama ring of the file read with the original's parser.
 *
 * Requested from a web SAPI (scripts/bench_php_fpm.sh, PHP-FPM), the same
 * arguments come as GET parameters (servers, count, keys) and the rows name
 * the SAPI; with `servers` and `key` only, the request is one user request:
 * the ring read from the file and the key's server printed.
 */

declare(strict_types=1);

require __DIR__ . '/ketama.php';

const ROUNDS = 15;

/** Median ns per key of `$round` over ROUNDS timed runs. */
function medianNsPerKey(callable $round, int $keys): float
{
    $round();
    $samples = [];
    for ($r = 0; $r < ROUNDS; $r++) {
        $start = hrtime(true);
        $round();
        $samples[] = (hrtime(true) - $start) / $keys;
    }
    sort($samples);
    return $samples[intdiv(ROUNDS, 2)];
}

$sapi = '';
if (PHP_SAPI === 'cli') {
    if ($argc !== 4) {
        fwrite(STDERR, "usage: php bench.php SERVERS_FILE SERVER_COUNT KEYS_FILE\n");
        exit(2);
    }
    [, $file, $count, $keysFile] = $argv;
} elseif (isset($_GET['key'])) {
    echo Ketama\Ring::fromFile($_GET['servers'])->server($_GET['key']), "\n";
    return;
} else {
    [$file, $count, $keysFile] = [$_GET['servers'], $_GET['count'], $_GET['keys']];
    $sapi = ', ' . PHP_SAPI;
}
$keys = file($keysFile, FILE_IGNORE_NEW_LINES);
$ring = Ketama\Ring::fromFile($file, 'libketama', 'default', true);
$sink = 0;

$single = medianNsPerKey(function () use ($ring, $keys, &$sink): void {
    foreach ($keys as $key) {
        $sink += $ring->serverIndex($key);
    }
}, count($keys));
printf("php Ring::serverIndex (FFI, single%s)\t%s\t%.1f\n", $sapi, $count, $single);

$batch = medianNsPerKey(function () use ($ring, $keys, &$sink): void {
    $sink += $ring->serverIndices($keys)[count($keys) - 1];
}, count($keys));
printf("php Ring::serverIndices (FFI, batch%s)\t%s\t%.1f\n", $sapi, $count, $batch);

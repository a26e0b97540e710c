<?php

// Replica lists for each key read from stdin, for tests/bindings/replicas.rs:
// php find_replicas.php SIZES CASES_FILE. SIZES is a comma-separated list of
// replica counts; each line of CASES_FILE is SERVERS_FILE<TAB>FLAVOUR<TAB>OUTFILE,
// and OUTFILE gets KEY<TAB>N<TAB>I,J,... (Ring::replicas) per key and count.

declare(strict_types=1);

require __DIR__ . '/../ketama.php';

$sizes = array_map('intval', explode(',', $argv[1]));
$keys = [];
while (($line = fgets(STDIN)) !== false) {
    $keys[] = rtrim($line, "\n");
}
foreach (file($argv[2], FILE_IGNORE_NEW_LINES) as $case) {
    [$servers, $flavour, $outFile] = explode("\t", $case);
    $ring = Ketama\Ring::fromFile($servers, $flavour);
    $out = '';
    foreach ($keys as $key) {
        foreach ($sizes as $n) {
            $out .= $key . "\t" . $n . "\t" . implode(',', $ring->replicas($key, $n)) . "\n";
        }
    }
    file_put_contents($outFile, $out);
}

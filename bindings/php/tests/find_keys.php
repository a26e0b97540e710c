<?php

// KEY<TAB>SERVER for each key read from stdin, like `ketama find FILE`:
// php find_keys.php SERVERS_FILE [FLAVOUR] [HASH] [PARSE]. Used by tests/bindings/agreement.rs.

declare(strict_types=1);

require __DIR__ . '/../ketama.php';

$ring = Ketama\Ring::fromFile($argv[1], $argv[2] ?? 'libketama', $argv[3] ?? 'default', $argv[4] ?? false, ($argv[5] ?? '') ?: null);
$out = '';
while (($line = fgets(STDIN)) !== false) {
    $key = rtrim($line, "\r\n");
    $out .= $key . "\t" . $ring->server($key) . "\n";
}
echo $out;

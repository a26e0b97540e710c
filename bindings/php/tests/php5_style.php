<?php
// A script written for the original php_ketama extension (PHP 5 era):
// no types, array(), resources. It must run unchanged on PHP 8 with
// bindings/php/ketama.php. Usage: php php5_style.php SERVERS_FILE KEY...
require dirname(__FILE__) . '/../ketama.php';

$file = $argv[1];
$cont = ketama_roll($file);
if (!$cont) {
    die("roll failed\n");
}
echo "error after roll: '" . ketama_error() . "'\n";

for ($i = 2; $i < count($argv); $i++) {
    $key = $argv[$i];
    $server = ketama_get_server($key, $cont);
    printf("%s\t%s\t%u\n", $key, $server['ip'], $server['point']);
}

ketama_print_continuum($cont);
ketama_destroy($cont);
echo "destroyed\n";

$bad = ketama_roll($file . '.missing');
echo "not reached\n";

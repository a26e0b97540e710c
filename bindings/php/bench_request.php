<?php

/*
 * One user request of the PHP-FPM table (scripts/bench_php_fpm.sh): GET
 * parameters `case`, `servers` (a server file), `key`; prints the key's
 * server (`ok` for the empty request). Each case is what a user's script
 * does in every request:
 *
 *   fromFile     Ketama\Ring::fromFile($servers)->server($key)
 *   fromServers  Ketama\Ring::fromServers(require "$servers.php")->server($key)
 *                (the list as a PHP file returning [address => weight, ...],
 *                as a configuration file is; opcache keeps it compiled)
 *   compat       php_ketama's ketama_roll($servers) + ketama_get_server($key, ...)
 *   memcached    php-memcached with a persistent instance (its libmemcached
 *                ketama continuum built in the worker's first request, then
 *                kept): new Memcached('bench-N') + getServerByKey($key)
 *   empty        nothing (`ok`)
 *   rss          the worker's resident memory (`VmRSS:  N kB` of /proc/self/status)
 *   memory       PID<TAB>VmRSS<TAB>Pss of the worker (kB; Pss from /proc/self/smaps_rollup)
 *   first        fromFile timed inside the request: PID<TAB>µs<TAB>server (a
 *                worker's first request rolls its ring, or maps the one
 *                another worker published)
 *   first_compat the same for ketama_roll + ketama_get_server (the ring and
 *                its mcs records)
 *
 * `layout=debian` loads the binding as the php-ketama package's users do;
 * `hold=1` keeps the worker busy for 0.5 s after the answer is sent (so
 * that requests sent at once go to different workers); `hold_ms=N` for N ms.
 */

declare(strict_types=1);

if (($_GET['layout'] ?? '') === 'debian') {
    require_once 'Ketama/autoload.php'; // as the php-ketama package's users load it
} else {
    require_once __DIR__ . '/ketama.php';
}

header('Content-Type: text/plain');
$case = (string) ($_GET['case'] ?? '');
$servers = (string) ($_GET['servers'] ?? '');
$key = (string) ($_GET['key'] ?? '');

switch ($case) {
    case 'fromFile':
        echo Ketama\Ring::fromFile($servers)->server($key), "\n";
        break;
    case 'fromServers':
        echo Ketama\Ring::fromServers(require "{$servers}.php")->server($key), "\n";
        break;
    case 'compat':
        $continuum = ketama_roll($servers);
        echo ketama_get_server($key, $continuum)['ip'], "\n";
        break;
    case 'memcached':
        $memcached = new Memcached('bench-' . basename($servers));
        if (!$memcached->getServerList()) {
            $memcached->setOption(Memcached::OPT_LIBKETAMA_COMPATIBLE, true);
            $list = [];
            foreach (file($servers, FILE_IGNORE_NEW_LINES | FILE_SKIP_EMPTY_LINES) as $line) {
                [$address, $weight] = explode("\t", $line);
                [$host, $port] = explode(':', $address);
                $list[] = [$host, (int) $port, (int) $weight];
            }
            $memcached->addServers($list);
        }
        $server = $memcached->getServerByKey($key);
        echo $server['host'], ':', $server['port'], "\n";
        break;
    case 'first':
        $started = hrtime(true);
        $server = Ketama\Ring::fromFile($servers)->server($key);
        echo getmypid(), "\t", intdiv(hrtime(true) - $started, 1000), "\t", $server, "\n";
        break;
    case 'first_compat':
        $started = hrtime(true);
        $server = ketama_get_server($key, ketama_roll($servers))['ip'];
        echo getmypid(), "\t", intdiv(hrtime(true) - $started, 1000), "\t", $server, "\n";
        break;
    case 'empty':
        echo "ok\n";
        break;
    case 'rss':
        preg_match('/^VmRSS:\s+(\d+) kB/m', (string) file_get_contents('/proc/self/status'), $m);
        echo $m[1] ?? 'unknown', "\n";
        break;
    case 'memory':
        preg_match('/^VmRSS:\s+(\d+) kB/m', (string) file_get_contents('/proc/self/status'), $rss);
        preg_match('/^Pss:\s+(\d+) kB/m', (string) file_get_contents('/proc/self/smaps_rollup'), $pss);
        echo getmypid(), "\t", $rss[1] ?? 'unknown', "\t", $pss[1] ?? 'unknown', "\n";
        break;
    default:
        http_response_code(400);
        echo "unknown case '{$case}'\n";
}
$hold = ($_GET['hold'] ?? '') === '1' ? 500 : (int) ($_GET['hold_ms'] ?? 0);
if ($hold > 0) {
    fastcgi_finish_request();
    usleep($hold * 1000);
}

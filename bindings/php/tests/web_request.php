<?php

/*
 * The script the web-SAPI tests (tests/bindings/php_fpm.rs,
 * tests/packages/php_fpm.rs) request from PHP-FPM (through FastCGI) and
 * php-cgi: GET parameters in, text/plain out, exceptions left uncaught (a
 * failure is PHP's own fatal error, as a user's script would see it).
 *
 * The first line is `# pid=PID library=WHERE`: the worker that answered and
 * Ketama\Library::path() (the preloaded FFI scope, or the file FFI::cdef
 * opened). The rest depends on `case`:
 *
 *   find    servers=FILE keys=FILE [flavour=NAME]   KEY<TAB>SERVER per key, Ring::server()
 *   batch   servers=FILE keys=FILE [flavour=NAME]   the same from Ring::serversFor(), then
 *                                                   `= ADDRESS<TAB>KEY<TAB>KEY...` from groupKeys()
 *   key     servers=FILE key=KEY                    one KEY<TAB>SERVER line
 *   set     value=FILE members=FILE                 JSON: the decoded value (as `ketama set
 *                                                   decode --json`), its compacted form, and
 *                                                   the members encoded (add, remove; t1, b1)
 *   compat  servers=FILE keys=FILE missing=FILE     php_ketama functions: KEY<TAB>IP<TAB>POINT per
 *                                                   key, then the failed roll's error and ketama_error()
 *   cache   servers=FILE key=KEY [list=FILE]        KEY<TAB>SERVER<TAB>COUNT (the ring's server
 *                                                   count) from Ring::fromFile, or from
 *                                                   Ring::fromServers(require FILE) with `list`,
 *                                                   then Ketama\RingCache::stats() as JSON
 *   info                                            preloaded Ketama classes and functions
 *
 * `layout=debian` loads the binding as the php-ketama package is loaded
 * (`require_once 'Ketama/autoload.php';` through the include_path), else
 * from this checkout (`bindings/php/ketama.php`).
 */

declare(strict_types=1);

if (($_GET['layout'] ?? '') === 'debian') {
    require_once 'Ketama/autoload.php';
} else {
    require_once __DIR__ . '/../ketama.php';
}

use Ketama\Library;
use Ketama\Ring;
use Ketama\Set;

header('Content-Type: text/plain');

/** @return list<string> the lines of a file named by a GET parameter */
function lines(string $parameter): array
{
    return file($_GET[$parameter], FILE_IGNORE_NEW_LINES);
}

echo '# pid=', getmypid(), ' library=', Library::path(), "\n";

switch ($_GET['case'] ?? '') {
    case 'find':
        $ring = Ring::fromFile($_GET['servers'], $_GET['flavour'] ?? 'libketama');
        foreach (lines('keys') as $key) {
            echo $key, "\t", $ring->server($key), "\n";
        }
        break;

    case 'batch':
        $ring = Ring::fromFile($_GET['servers'], $_GET['flavour'] ?? 'libketama');
        $keys = lines('keys');
        foreach ($ring->serversFor($keys) as $i => $server) {
            echo $keys[$i], "\t", $server, "\n";
        }
        foreach ($ring->groupKeys($keys) as $address => $group) {
            echo '= ', $address, "\t", implode("\t", $group), "\n";
        }
        break;

    case 'key':
        echo $_GET['key'], "\t", Ring::fromFile($_GET['servers'])->server($_GET['key']), "\n";
        break;

    case 'cache':
        $ring = isset($_GET['list']) ? Ring::fromServers(require $_GET['list']) : Ring::fromFile($_GET['servers']);
        echo $_GET['key'], "\t", $ring->server($_GET['key']), "\t", $ring->serverCount(), "\n";
        echo json_encode(Ketama\RingCache::stats()), "\n";
        break;

    case 'set':
        $set = Set::decode(file_get_contents($_GET['value']));
        $stats = $set->stats();
        $members = lines('members');
        echo json_encode([
            'decoded' => [
                'members' => $set->members(),
                'records' => $stats['records'],
                'removals' => $stats['removals'],
                'redundant' => $stats['redundant'],
                'encoding' => $stats['encoding'],
                'sealed' => $set->sealed(),
            ],
            'compacted' => bin2hex($set->compacted()),
            'add_t1' => bin2hex(Set::encode($members)),
            'remove_t1' => bin2hex(Set::encode($members, 'remove')),
            'add_b1' => bin2hex(Set::encode($members, 'add', 'b1')),
        ], JSON_THROW_ON_ERROR), "\n";
        break;

    case 'compat':
        $continuum = ketama_roll($_GET['servers']);
        foreach (lines('keys') as $key) {
            $server = ketama_get_server($key, $continuum);
            printf("%s\t%s\t%u\n", $key, $server['ip'], $server['point']);
        }
        ketama_destroy($continuum);
        // The failed roll raises E_USER_ERROR, fatal unless a handler takes it.
        set_error_handler(function (int $level, string $message): bool {
            echo 'error: ', $message, "\n";
            return true;
        }, E_USER_ERROR);
        var_export(ketama_roll($_GET['missing']));
        echo "\nketama_error: ", ketama_error(), "\n";
        break;

    case 'info':
        $preloaded = opcache_get_status(false)['preload_statistics'] ?? [];
        $classes = array_filter($preloaded['classes'] ?? [], fn (string $c): bool => str_starts_with($c, 'Ketama\\'));
        $functions = array_filter($preloaded['functions'] ?? [], fn (string $f): bool => str_starts_with($f, 'ketama_'));
        sort($classes);
        sort($functions);
        echo 'preloaded classes: ', implode(' ', $classes), "\n";
        echo 'preloaded functions: ', implode(' ', $functions), "\n";
        break;

    default:
        http_response_code(400);
        echo "unknown case\n";
}

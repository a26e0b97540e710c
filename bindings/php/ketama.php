<?php

/*
 * libketama for PHP 8 over FFI: `require 'bindings/php/ketama.php';`
 *
 *  - namespace Ketama: Ring (find, findAvoiding, servers, points), RingCache,
 *    Location, Set (set codec: decode, encode, planRead, compacted,
 *    union/inter/diff), SetWriter (the APPEND/ADD write recipe),
 *    KetamaException, Library (finds and loads libketama.so), Migration
 *    and MigrationOp (moving a pool between two rings), MigratingMemcached
 *    (php-memcached across a migration);
 *  - the php_ketama global functions (ketama_roll, ketama_get_server,
 *    ketama_destroy, ketama_print_continuum, ketama_error), see compat.php.
 *
 * The library is found through KETAMA_LIBRARY, this repository's
 * target/release or target/debug, or the system library path.
 */

declare(strict_types=1);

require_once __DIR__ . '/src/KetamaException.php';
require_once __DIR__ . '/src/Library.php';
require_once __DIR__ . '/src/Location.php';
require_once __DIR__ . '/src/Ring.php';
require_once __DIR__ . '/src/RingCache.php';
require_once __DIR__ . '/src/Continuum.php';
require_once __DIR__ . '/src/Bytes.php';
require_once __DIR__ . '/src/Set.php';
require_once __DIR__ . '/src/SetWriter.php';
require_once __DIR__ . '/src/Migration.php';
require_once __DIR__ . '/src/MigrationOp.php';
require_once __DIR__ . '/src/MigratingMemcached.php';
require_once __DIR__ . '/compat.php';

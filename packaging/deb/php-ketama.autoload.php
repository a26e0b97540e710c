<?php

/*
 * Entry point of the Debian package php-ketama (/usr/share/php is on PHP's
 * default include_path): `require_once 'Ketama/autoload.php';` loads the
 * Ketama namespace and the php_ketama global functions. The library is
 * libketama.so.1 from the libketama1 package, found by the dynamic loader.
 */

declare(strict_types=1);

require_once __DIR__ . '/ketama.php';

<?php

/*
 * opcache.preload script of the Ketama binding, for the web SAPIs (PHP-FPM,
 * Apache's mod_php, CGI), whose default ffi.enable=preload lets only
 * preloaded code use FFI. Give PHP these settings (the Debian package
 * php-ketama ships them as the ini snippet `ketama`: phpenmod -s fpm ketama):
 *
 *   ffi.preload=/path/to/Ketama/ketama_ffi.h        the library's declarations, scope "ketama"
 *   opcache.preload=/path/to/Ketama/preload.php     this file
 *   opcache.preload_user=www-data                   when the server starts as root
 *
 * At server start ffi.preload opens libketama.so.1 (FFI_LIB in ketama_ffi.h)
 * once, and this file compiles the Ketama classes and the php_ketama
 * functions into opcache; every request then finds them defined (its own
 * `require_once 'Ketama/autoload.php'` or Composer autoload does nothing
 * more) and their FFI calls go through the preloaded scope.
 *
 * opcache.preload takes one file: with a preload script of your own, keep
 * it and add `require_once '/path/to/Ketama/preload.php';` to it.
 */

declare(strict_types=1);

require_once __DIR__ . '/ketama.php';

// The Debian package's entry point sits beside this file: preloaded too, a
// request's own `require_once 'Ketama/autoload.php'` finds it included.
if (is_file(__DIR__ . '/autoload.php')) {
    require_once __DIR__ . '/autoload.php';
}

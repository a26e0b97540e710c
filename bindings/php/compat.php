<?php

/*
 * The global functions of the original php_ketama extension (PHP 4/5), over
 * the same C functions of libketama.so, so that scripts written for it run
 * unchanged on PHP 8. Each is defined only if no function of that name exists
 * (e.g. when the old extension is loaded).
 *
 * Differences a script can notice:
 *  - ketama_roll() returns a Ketama\Continuum object instead of a resource
 *    (is_resource() is false for it); it is destroyed like the resource was.
 *  - A failed ketama_roll() raises a fatal error (E_USER_ERROR) with the
 *    original's message "unable to create Ketama continuum: <ketama_error()>",
 *    ending the script like the original's E_ERROR. Only a user error handler
 *    that swallows it lets the script go on; ketama_roll() then returns false.
 *  - Where the original crashed (lookup on an empty or destroyed continuum)
 *    a Ketama\KetamaException is thrown instead.
 *  - ketama_print_continuum() writes to C's stdout like the original (it
 *    bypasses PHP output buffering) and flushes it so the text is not reordered.
 */

declare(strict_types=1);

use Ketama\Continuum;
use Ketama\KetamaException;
use Ketama\Library;

if (!function_exists('ketama_roll')) {
    /**
     * Reads the server file and returns its continuum.
     *
     * @return Continuum|false false only if an error handler swallowed the fatal error
     */
    function ketama_roll(string $filename): Continuum|false
    {
        // The continuum is returned, not written through an out-pointer,
        // which FFI would make by parsing a type on every request.
        $continuum = Library::ffi()->ketama_roll_file($filename);
        if ($continuum === null) {
            trigger_error('unable to create Ketama continuum: ' . Library::lastError(), E_USER_ERROR);
            return false;
        }
        return new Continuum($continuum, $filename);
    }
}

if (!function_exists('ketama_get_server')) {
    /**
     * The server for `$key` (up to its first NUL byte, as in C):
     * `['point' => int, 'ip' => string]`.
     *
     * @return array{point: int, ip: string}
     */
    function ketama_get_server(string $key, Continuum $continuum): array
    {
        $mcs = Library::ffi()->ketama_get_server($key, $continuum->handle());
        if ($mcs === null) { // FFI returns a NULL pointer as null
            throw new KetamaException("ketama_get_server: the continuum of {$continuum->filename} is empty");
        }
        return ['point' => $mcs->point, 'ip' => FFI::string($mcs->ip)];
    }
}

if (!function_exists('ketama_destroy')) {
    /** Releases the continuum (`ketama_smoke`). */
    function ketama_destroy(Continuum $continuum): void
    {
        $continuum->destroy();
    }
}

if (!function_exists('ketama_print_continuum')) {
    /**
     * Prints `Numpoints in continuum: N` and `<ip> (<point>)` per point to C's
     * stdout (not through PHP's output buffering, like the original).
     */
    function ketama_print_continuum(Continuum $continuum): void
    {
        static $libc = null;
        $libc ??= FFI::cdef('int fflush(void *stream);');
        flush();
        Library::ffi()->ketama_print_continuum($continuum->handle());
        $libc->fflush(null);
    }
}

if (!function_exists('ketama_error')) {
    /** The library's last error message (`''` after a successful roll). */
    function ketama_error(): string
    {
        return Library::lastError();
    }
}

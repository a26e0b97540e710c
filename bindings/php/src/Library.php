<?php

declare(strict_types=1);

namespace Ketama;

use FFI;

/**
 * Loads libketama.so through PHP's FFI with the flattened header
 * `ketama_ffi.h` (generated from the library's Rust source).
 *
 * The library is taken, in order, from:
 *  1. the FFI scope `ketama`, when `ffi.preload` loaded `ketama_ffi.h` at
 *     server start (see preload.php: how PHP-FPM, Apache and CGI, whose
 *     default `ffi.enable=preload` allows FFI only from preloaded code, use
 *     the binding);
 *  2. the `KETAMA_LIBRARY` environment variable (the .so file or its directory);
 *  3. this package's own build: `target/release/libketama.so`, then `target/debug/libketama.so`;
 *  4. the system library path (`libketama.so.1`, as the dynamic loader finds it).
 * Where FFI is restricted (`ffi.enable`), the error names the setting, the
 * SAPI and the ways out instead.
 */
final class Library
{
    /** The scope `ketama_ffi.h` declares for `ffi.preload` (its `FFI_SCOPE` line). */
    public const SCOPE = 'ketama';

    private static ?FFI $ffi = null;
    private static string $path = '';

    /** The FFI instance, loading the library on first use. */
    public static function ffi(): FFI
    {
        return self::$ffi ??= self::load();
    }

    /**
     * The path (or soname) the library was loaded from, or
     * `FFI scope ketama (ffi.preload=...)` when it came preloaded.
     */
    public static function path(): string
    {
        self::ffi();
        return self::$path !== '' ? self::$path
            : 'FFI scope ' . self::SCOPE . ' (ffi.preload=' . ini_get('ffi.preload') . ')';
    }

    /**
     * Throws a KetamaException for a failed call: `$status` is the returned
     * `ketama_status`; the message comes from `ketama_error()`.
     */
    public static function check(int $status): void
    {
        if ($status !== 0) {
            $ffi = self::ffi();
            throw new KetamaException(self::lastError(), $status, self::string($ffi->ketama_status_name($status)));
        }
    }

    /**
     * Throws a KetamaException for a call that returned NULL: the status is
     * `ketama_last_status()`, the message `ketama_error()`.
     */
    public static function fail(): never
    {
        self::check(self::ffi()->ketama_last_status());
        throw new KetamaException('the library returned NULL without reporting a failure');
    }

    /** The library's last error message on this thread (`ketama_error()`). */
    public static function lastError(): string
    {
        return self::string(self::ffi()->ketama_error());
    }

    /** A PHP string from a `char*` result (FFI converts `const char*` itself). */
    public static function string(mixed $value): string
    {
        if (is_string($value)) {
            return $value;
        }
        return $value === null ? '' : FFI::string($value);
    }

    private static function load(): FFI
    {
        // The preloaded scope first, with nothing else asked: this runs in every request.
        try {
            return FFI::scope(self::SCOPE);
        } catch (\Error $e) {
            if (!extension_loaded('ffi')) {
                throw new KetamaException('the PHP FFI extension is not loaded (Debian: php8.2-cli ships it; check ffi.enable)');
            }
            if (!$e instanceof FFI\Exception) {
                throw $e;
            }
            // "Failed loading scope": nothing preloaded, read the header below.
            self::throwIfRestricted($e);
        }
        $header = __DIR__ . '/../ketama_ffi.h';
        $declarations = @file_get_contents($header);
        if ($declarations === false) {
            throw new KetamaException("cannot read the FFI header {$header}");
        }
        // FFI::cdef reads no preprocessor line: drop the FFI_SCOPE/FFI_LIB defines meant for ffi.preload.
        $declarations = preg_replace('/\A(?:#define FFI_\w+ [^\n]*\n)+/', '', $declarations);
        $tried = [];
        foreach (self::candidates() as [$where, $library]) {
            if ($library === null) {
                $tried[] = "{$where}: not set";
                continue;
            }
            if (str_contains($library, '/') && !is_file($library)) {
                $tried[] = "{$where}: {$library} does not exist";
                continue;
            }
            try {
                $ffi = FFI::cdef($declarations, $library);
                self::$path = $library;
                return $ffi;
            } catch (FFI\Exception $e) {
                self::throwIfRestricted($e);
                $tried[] = "{$where}: {$library}: {$e->getMessage()}";
            }
        }
        throw new KetamaException("libketama.so not found or not usable; looked in:\n  " . implode("\n  ", $tried)
            . "\nSet KETAMA_LIBRARY to the library file, install the libketama1 package, or run `cargo build` in the ketama repository.");
    }

    /**
     * Turns PHP's "FFI API is restricted by ffi.enable" into an error that
     * names the setting, the SAPI and the ways out: preloading the binding
     * (preload.php with ketama_ffi.h) or `ffi.enable=true`.
     */
    private static function throwIfRestricted(FFI\Exception $e): void
    {
        if (!str_contains($e->getMessage(), '"ffi.enable"')) {
            return;
        }
        $enable = (string) ini_get('ffi.enable');
        $sapi = PHP_SAPI;
        $dir = realpath(dirname(__DIR__)) ?: dirname(__DIR__);
        $preload = "ffi.preload={$dir}/ketama_ffi.h and opcache.preload={$dir}/preload.php"
            . ' (with opcache.preload_user=www-data, or the user the server runs PHP as, when it starts as root)';
        $debian = ['fpm-fcgi' => 'fpm', 'apache2handler' => 'apache2', 'cgi-fcgi' => 'cgi'][$sapi] ?? null;
        if ($debian !== null && $dir === '/usr/share/php/Ketama') {
            $preload .= "; with the php-ketama package: phpenmod -s {$debian} ketama, then restart the server";
        }
        if (strtolower($enable) === 'preload') {
            throw new KetamaException(
                "FFI is restricted by ffi.enable=preload (PHP's default) in the {$sapi} SAPI: only preloaded code may use FFI,"
                . " and the Ketama binding was not preloaded. Either preload it: {$preload};"
                . ' or allow FFI in every script with ffi.enable=true.',
            );
        }
        throw new KetamaException(
            "FFI is disabled by ffi.enable={$enable} in the {$sapi} SAPI. Either set ffi.enable=preload and preload the binding:"
            . " {$preload}; or allow FFI in every script with ffi.enable=true.",
        );
    }

    /** @return list<array{0: string, 1: ?string}> where to look, in order. */
    private static function candidates(): array
    {
        $env = getenv('KETAMA_LIBRARY');
        if (is_string($env) && $env !== '' && is_dir($env)) {
            $env = rtrim($env, '/') . '/libketama.so';
        }
        $root = dirname(__DIR__, 3);
        return [
            ['KETAMA_LIBRARY', is_string($env) && $env !== '' ? $env : null],
            ['package build (release)', "{$root}/target/release/libketama.so"],
            ['package build (debug)', "{$root}/target/debug/libketama.so"],
            ['system library path', 'libketama.so.1'],
        ];
    }
}

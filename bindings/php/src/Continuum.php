<?php

declare(strict_types=1);

namespace Ketama;

use FFI\CData;

/**
 * What `ketama_roll()` returns: the original extension's "ketama continuum"
 * resource, as an object (PHP 8 userland cannot create resources). It wraps
 * the C `ketama_continuum` and smokes it when destroyed, like the original
 * resource destructor.
 */
final class Continuum
{
    /** @internal use ketama_roll() */
    public function __construct(private ?CData $continuum, public readonly string $filename)
    {
    }

    /** The C `ketama_continuum`; throws once destroyed. */
    public function handle(): CData
    {
        return $this->continuum ?? throw new KetamaException("the ketama continuum of {$this->filename} was destroyed");
    }

    /** Releases the continuum (`ketama_smoke`); later calls do nothing. */
    public function destroy(): void
    {
        if ($this->continuum !== null) {
            Library::ffi()->ketama_smoke($this->continuum);
            $this->continuum = null;
        }
    }

    public function __destruct()
    {
        $this->destroy();
    }
}

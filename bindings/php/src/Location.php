<?php

declare(strict_types=1);

namespace Ketama;

/** Where a key landed on a ring. */
final class Location
{
    public function __construct(
        /** The server's position in the list the ring was built from (0-based). */
        public readonly int $serverIndex,
        /** The server's address as given (`127.0.0.1:11211`). */
        public readonly string $address,
        /** The continuum point that was hit (0 .. 2^32-1). */
        public readonly int $point,
        /** That point's position in continuum order. */
        public readonly int $pointIndex,
    ) {
    }
}

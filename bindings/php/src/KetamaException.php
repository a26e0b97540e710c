<?php

declare(strict_types=1);

namespace Ketama;

/**
 * An error reported by libketama. The message is the library's own
 * (`ketama_error()`); the code is the `ketama_status` value and
 * {@see KetamaException::$status} its name, e.g. `KETAMA_ERR_PARSE`.
 */
class KetamaException extends \RuntimeException
{
    /** The status name (`KETAMA_ERR_...`), or '' when the error came from the binding itself. */
    public readonly string $status;

    public function __construct(string $message, int $code = 0, string $status = '', ?\Throwable $previous = null)
    {
        parent::__construct($message, $code, $previous);
        $this->status = $status;
    }
}

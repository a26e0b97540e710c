package net.ketama;

/**
 * An error reported by libketama. The message is the library's own
 * ({@code ketama_error()}); {@link #status()} is the {@code ketama_status}
 * value and {@link #statusName()} its name, e.g. {@code KETAMA_ERR_PARSE}.
 */
public class KetamaException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    private final int status;
    private final String statusName;

    /** An error of the library: its status code, name and message. */
    public KetamaException(int status, String statusName, String message) {
        super(message);
        this.status = status;
        this.statusName = statusName;
    }

    /** An error detected by the binding itself (status 0, name ""). */
    public KetamaException(String message) {
        this(0, "", message);
    }

    /** The {@code ketama_status} value (0 when the binding raised it). */
    public int status() {
        return status;
    }

    /** The status name, e.g. {@code KETAMA_ERR_NO_SERVERS} ("" when the binding raised it). */
    public String statusName() {
        return statusName;
    }
}

package net.ketama;

/** Loads the library and prints its version, or the binding's error and exit status 3. */
public final class Probe {
    public static void main(String[] args) {
        try {
            System.out.println("libketama " + Ring.libraryVersion());
        } catch (KetamaException e) {
            System.out.println(e.getMessage());
            System.exit(3);
        }
    }
}

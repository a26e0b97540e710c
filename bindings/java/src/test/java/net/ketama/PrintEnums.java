package net.ketama;

/** Prints the Java enums as C constants (NAME=id lines); tests/bindings_java.rs compares them with include/ketama.h. */
public final class PrintEnums {
    public static void main(String[] args) {
        for (Flavour f : Flavour.values()) {
            System.out.println(f.cName() + "=" + f.id());
        }
        for (Hash h : Hash.values()) {
            System.out.println(h.cName() + "=" + h.id());
        }
    }
}

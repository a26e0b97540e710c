package net.ketama;

/**
 * Prints the generated Java enums as C constants (NAME=id lines); tests/bindings/java.rs
 * compares them with the core's registry, which include/ketama.h is generated from.
 */
public final class PrintEnums {
    public static void main(String[] args) {
        for (Flavour v : Flavour.values()) {
            System.out.println(v.cName() + "=" + v.id());
        }
        for (Hash v : Hash.values()) {
            System.out.println(v.cName() + "=" + v.id());
        }
        for (ParseMode v : ParseMode.values()) {
            System.out.println(v.cName() + "=" + v.id());
        }
        for (SetEncoding v : SetEncoding.values()) {
            System.out.println(v.cName() + "=" + v.id());
        }
        for (SetOp v : SetOp.values()) {
            System.out.println(v.cName() + "=" + v.id());
        }
        for (SetSide v : SetSide.values()) {
            System.out.println(v.cName() + "=" + v.id());
        }
        for (SetWriter.Action v : SetWriter.Action.values()) {
            System.out.println(v.cName() + "=" + v.id());
        }
        for (SetWriter.Reply v : SetWriter.Reply.values()) {
            System.out.println(v.cName() + "=" + v.id());
        }
    }
}

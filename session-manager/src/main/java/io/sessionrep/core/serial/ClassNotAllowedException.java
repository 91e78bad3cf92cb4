package io.sessionrep.core.serial;

/** Received bytes name a class outside the {@link ClassAllowlist}; nothing was instantiated. */
public class ClassNotAllowedException extends Exception {
    private final String className;

    public ClassNotAllowedException(String className) {
        super("class not in serialization-allowlist: " + className);
        this.className = className;
    }

    public String className() {
        return className;
    }
}

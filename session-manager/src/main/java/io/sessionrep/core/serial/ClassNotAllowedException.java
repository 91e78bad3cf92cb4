package io.sessionrep.core.serial;

/** Received bytes name a class outside the {@link ClassAllowlist}; nothing was instantiated. */
public class ClassNotAllowedException extends Exception {
    private final String className;
    private final transient ClassLoader loader;

    public ClassNotAllowedException(String className) {
        this(className, null);
    }

    /** {@code loader}: where {@link #isClassHere} looks; null: nowhere. */
    public ClassNotAllowedException(String className, ClassLoader loader) {
        super("class not in serialization-allowlist: " + className);
        this.className = className;
        this.loader = loader;
    }

    public String className() {
        return className;
    }

    /**
     * Whether a class of that name exists on this node (its class file can be found; nothing is loaded). When it
     * does not, the name is not one to add to the allowlist: the bytes were most likely written in another format
     * or by another version of a class, and were read out of step. Looked up on each call: ask it only when about
     * to report.
     */
    public boolean isClassHere() {
        if (loader == null || className.isEmpty() || className.startsWith("[")) {
            return false;
        }
        return loader.getResource(className.replace('.', '/') + ".class") != null;
    }
}

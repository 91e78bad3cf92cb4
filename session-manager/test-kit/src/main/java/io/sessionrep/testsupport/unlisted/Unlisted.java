package io.sessionrep.testsupport.unlisted;

import java.io.Serializable;

/** An attribute class in a package that node B does not allowlist. */
public class Unlisted implements Serializable {
    private static final long serialVersionUID = 1L;
    private String value;

    public Unlisted() {
    }

    public Unlisted(String value) {
        this.value = value;
    }

    @Override
    public String toString() {
        return "Unlisted(" + value + ")";
    }
}

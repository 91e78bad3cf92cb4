package io.sessionrep.testsupport.allowed;

import java.io.Serializable;

/** An attribute class in a package every node allowlists. */
public class Note implements Serializable {
    private static final long serialVersionUID = 1L;
    private String text;

    public Note() {
    }

    public Note(String text) {
        this.text = text;
    }

    @Override
    public String toString() {
        return "Note(" + text + ")";
    }
}

package io.sessionrep.core.serial;

import java.io.IOException;

/**
 * What {@link SessionSerializer#deserialize} and {@link SessionSerializer#decodesToValue} conclude about the
 * same bytes, in one comparable form: "true" (a value), "false" (null), or the simple name of the exception
 * the contract allows. A backup stores what the check accepts and rebuilds it with deserialize on take-over,
 * so the two must always agree.
 */
public final class Verdicts {
    private Verdicts() {
    }

    public static String ofDeserialize(SessionSerializer serializer, byte[] bytes) {
        try {
            return String.valueOf(serializer.deserialize(bytes) != null);
        } catch (ClassNotAllowedException | IOException e) {
            return e.getClass().getSimpleName();
        }
    }

    public static String ofCheck(SessionSerializer serializer, byte[] bytes) {
        try {
            return String.valueOf(serializer.decodesToValue(bytes));
        } catch (ClassNotAllowedException | IOException e) {
            return e.getClass().getSimpleName();
        }
    }
}

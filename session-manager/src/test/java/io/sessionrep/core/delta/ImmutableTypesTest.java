package io.sessionrep.core.delta;

import org.junit.jupiter.api.Test;

import java.time.LocalDate;
import java.util.ArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which values a getAttribute may hand out without the session counting as changed (the per-class cache included). */
class ImmutableTypesTest {
    enum Plain { ONE }

    enum WithBodies {
        ONE {
            @Override
            int value() {
                return 1;
            }
        };

        abstract int value();
    }

    record Money(String currency, long cents) {
    }

    record Basket(String owner, byte[] items) {
    }

    @Test
    void valuesThatCannotChangeInPlace() {
        for (int round = 0; round < 2; round++) { // the second round answers from the per-class cache
            assertTrue(ImmutableTypes.isKnownImmutable("text"));
            assertTrue(ImmutableTypes.isKnownImmutable(42));
            assertTrue(ImmutableTypes.isKnownImmutable(Plain.ONE));
            assertTrue(ImmutableTypes.isKnownImmutable(WithBodies.ONE), "an enum constant with a body is a subclass");
            assertTrue(ImmutableTypes.isKnownImmutable(TimeUnit.SECONDS));
            assertTrue(ImmutableTypes.isKnownImmutable(LocalDate.of(2026, 11, 25)));
            assertTrue(ImmutableTypes.isKnownImmutable(new Money("EUR", 100)));
        }
    }

    @Test
    void valuesThatCanChangeInPlace() {
        for (int round = 0; round < 2; round++) {
            assertFalse(ImmutableTypes.isKnownImmutable(new byte[1]));
            assertFalse(ImmutableTypes.isKnownImmutable(new ArrayList<String>()));
            assertFalse(ImmutableTypes.isKnownImmutable(new Basket("ada", new byte[1])), "a record holding an array");
        }
    }
}

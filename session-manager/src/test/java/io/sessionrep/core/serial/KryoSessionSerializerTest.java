package io.sessionrep.core.serial;

import org.junit.jupiter.api.Test;

import java.io.NotSerializableException;
import java.io.Serializable;
import java.time.LocalDate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;

class KryoSessionSerializerTest {
    private final ClassLoader loader = getClass().getClassLoader();
    private final KryoSessionSerializer jdkOnly = new KryoSessionSerializer(ClassAllowlist.of(List.of()), loader);
    private final KryoSessionSerializer withApp =
            new KryoSessionSerializer(ClassAllowlist.of(List.of("io.sessionrep.core.serial.")), loader);

    record Cart(String owner, List<String> items) implements Serializable {
    }

    static final class CustomHooks implements Serializable {
        transient String derived;
        String base = "b";

        private void readObject(java.io.ObjectInputStream in) throws java.io.IOException, ClassNotFoundException {
            in.defaultReadObject();
            derived = base + "!";
        }
    }

    static final class NotSerializable {
    }

    @Test
    void jdkValuesRoundTripWithoutConfiguration() throws Exception {
        Map<String, Object> value = new HashMap<>(Map.of("date", LocalDate.of(2026, 1, 2), "n", 5L,
                "list", new ArrayList<>(List.of("a", "b"))));
        assertEquals(value, jdkOnly.deserialize(jdkOnly.serialize(value)));
    }

    @Test
    void applicationClassesNeedTheirPackageInTheAllowlist() throws Exception {
        byte[] bytes = withApp.serialize(new Cart("alice", List.of("book")));
        assertEquals(new Cart("alice", List.of("book")), withApp.deserialize(bytes));
        ClassNotAllowedException refused = assertThrows(ClassNotAllowedException.class, () -> jdkOnly.deserialize(bytes));
        assertEquals(Cart.class.getName(), refused.className());
    }

    @Test
    void knownGadgetContainerIsRefused() throws Exception {
        PriorityQueue<String> queue = new PriorityQueue<>(List.of("x")); // classic deserialization gadget entry point
        assertThrows(UnsupportedValueException.class, () -> withApp.serialize(queue)); // never written by a primary
        byte[] bytes = HostileValues.plainKryoBytes(queue);
        ClassNotAllowedException refused = assertThrows(ClassNotAllowedException.class, () -> withApp.deserialize(bytes));
        assertEquals("java.util.PriorityQueue", refused.className());
    }

    @Test
    void classesWithCustomJavaSerializationUseTheFilteredFallback() throws Exception {
        CustomHooks back = (CustomHooks) withApp.deserialize(withApp.serialize(new CustomHooks()));
        assertEquals("b!", back.derived);
        assertThrows(ClassNotAllowedException.class, () -> jdkOnly.deserialize(withApp.serialize(new CustomHooks())));
    }

    @Test
    void nonSerializableValueIsReportedByClassName() {
        UnsupportedValueException e = assertThrows(UnsupportedValueException.class,
                () -> withApp.serialize(new ArrayList<>(List.of(new NotSerializable()))));
        assertEquals(NotSerializable.class.getName(), e.className());
        assertInstanceOf(NotSerializableException.class, e);
    }
}

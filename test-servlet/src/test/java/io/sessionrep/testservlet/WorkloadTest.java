package io.sessionrep.testservlet;

import org.junit.jupiter.api.Test;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

class WorkloadTest {

    @Test
    void initializeCreatesNumberAttributesOfSizeKiBAtVersionZero() {
        Map<String, Object> session = new HashMap<>();
        Workload.initialize(WorkloadAttributes.of(session), 2, 5);

        assertEquals(0, session.get("version"));
        assertEquals(5 * 1024, ((byte[]) session.get("attr-0")).length);
        assertEquals(5 * 1024, ((byte[]) session.get("attr-1")).length);
        assertEquals(3, session.size());
        WorkloadState state = Workload.summarize(WorkloadAttributes.of(session));
        assertEquals(new WorkloadState(0, 2, 10 * 1024, state.checksum()), state);
        assertEquals(64, state.checksum().length(), "hex SHA-256");
    }

    @Test
    void processIncrementsVersionAndReplacesEveryAttribute() {
        Map<String, Object> session = new HashMap<>();
        Workload.initialize(WorkloadAttributes.of(session), 3, 1);
        byte[] before = (byte[]) session.get("attr-2");
        String checksumBefore = Workload.summarize(WorkloadAttributes.of(session)).checksum();

        assertTrue(Workload.process(WorkloadAttributes.of(session)));

        assertEquals(1, session.get("version"));
        byte[] after = (byte[]) session.get("attr-2");
        assertNotSame(before, after, "a new array, stored with set (setAttribute)");
        assertFalse(java.util.Arrays.equals(before, after));
        assertEquals(before.length, after.length);
        assertNotEquals(checksumBefore, Workload.summarize(WorkloadAttributes.of(session)).checksum());
    }

    @Test
    void stateIsAPureFunctionOfNumberSizeAndVersion() {
        Map<String, Object> session = new HashMap<>();
        Workload.initialize(WorkloadAttributes.of(session), 2, 5);
        assertEquals(Workload.expected(2, 5, 0), Workload.summarize(WorkloadAttributes.of(session)));
        for (int v = 1; v <= 7; v++) {
            Workload.process(WorkloadAttributes.of(session));
            assertEquals(Workload.expected(2, 5, v), Workload.summarize(WorkloadAttributes.of(session)));
        }
    }

    @Test
    void checksumDoesNotDependOnAttributeOrder() {
        Map<String, Object> forward = new LinkedHashMap<>();
        Map<String, Object> backward = new LinkedHashMap<>();
        Workload.initialize(WorkloadAttributes.of(forward), 3, 2);
        new TreeMap<>(forward).descendingMap().forEach(backward::put);

        assertEquals(Workload.summarize(WorkloadAttributes.of(forward)),
                Workload.summarize(WorkloadAttributes.of(backward)));
    }

    @Test
    void checksumSeesEveryByteAndTheVersion() {
        Map<String, Object> session = new HashMap<>();
        Workload.initialize(WorkloadAttributes.of(session), 2, 1);
        String original = Workload.summarize(WorkloadAttributes.of(session)).checksum();

        ((byte[]) session.get("attr-1"))[1023] ^= 1;
        assertNotEquals(original, Workload.summarize(WorkloadAttributes.of(session)).checksum());
        ((byte[]) session.get("attr-1"))[1023] ^= 1;
        assertEquals(original, Workload.summarize(WorkloadAttributes.of(session)).checksum());

        session.put("version", 1);
        assertNotEquals(original, Workload.summarize(WorkloadAttributes.of(session)).checksum());
    }

    @Test
    void patternsDifferByVersionAndIndexAndRepeatExactly() {
        assertArrayEquals(Workload.pattern(3, 1, 100), Workload.pattern(3, 1, 100));
        assertFalse(java.util.Arrays.equals(Workload.pattern(3, 1, 100), Workload.pattern(4, 1, 100)));
        assertFalse(java.util.Arrays.equals(Workload.pattern(3, 1, 100), Workload.pattern(3, 2, 100)));
    }

    @Test
    void reinitializeDropsSurplusAttributesAndResetsVersion() {
        Map<String, Object> session = new HashMap<>();
        Workload.initialize(WorkloadAttributes.of(session), 4, 1);
        Workload.process(WorkloadAttributes.of(session));
        session.put("user", "someone else's attribute");

        Workload.initialize(WorkloadAttributes.of(session), 2, 1);

        assertEquals(0, session.get("version"));
        assertFalse(session.containsKey("attr-2"));
        assertFalse(session.containsKey("attr-3"));
        assertEquals("someone else's attribute", session.get("user"), "not the workload's: left alone");
        assertEquals(Workload.expected(2, 1, 0), Workload.summarize(WorkloadAttributes.of(session)),
                "the checksum covers only the workload's attributes");
    }

    @Test
    void processOfAnUninitializedSessionChangesNothing() {
        Map<String, Object> session = new HashMap<>();
        session.put("attr-0", new byte[]{1, 2});

        assertFalse(Workload.process(WorkloadAttributes.of(session)));
        assertArrayEquals(new byte[]{1, 2}, (byte[]) session.get("attr-0"));
        assertNull(Workload.summarize(WorkloadAttributes.of(session)).version());
    }

    @Test
    void onlyAttrDigitsArePayload() {
        assertEquals(0, Workload.payloadIndex("attr-0"));
        assertEquals(99, Workload.payloadIndex("attr-99"));
        assertEquals(-1, Workload.payloadIndex("attr-"));
        assertEquals(-1, Workload.payloadIndex("attr-x"));
        assertEquals(-1, Workload.payloadIndex("version"));
        assertEquals(-1, Workload.payloadIndex("attr-99999999999"));
    }
}

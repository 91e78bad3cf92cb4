package io.sessionrep.testservlet;

import io.sessionrep.testservlet.WorkloadRequest.Mode;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.HashMap;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

class WorkloadRequestTest {

    @Test
    void initializeReadsNumberAndSize() throws Exception {
        assertEquals(new WorkloadRequest(Mode.INITIALIZE, 2, 5), parse("mode", "initialize", "number", "2", "size", "5"));
        assertEquals(new WorkloadRequest(Mode.INITIALIZE, 100, 1024),
                parse("mode", "initialize", "number", "100", "size", "1024"));
        assertEquals(new WorkloadRequest(Mode.INITIALIZE, 1, 1), parse("mode", "initialize", "number", " 1 ", "size", "1"));
    }

    @Test
    void otherModesIgnoreNumberAndSize() throws Exception {
        assertEquals(new WorkloadRequest(Mode.PROCESS, 0, 0), parse("mode", "process"));
        assertEquals(new WorkloadRequest(Mode.VERIFY, 0, 0), parse("mode", "verify", "number", "junk"));
        assertEquals(new WorkloadRequest(Mode.DESTROY, 0, 0), parse("mode", "destroy"));
    }

    @Test
    void processTakesTheVersionLastSeen() throws Exception {
        assertEquals(new WorkloadRequest(Mode.PROCESS, 0, 0, 7), parse("mode", "process", "from", "7"));
        assertEquals(new WorkloadRequest(Mode.PROCESS, 0, 0, 0), parse("mode", "process", "from", " 0 "));
        assertEquals(new WorkloadRequest(Mode.VERIFY, 0, 0), parse("mode", "verify", "from", "7"));
        for (String bad : new String[]{"-1", "x", ""}) {
            WorkloadRequest.Invalid e = assertThrows(WorkloadRequest.Invalid.class,
                    () -> parse("mode", "process", "from", bad));
            assertEquals("from: '" + bad + "' is not allowed; expected the version last seen, an integer from 0",
                    e.getMessage());
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "          |    |    | missing parameter mode; expected one of initialize, process, destroy, verify",
            "INIT      |    |    | mode: 'INIT' is not allowed; expected one of initialize, process, destroy, verify",
            "initialize|    | 5  | missing parameter number; expected an integer from 1 to 100",
            "initialize| 2  |    | missing parameter size; expected an integer from 1 to 1024",
            "initialize| 0  | 5  | number: 0 is not allowed; expected an integer from 1 to 100",
            "initialize| 101| 5  | number: 101 is not allowed; expected an integer from 1 to 100",
            "initialize| two| 5  | number: 'two' is not allowed; expected an integer from 1 to 100",
            "initialize| 2  | 0  | size: 0 is not allowed; expected an integer from 1 to 1024",
            "initialize| 2  |1025| size: 1025 is not allowed; expected an integer from 1 to 1024",
            "initialize| 2  |5.5 | size: '5.5' is not allowed; expected an integer from 1 to 1024",
    })
    void badParametersAreNamedWithTheAllowedValues(String mode, String number, String size, String message) {
        WorkloadRequest.Invalid e = assertThrows(WorkloadRequest.Invalid.class,
                () -> parse("mode", mode, "number", number, "size", size));
        assertEquals(message, e.getMessage());
    }

    private static WorkloadRequest parse(String... namesAndValues) throws WorkloadRequest.Invalid {
        Map<String, String> parameters = new HashMap<>();
        for (int i = 0; i < namesAndValues.length; i += 2) {
            parameters.put(namesAndValues[i], namesAndValues[i + 1]);
        }
        return WorkloadRequest.parse(parameters::get);
    }
}

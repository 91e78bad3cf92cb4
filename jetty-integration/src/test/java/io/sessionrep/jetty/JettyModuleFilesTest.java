package io.sessionrep.jetty;

import io.sessionrep.core.config.ReplicationConfig;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;

import static org.junit.jupiter.api.Assertions.assertTrue;

/** The Jetty module's files name every option of the product (the install itself is tested in test-servlet). */
class JettyModuleFilesTest {
    private static final Path BASE = Path.of("src/main/jetty-base");

    @Test
    void xmlPassesEveryOptionAndTheIniTemplateDocumentsIt() throws Exception {
        String xml = Files.readString(BASE.resolve("etc/sessionrep.xml"));
        String mod = Files.readString(BASE.resolve("modules/sessionrep.mod"));
        for (String option : ReplicationConfig.OPTION_NAMES) {
            assertTrue(xml.contains("<Arg>" + option + "</Arg><Arg><Property name=\"sessionrep." + option + "\"/>"),
                    "etc/sessionrep.xml passes " + option);
            assertTrue(mod.contains("# sessionrep." + option + "="), "the ini template documents " + option);
        }
        assertTrue(xml.contains("<Call name=\"validate\"/>"), "bad values stop the server at start-up");
    }
}

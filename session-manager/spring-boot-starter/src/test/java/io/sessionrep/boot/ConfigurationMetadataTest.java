package io.sessionrep.boot;

import io.sessionrep.core.config.ConfigOption;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.ObjectMapper;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

/** The metadata in the jar (written by the build) is valid JSON and has one property per row of the option table. */
class ConfigurationMetadataTest {

    @Test
    void everyOptionIsDescribedOnceWithItsChoices() throws Exception {
        String written;
        try (InputStream in = getClass().getResourceAsStream("/META-INF/spring-configuration-metadata.json")) {
            assertNotNull(in, "META-INF/spring-configuration-metadata.json is in the classes (process-classes)");
            written = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        assertEquals(ConfigurationMetadata.json(), written, "the build wrote the metadata of the current option table");
        JsonNode metadata = new ObjectMapper().readTree(written);
        Set<String> names = new HashSet<>();
        for (JsonNode property : metadata.path("properties")) {
            names.add(property.path("name").asString());
        }
        Set<String> expected = new HashSet<>();
        for (ConfigOption option : ConfigOption.values()) {
            expected.add("sessionrep." + option.key());
        }
        assertEquals(expected, names);
        assertEquals(ConfigOption.values().length, metadata.path("properties").size());
        JsonNode modeHint = null;
        for (JsonNode hint : metadata.path("hints")) {
            if (hint.path("name").asString().equals("sessionrep.replication-mode")) {
                modeHint = hint;
            }
        }
        assertNotNull(modeHint);
        assertEquals(List.of("async", "sync"), modeHint.path("values").findValuesAsString("value"));
    }
}

package io.sessionrep.testsupport;

import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.ToolProvider;
import java.io.IOException;
import java.io.StringWriter;
import java.io.UncheckedIOException;
import java.lang.reflect.Field;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * One version of an application's classes: Java sources compiled here, loaded by a class loader of their own, as
 * two builds of one web application are loaded by two containers. Two versions of a class with the same name
 * can thus live side by side in one test.
 */
public final class ClassVersions {
    private ClassVersions() {
    }

    /**
     * Compiles {@code sources} (fully qualified class name to source text) into a new directory under
     * {@code dir} and returns a class loader for them whose parent is this class's loader.
     */
    public static URLClassLoader compile(Path dir, Map<String, String> sources) {
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        try {
            Path out = Files.createTempDirectory(dir, "classes");
            List<JavaFileObject> units = new ArrayList<>();
            for (Map.Entry<String, String> source : sources.entrySet()) {
                units.add(new SimpleJavaFileObject(URI.create("string:///" + source.getKey().replace('.', '/')
                        + JavaFileObject.Kind.SOURCE.extension), JavaFileObject.Kind.SOURCE) {
                    @Override
                    public CharSequence getCharContent(boolean ignoreEncodingErrors) {
                        return source.getValue();
                    }
                });
            }
            StringWriter errors = new StringWriter();
            try (StandardJavaFileManager files = compiler.getStandardFileManager(null, null, null)) {
                boolean ok = compiler.getTask(errors, files, null, List.of("-d", out.toString(), "--release", "17"),
                        null, units).call();
                if (!ok) {
                    throw new IllegalArgumentException("sources do not compile:\n" + errors);
                }
            }
            return new URLClassLoader(new URL[]{out.toUri().toURL()}, ClassVersions.class.getClassLoader());
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /**
     * A new instance of {@code className} from {@code loader}: a record from its components in order, any other
     * class by its no-argument constructor with the fields named in {@code fieldValues} (name, value, ...) set.
     */
    public static Object make(ClassLoader loader, String className, Object... fieldValues) throws Exception {
        Class<?> type = loader.loadClass(className);
        if (type.isRecord()) {
            return type.getDeclaredConstructors()[0].newInstance(fieldValues);
        }
        Object object = type.getDeclaredConstructor().newInstance();
        for (int i = 0; i < fieldValues.length; i += 2) {
            Field f = type.getDeclaredField((String) fieldValues[i]);
            f.setAccessible(true);
            f.set(object, fieldValues[i + 1]);
        }
        return object;
    }

    /** The value of {@code object}'s own field {@code name}. */
    public static Object field(Object object, String name) throws Exception {
        Field f = object.getClass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(object);
    }
}

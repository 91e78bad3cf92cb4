package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;

import java.util.ArrayList;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * Class names of a {@link ValueFormat#NAMED_FIELDS} value, kept in one table at the front of the value instead of
 * where each class first occurs. Kryo writes a class's name at its first occurrence and refers back to it later;
 * a reader that skips a field it does not know would then miss a name that the rest of the value refers to. With
 * the table, every class is referred to by its index, and any framed field can be skipped.
 *
 * <p>Writing collects the table ({@link #writtenNames}); reading takes it first ({@link #readTable}), checks every
 * name against the allowlist at once, and loads a class only when the value refers to it, so that a class that
 * exists only in a skipped field need not exist here. A name the allowlist allows but this node cannot load is an
 * incompatible value ({@link IncompatibleValueException}): a class of another version of the application.
 */
final class ClassTableResolver extends AllowlistClassResolver {
    /** Classes loaded by name, kept across values as Kryo keeps its own (only those found: names come from peers). */
    private static final int MAX_LOADED = 1024;
    private final Map<String, Class<?>> loaded = new java.util.HashMap<>();
    private final Map<Class<?>, Integer> writtenIndex = new IdentityHashMap<>();
    private final List<String> writtenNames = new ArrayList<>();
    private String[] readNames;
    private Class<?>[] readClasses;

    ClassTableResolver(ClassAllowlist allowlist) {
        super(allowlist);
    }

    @Override
    protected void writeName(Output output, Class type, Registration registration) {
        Integer index = writtenIndex.get(type);
        if (index == null) {
            requireAllowed(type);
            index = writtenNames.size();
            writtenIndex.put(type, index);
            writtenNames.add(type.getName());
        }
        output.writeByte(1); // NAME + 2, as Kryo marks a class written by name
        output.writeVarInt(index, true);
    }

    /** The class names the value written since the last {@link #reset} refers to, by index. */
    List<String> writtenNames() {
        return writtenNames;
    }

    /** Reads the table at the input's position; every name must be allowed. */
    void readTable(Input input) {
        int count = input.readVarInt(true);
        BoundedInput.requireElements(input, count, "class table");
        String[] names = new String[count];
        for (int i = 0; i < count; i++) {
            String name = input.readString();
            if (name == null || name.isEmpty()) {
                throw new KryoException("class table entry " + i + " has no name");
            }
            if (!allowlist.allows(name)) {
                throw new KryoException(new ClassNotAllowedException(name, kryo.getClassLoader()));
            }
            names[i] = name;
        }
        readNames = names;
        readClasses = new Class<?>[count];
    }

    @Override
    protected Registration readName(Input input) {
        int index = input.readVarInt(true);
        if (readNames == null || index < 0 || index >= readNames.length) {
            throw new KryoException("class index " + index + " outside the value's class table");
        }
        Class<?> type = readClasses[index];
        if (type == null) {
            String name = readNames[index];
            type = loaded.get(name);
            if (type == null) {
                try {
                    type = Class.forName(name, false, kryo.getClassLoader());
                } catch (ClassNotFoundException | LinkageError e) {
                    throw new KryoException(new IncompatibleValueException(name, null,
                            "no such class on this node (" + e.getClass().getSimpleName() + ")"));
                }
                if (loaded.size() < MAX_LOADED) {
                    loaded.put(name, type);
                }
            }
            readClasses[index] = type;
        }
        return kryo.getRegistration(type);
    }

    @Override
    public void reset() {
        super.reset();
        writtenIndex.clear();
        writtenNames.clear();
        readNames = null;
        readClasses = null;
    }
}

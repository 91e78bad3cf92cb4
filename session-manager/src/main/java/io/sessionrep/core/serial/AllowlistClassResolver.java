package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.Input;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultClassResolver;

/**
 * Checks every class name against the {@link ClassAllowlist}, on both sides. Reading: Kryo resolves every
 * class named in a stream through {@link #getTypeByName} before it loads it; this is the one place where
 * received bytes can make us load a class. Writing: a class written by name that the allowlist does not
 * allow is refused on the primary ({@link UnsupportedValueException}) instead of being refused by every
 * backup after it acknowledged the update (the allowlist is the same cluster-wide option).
 *
 * <p>A class id that reads as negative is refused before Kryo looks it up: Kryo 5.6 memoizes the last id it
 * resolved, starting from -1 with no registration, so id -1 decoded as a null object in a fresh Kryo and as
 * an error, or as another object, in a Kryo that had decoded something before (a fuzzer finding: the same
 * bytes decoded differently by two pooled Kryos). No valid stream has a negative class id.
 */
class AllowlistClassResolver extends DefaultClassResolver {
    final ClassAllowlist allowlist;

    AllowlistClassResolver(ClassAllowlist allowlist) {
        this.allowlist = allowlist;
    }

    @Override
    protected void writeName(Output output, Class type, Registration registration) {
        requireAllowed(type);
        super.writeName(output, type, registration);
    }

    /** Refuses, on the primary, a class no backup would accept. */
    final void requireAllowed(Class<?> type) {
        if (!allowlist.allows(type.getName())) {
            throw new KryoException(new UnsupportedValueException(type.getName(), ValueTypes.isJdk(type)
                    ? ValueTypes.adviceFor(type)
                    : "not in serialization-allowlist, so no backup would accept it: add its package to "
                            + "serialization-allowlist on every node"));
        }
    }

    /** Peeks at the class id and steps back: every input here holds one whole value in an array. */
    @Override
    public Registration readClass(Input input) {
        int start = input.position();
        int classId = input.readVarInt(true);
        if (classId < 0) {
            throw new KryoException("negative class id " + classId);
        }
        input.setPosition(start);
        return super.readClass(input);
    }

    @Override
    protected Class<?> getTypeByName(String className) {
        if (!allowlist.allows(className)) {
            throw new KryoException(new ClassNotAllowedException(className, kryo.getClassLoader()));
        }
        return super.getTypeByName(className);
    }
}

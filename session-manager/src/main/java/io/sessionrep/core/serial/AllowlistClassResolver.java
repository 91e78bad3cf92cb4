package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.Registration;
import com.esotericsoftware.kryo.io.Output;
import com.esotericsoftware.kryo.util.DefaultClassResolver;

/**
 * Checks every class name against the {@link ClassAllowlist}, on both sides. Reading: Kryo resolves every
 * class named in a stream through {@link #getTypeByName} before it loads it; this is the one place where
 * received bytes can make us load a class. Writing: a class written by name that the allowlist does not
 * allow is refused on the primary ({@link UnsupportedValueException}) instead of being refused by every
 * backup after it acknowledged the update (the allowlist is the same cluster-wide option).
 */
final class AllowlistClassResolver extends DefaultClassResolver {
    private final ClassAllowlist allowlist;

    AllowlistClassResolver(ClassAllowlist allowlist) {
        this.allowlist = allowlist;
    }

    @Override
    protected void writeName(Output output, Class type, Registration registration) {
        if (!allowlist.allows(type.getName())) {
            throw new KryoException(new UnsupportedValueException(type.getName(), ValueTypes.isJdk(type)
                    ? ValueTypes.adviceFor(type)
                    : "not in serialization-allowlist, so no backup would accept it: add its package to "
                            + "serialization-allowlist on every node"));
        }
        super.writeName(output, type, registration);
    }

    @Override
    protected Class<?> getTypeByName(String className) {
        if (!allowlist.allows(className)) {
            throw new KryoException(new ClassNotAllowedException(className));
        }
        return super.getTypeByName(className);
    }
}

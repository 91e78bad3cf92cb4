package io.sessionrep.core.serial;

import com.esotericsoftware.kryo.KryoException;
import com.esotericsoftware.kryo.util.DefaultClassResolver;

/**
 * Kryo resolves every class named in a stream through {@link #getTypeByName} before it loads it; this
 * is the one place where received bytes can make us load a class, so the allowlist is checked here.
 */
final class AllowlistClassResolver extends DefaultClassResolver {
    private final ClassAllowlist allowlist;

    AllowlistClassResolver(ClassAllowlist allowlist) {
        this.allowlist = allowlist;
    }

    @Override
    protected Class<?> getTypeByName(String className) {
        if (!allowlist.allows(className)) {
            throw new KryoException(new ClassNotAllowedException(className));
        }
        return super.getTypeByName(className);
    }
}

package io.sessionrep.core.serial;

import io.sessionrep.testsupport.ClassVersions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * Two builds of an application class, compiled here and loaded side by side as two containers load two versions
 * of a web application: what one writes, the other reads, in both directions, for every change the named-fields
 * format follows; every change it cannot follow is an {@link IncompatibleValueException} naming the class, the
 * member and the reason, never a wrong value.
 */
class ClassEvolutionTest {
    private static final ClassAllowlist SHOP = ClassAllowlist.of(List.of("com.example.shop."));

    @TempDir
    Path dir;

    /** A serializer whose application classes are {@code sources}. */
    private Version version(String... classes) {
        Map<String, String> sources = new java.util.LinkedHashMap<>();
        for (int i = 0; i < classes.length; i += 2) {
            sources.put("com.example.shop." + classes[i], "package com.example.shop;\n" + classes[i + 1]);
        }
        ClassLoader loader = ClassVersions.compile(dir, sources);
        return new Version(loader, new KryoSessionSerializer(SHOP, loader));
    }

    private record Version(ClassLoader loader, KryoSessionSerializer serializer) {
        Object make(String className, Object... fieldValues) throws Exception {
            return ClassVersions.make(loader, "com.example.shop." + className, fieldValues);
        }

        Object enumConstant(String enumName, String constant) throws Exception {
            Method valueOf = loader.loadClass("com.example.shop." + enumName).getMethod("valueOf", String.class);
            return valueOf.invoke(null, constant);
        }

        Object read(byte[] bytes) throws Exception {
            return serializer.deserialize(bytes);
        }
    }

    private static Object field(Object object, String name) throws Exception {
        return ClassVersions.field(object, name);
    }

    private static final String CART_V1 = """
            public class Cart implements java.io.Serializable {
                java.util.List<String> items;
                int count;
            }""";
    private static final String CART_V2_COUPON = """
            public class Cart implements java.io.Serializable {
                java.util.List<String> items;
                int count;
                String coupon;
            }""";

    @Test
    void anAddedFieldTakesItsDefaultAndIsSkippedByTheOldVersion() throws Exception {
        Version v1 = version("Cart", CART_V1);
        Version v2 = version("Cart", CART_V2_COUPON);

        Object fromV1 = v2.read(v1.serializer.serialize(v1.make("Cart", "items", List.of("book", "pen"), "count", 2)));
        assertEquals(List.of("book", "pen"), field(fromV1, "items"));
        assertEquals(2, field(fromV1, "count"));
        assertNull(field(fromV1, "coupon"));
        assertEquals(v2.loader, fromV1.getClass().getClassLoader());

        Object fromV2 = v1.read(v2.serializer.serialize(v2.make("Cart", "items", List.of("lamp"), "count", 1,
                "coupon", "WINTER")));
        assertEquals(List.of("lamp"), field(fromV2, "items"));
        assertEquals(1, field(fromV2, "count"));
    }

    @Test
    void anAddedFieldTakesWhatTheNoArgumentConstructorGivesItOrElseItsJvmDefault() throws Exception {
        Version v1 = version("Cart", CART_V1);
        Version v2 = version("Cart", """
                public class Cart implements java.io.Serializable {
                    java.util.List<String> items;
                    int count;
                    String coupon = "none";
                    int limit = 10;
                }""");
        Version v2WithoutNoArgumentConstructor = version("Cart", """
                public class Cart implements java.io.Serializable {
                    java.util.List<String> items;
                    int count;
                    String coupon = "none";
                    public Cart(int count) { this.count = count; }
                }""");

        Object withConstructor = v2.read(v1.serializer.serialize(v1.make("Cart", "items", List.of("a"), "count", 1)));
        assertEquals("none", field(withConstructor, "coupon"));
        assertEquals(10, field(withConstructor, "limit"));
        assertEquals(1, field(withConstructor, "count"));
        Object without = v2WithoutNoArgumentConstructor.read(v1.serializer.serialize(v1.make("Cart", "count", 2)));
        assertNull(field(without, "coupon"), "created without a constructor, as Java serialization would");
        assertEquals(2, field(without, "count"));
    }

    @Test
    void aRemovedFieldIsSkippedAndMissingInTheOtherDirection() throws Exception {
        Version v1 = version("Cart", """
                public class Cart implements java.io.Serializable {
                    java.util.List<String> items;
                    java.util.Map<String, Integer> notes;
                    long total;
                }""");
        Version v2 = version("Cart", """
                public class Cart implements java.io.Serializable {
                    java.util.List<String> items;
                    long total;
                }""");

        Object fromV1 = v2.read(v1.serializer.serialize(v1.make("Cart", "items", List.of("a"),
                "notes", new java.util.HashMap<>(Map.of("a", 1)), "total", 1_000_000_000_000L)));
        assertEquals(List.of("a"), field(fromV1, "items"));
        assertEquals(1_000_000_000_000L, field(fromV1, "total"));

        Object fromV2 = v1.read(v2.serializer.serialize(v2.make("Cart", "items", List.of("b"), "total", -5L)));
        assertEquals(List.of("b"), field(fromV2, "items"));
        assertNull(field(fromV2, "notes"));
        assertEquals(-5L, field(fromV2, "total"));
    }

    @Test
    void fieldOrderAndTheClassThatDeclaresAFieldDoNotMatter() throws Exception {
        Version v1 = version("Cart", """
                public class Cart implements java.io.Serializable {
                    String owner;
                    java.util.List<String> items;
                    int count;
                }""");
        Version v2 = version("Base", """
                public class Base implements java.io.Serializable {
                    int count;
                    String owner;
                }""", "Cart", """
                public class Cart extends Base {
                    java.util.List<String> items;
                }""");
        Object fromV1 = v2.read(v1.serializer.serialize(v1.make("Cart", "owner", "ann", "items", List.of("x"), "count", 3)));
        assertEquals("ann", field2(fromV1, "owner"));
        assertEquals(3, field2(fromV1, "count"));
        assertEquals(List.of("x"), field(fromV1, "items"));

        Object v2Cart = v2.make("Cart", "items", List.of("y"));
        setInherited(v2Cart, "owner", "bob");
        setInherited(v2Cart, "count", 7);
        Object fromV2 = v1.read(v2.serializer.serialize(v2Cart));
        assertEquals("bob", field(fromV2, "owner"));
        assertEquals(7, field(fromV2, "count"));
        assertEquals(List.of("y"), field(fromV2, "items"));
    }

    private static Object field2(Object object, String name) throws Exception {
        Field f = object.getClass().getSuperclass().getDeclaredField(name);
        f.setAccessible(true);
        return f.get(object);
    }

    private static void setInherited(Object object, String name, Object value) throws Exception {
        Field f = object.getClass().getSuperclass().getDeclaredField(name);
        f.setAccessible(true);
        f.set(object, value);
    }

    @Test
    void enumConstantsTravelByNameAndAnUnknownOneIsIncompatible() throws Exception {
        Version v1 = version("Size", "public enum Size { S, M, L }", "Shirt", """
                public class Shirt implements java.io.Serializable {
                    Size size;
                }""");
        Version v2 = version("Size", "public enum Size { XS, S, M, L, XL }", "Shirt", """
                public class Shirt implements java.io.Serializable {
                    Size size;
                }""");

        Object fromV1 = v2.read(v1.serializer.serialize(v1.make("Shirt", "size", v1.enumConstant("Size", "M"))));
        assertEquals(v2.enumConstant("Size", "M"), field(fromV1, "size")); // not XS+1 = S: by name, not ordinal
        assertEquals(v1.enumConstant("Size", "L"), v1.read(v2.serializer.serialize(v2.enumConstant("Size", "L"))));

        IncompatibleValueException unknown = assertThrows(IncompatibleValueException.class,
                () -> v1.read(v2.serializer.serialize(v2.make("Shirt", "size", v2.enumConstant("Size", "XL")))));
        assertEquals("com.example.shop.Size", unknown.className());
        assertEquals("XL", unknown.member());
    }

    @Test
    void aRecordComponentAddedTakesItsDefaultBothWays() throws Exception {
        Version v1 = version("Item", "public record Item(String sku, int quantity) implements java.io.Serializable { }");
        Version v2 = version("Item", """
                public record Item(String sku, int quantity, String note, long addedAt)
                        implements java.io.Serializable { }""");

        Object fromV1 = v2.read(v1.serializer.serialize(v1.make("Item", "SKU-1", 4)));
        assertEquals(v2.make("Item", "SKU-1", 4, null, 0L), fromV1);
        Object fromV2 = v1.read(v2.serializer.serialize(v2.make("Item", "SKU-2", 5, "gift", 99L)));
        assertEquals(v1.make("Item", "SKU-2", 5), fromV2);
    }

    @Test
    void nestedApplicationClassesAndCollectionsOfThemEvolveToo() throws Exception {
        String item1 = "public class Item implements java.io.Serializable { String sku; int quantity; }";
        String item2 = "public class Item implements java.io.Serializable { String sku; int quantity; String color; }";
        String cart = """
                public class Cart implements java.io.Serializable {
                    java.util.List<Item> items = new java.util.ArrayList<>();
                    java.util.Map<String, Item> bySku = new java.util.HashMap<>();
                    Item[] saved;
                }""";
        Version v1 = version("Item", item1, "Cart", cart);
        Version v2 = version("Item", item2, "Cart", cart);

        Object a = v1.make("Item", "sku", "A", "quantity", 1);
        Object b = v1.make("Item", "sku", "B", "quantity", 2);
        Object[] saved = (Object[]) java.lang.reflect.Array.newInstance(a.getClass(), 1);
        saved[0] = b;
        Object v1Cart = v1.make("Cart", "items", new java.util.ArrayList<>(List.of(a, b)),
                "bySku", new java.util.HashMap<>(Map.of("A", a)), "saved", saved);
        Object fromV1 = v2.read(v1.serializer.serialize(v1Cart));
        List<?> items = (List<?>) field(fromV1, "items");
        assertEquals(2, items.size());
        assertEquals("B", field(items.get(1), "sku"));
        assertEquals(2, field(items.get(1), "quantity"));
        assertNull(field(items.get(1), "color"));
        assertEquals("A", field(((Map<?, ?>) field(fromV1, "bySku")).get("A"), "sku"));
        assertEquals("B", field(((Object[]) field(fromV1, "saved"))[0], "sku"));

        Object c = v2.make("Item", "sku", "C", "quantity", 3, "color", "red");
        Object fromV2 = v1.read(v2.serializer.serialize(v2.make("Cart", "items", new java.util.ArrayList<>(List.of(c)),
                "bySku", new java.util.HashMap<>())));
        assertEquals(3, field(((List<?>) field(fromV2, "items")).get(0), "quantity"));
    }

    @Test
    void aFieldWhoseDeclaredTypeChangedMakesTheValueIncompatibleBothWays() throws Exception {
        Version v1 = version("Cart", CART_V1);
        Version v3 = version("Item", "public class Item implements java.io.Serializable { String sku; }", "Cart", """
                public class Cart implements java.io.Serializable {
                    java.util.ArrayList<Item> items;
                }""");

        byte[] fromV1 = v1.serializer.serialize(v1.make("Cart", "items", new java.util.ArrayList<>(List.of("book")), "count", 1));
        IncompatibleValueException forward = assertThrows(IncompatibleValueException.class, () -> v3.read(fromV1));
        assertEquals("com.example.shop.Cart", forward.className());
        assertEquals("items", forward.member());
        assertEquals("its declared type changed (here java.util.ArrayList<com.example.shop.Item>)", forward.reason());

        byte[] fromV3 = v3.serializer.serialize(v3.make("Cart", "items",
                new java.util.ArrayList<>(List.of(v3.make("Item", "sku", "X")))));
        IncompatibleValueException backward = assertThrows(IncompatibleValueException.class, () -> v1.read(fromV3));
        assertEquals("items", backward.member());
        assertEquals("its declared type changed (here java.util.List<java.lang.String>)", backward.reason());
    }

    @Test
    void aPrimitiveThatBecameAnotherPrimitiveIsIncompatible() throws Exception {
        Version v1 = version("Cart", CART_V1);
        Version v2 = version("Cart", "public class Cart implements java.io.Serializable { java.util.List<String> items; long count; }");
        IncompatibleValueException e = assertThrows(IncompatibleValueException.class,
                () -> v2.read(v1.serializer.serialize(v1.make("Cart", "count", 5))));
        assertEquals("count", e.member());
    }

    @Test
    void aClassThatNoLongerExistsIsIncompatibleWhereItIsUsedAndSkippedWhereItsFieldWentToo() throws Exception {
        Version v1 = version("Gift", "public class Gift implements java.io.Serializable { String to; }", "Cart", """
                public class Cart implements java.io.Serializable {
                    java.util.List<String> items;
                    Object extra;
                    Gift gift;
                }""");
        Version v2 = version("Cart", """
                public class Cart implements java.io.Serializable {
                    java.util.List<String> items;
                    Object extra;
                }""");

        Object gift = v1.make("Gift", "to", "ann");
        Object onlyRemovedField = v2.read(v1.serializer.serialize(v1.make("Cart", "items", List.of("a"), "gift", gift)));
        assertEquals(List.of("a"), field(onlyRemovedField, "items"));

        IncompatibleValueException e = assertThrows(IncompatibleValueException.class,
                () -> v2.read(v1.serializer.serialize(v1.make("Cart", "items", List.of("a"), "extra", gift))));
        assertEquals("com.example.shop.Gift", e.className());
        IncompatibleValueException whole = assertThrows(IncompatibleValueException.class, () -> v2.read(v1.serializer.serialize(gift)));
        assertEquals("com.example.shop.Gift", whole.className());
    }

    @Test
    void aChangedSerialVersionUidIsIncompatibleAndAnUnchangedOneIsNotChecked() throws Exception {
        Version v1 = version("Cart", "public class Cart implements java.io.Serializable { private static final long serialVersionUID = 1L; String a; }");
        Version v2 = version("Cart", "public class Cart implements java.io.Serializable { private static final long serialVersionUID = 2L; String a; String b; }");
        Version v1b = version("Cart", "public class Cart implements java.io.Serializable { private static final long serialVersionUID = 1L; String b; String a; }");

        IncompatibleValueException e = assertThrows(IncompatibleValueException.class,
                () -> v2.read(v1.serializer.serialize(v1.make("Cart", "a", "x"))));
        assertEquals("com.example.shop.Cart", e.className());
        assertEquals("serialVersionUID changed (written 1, here 2)", e.reason());
        assertEquals("x", field(v1b.read(v1.serializer.serialize(v1.make("Cart", "a", "x"))), "a"));
    }

    @Test
    void aRecordWhoseConstructorRefusesTheDefaultsIsIncompatible() throws Exception {
        Version v1 = version("Item", "public record Item(String sku) implements java.io.Serializable { }");
        Version v2 = version("Item", """
                public record Item(String sku, String currency) implements java.io.Serializable {
                    public Item { java.util.Objects.requireNonNull(currency, "currency"); }
                }""");
        IncompatibleValueException e = assertThrows(IncompatibleValueException.class,
                () -> v2.read(v1.serializer.serialize(v1.make("Item", "A"))));
        assertEquals("com.example.shop.Item", e.className());
    }

    @Test
    void theFieldOrderFormatStillReadsItsOwnValues() throws Exception {
        Version v1 = version("Cart", CART_V1);
        byte[] old = v1.serializer.serialize(v1.make("Cart", "items", List.of("a"), "count", 4), ValueFormat.FIELD_ORDER);
        assertEquals(ValueFormat.FIELD_ORDER, ValueFormat.of(old));
        Object back = v1.read(old);
        assertEquals(4, field(back, "count"));
        byte[] named = v1.serializer.transcode(old, ValueFormat.NAMED_FIELDS);
        assertEquals(ValueFormat.NAMED_FIELDS, ValueFormat.of(named));
        assertEquals(List.of("a"), field(v1.read(named), "items"));
        assertEquals(4, field(v1.read(v1.serializer.transcode(named, ValueFormat.FIELD_ORDER)), "count"));
    }
}

package dev.kvs.cli;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.library.dependencies.SliceAssignment;
import com.tngtech.archunit.library.dependencies.SliceIdentifier;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No module's packages import one another in a cycle (issue 33): a package that needs another's
 * classes sits above it, never beside it. Checked over the main classes of every module on the
 * class path, here because this module sees them all.
 *
 * <p>A slice is the module's root package ({@code dev.kvs.server}), or a package below it with its
 * subpackages ({@code dev.kvs.server.config..}); below an {@code internal} package each package is a
 * slice of its own ({@code dev.kvs.server.internal.role..}), and {@code internal} itself is one. So
 * a composition root such as {@code KvsNode} may use every package, but none may use it back.
 *
 * <p>One edge is allowed down from a module's API (root) package into its implementation: an API
 * type's builder that constructs what it hides ({@link #API_ENTRIES}), as OkHttp's {@code
 * OkHttpClient} and the JDK's {@code HttpClient.newBuilder()} do; without it the API would have to
 * name the implementation's classes to its users.
 */
class PackageCyclesTest {
    /** The API classes (with their nested classes) allowed to construct their module's implementation. */
    static final Set<String> API_ENTRIES = Set.of(
            "dev.kvs.core.KvStore$Builder",
            "dev.kvs.client.KvsClient",
            "dev.kvs.replication.ReplicationEnds",
            "dev.kvs.replication.ReplicationServer$Builder");

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.kvs");
    }

    @ParameterizedTest
    @ValueSource(
            strings = {"core", "cluster", "coordination", "wan", "replication", "client", "server", "bench", "cli"})
    void theModulesPackagesFormNoCycle(String module) {
        check(module);
    }

    private static void check(String module) {
        slices().assignedFrom(new ModuleSlices(module))
                .should()
                .beFreeOfCycles()
                .ignoreDependency(API_ENTRY, DescribedPredicate.alwaysTrue())
                .because("a module's packages form layers, each using only those below it")
                .check(classes);
    }

    private static final DescribedPredicate<JavaClass> API_ENTRY =
            DescribedPredicate.describe("an API builder of its implementation " + API_ENTRIES, c -> {
                String name = c.getName();
                int nested = name.indexOf('$');
                return API_ENTRIES.contains(name) || (nested > 0 && API_ENTRIES.contains(name.substring(0, nested)));
            });

    /** The slices of one module: its root package, each package below it, each package below internal. */
    private record ModuleSlices(String module) implements SliceAssignment {
        @Override
        public SliceIdentifier getIdentifierOf(JavaClass c) {
            String root = "dev.kvs." + module;
            String pkg = c.getPackageName();
            if (pkg.equals(root)) return SliceIdentifier.of(root);
            if (!pkg.startsWith(root + ".")) return SliceIdentifier.ignore();
            String[] below = pkg.substring(root.length() + 1).split("\\.");
            if (below[0].equals("internal") && below.length > 1) {
                return SliceIdentifier.of(root + ".internal." + below[1]);
            }
            return SliceIdentifier.of(root + "." + below[0]);
        }

        @Override
        public String getDescription() {
            return "the packages of kvs-" + module;
        }
    }
}

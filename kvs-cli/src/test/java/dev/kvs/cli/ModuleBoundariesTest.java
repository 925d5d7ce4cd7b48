package dev.kvs.cli;

import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideInAPackage;
import static com.tngtech.archunit.core.domain.JavaClass.Predicates.resideOutsideOfPackage;
import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * What one module may use of another (issue 33), over the main classes of every module on the class
 * path (this module sees them all): an {@code internal} package is its module's own, and kvs-server
 * reaches replication through its API package only, so the implementation packages can change
 * without the node noticing.
 */
class ModuleBoundariesTest {
    /**
     * kvs-bench's JMH benchmarks, which measure implementation classes (e.g. kvs-server's RESP codecs)
     * where they are: the one place outside a module allowed into its internal packages.
     */
    static final String BENCHMARKS = "dev.kvs.bench.jmh..";

    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.kvs");
    }

    @ParameterizedTest
    @ValueSource(strings = {"core", "replication", "client", "server", "bench", "cli", "wan"})
    void internalPackagesAreUsedOnlyInTheirModule(String module) {
        String own = "dev.kvs." + module + "..";
        noClasses()
                .that(resideOutsideOfPackage(own).and(resideOutsideOfPackage(BENCHMARKS)))
                .should()
                .dependOnClassesThat(resideInAPackage(own).and(resideInAPackage("..internal..")))
                .because("an internal package is its module's implementation, free to change under it")
                .check(classes);
    }

    @Test
    void theServerUsesOnlyTheReplicationApiPackage() {
        noClasses()
                .that(resideInAPackage("dev.kvs.server.."))
                .should()
                .dependOnClassesThat(
                        resideInAPackage("dev.kvs.replication..").and(resideOutsideOfPackage("dev.kvs.replication")))
                .because("the node sees replication's API (dev.kvs.replication, with ReplicationEnds as the way"
                        + " in), not its primary, backup, failback, auth or wire packages")
                .check(classes);
    }
}

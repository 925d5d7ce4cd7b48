package dev.kvs.cli;

import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * No module's packages import one another in a cycle (issue 33): a package that needs another's
 * classes sits above it, never beside it. Checked over the main classes of every module on the
 * class path, here because this module sees them all. A slice is a package below the module's root
 * package with its subpackages; the root package (the module's API) is not one. kvs-wan has one package. kvs-server is
 * not listed yet: its packages form one cycle today (issue 33); it joins once its knot is untied.
 * kvs-bench's {@code kvs bench} command sits in its root package, above the benchmarks it gathers.
 */
class PackageCyclesTest {
    private static JavaClasses classes;

    @BeforeAll
    static void importMainClasses() {
        classes = new ClassFileImporter()
                .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
                .importPackages("dev.kvs");
    }

    @ParameterizedTest
    @ValueSource(strings = {"core", "replication", "client", "bench"})
    void theModulesPackagesFormNoCycle(String module) {
        slices().matching("dev.kvs." + module + ".(*)..")
                .should()
                .beFreeOfCycles()
                .because("a module's packages form layers, each using only those below it")
                .check(classes);
    }
}

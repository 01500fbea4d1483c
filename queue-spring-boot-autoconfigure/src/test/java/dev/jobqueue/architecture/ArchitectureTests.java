package dev.jobqueue.architecture;

import java.time.Clock;
import java.time.Instant;

import com.tngtech.archunit.base.DescribedPredicate;
import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.ConfigurationProperties;

import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.RateLimit;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static com.tngtech.archunit.library.dependencies.SlicesRuleDefinition.slices;

/**
 * The layering, checked on the compiled main classes of every module this one sees: the
 * API imports nothing internal, the engine imports neither Spring nor JDBC nor a store,
 * stores know nothing of Spring Boot, the endpoint, meters and observations know nothing
 * of the auto-configuration, and nothing reads the wall clock behind the injected one.
 * (The core module's compile classpath holds no Spring at all; this also covers what a
 * classpath cannot, such as JDBC, which is part of the JDK.) The dashboard module depends
 * on this one, so its own rules are checked in its module
 * ({@code DashboardArchitectureTests}).
 */
class ArchitectureTests {

	/**
	 * The product's classes: not tests, nor the behaviour suite (jobqueue-store-tests),
	 * which is test code too.
	 */
	private static final ImportOption MAIN_CLASSES_ONLY = (location) -> !location.contains("/test-classes/")
			&& !location.contains("-tests.jar") && !location.contains("jobqueue-store-tests");

	private static JavaClasses classes;

	@BeforeAll
	static void importClasses() {
		classes = new ClassFileImporter().withImportOption(MAIN_CLASSES_ONLY).importPackages("dev.jobqueue");
	}

	@Test
	void apiImportsNothingInternal() {
		check(noClasses().that()
			.resideInAPackage("dev.jobqueue")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.jobqueue.(*)..", "org.springframework..", "java.sql..", "javax.sql..")
			.because("the API is what a user touches: it must not pull the engine, a store or Spring along"));
	}

	@Test
	void engineImportsNeitherSpringNorJdbcNorAStore() {
		check(noClasses().that()
			.resideInAnyPackage("dev.jobqueue", "dev.jobqueue.core..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework..", "java.sql..", "javax.sql..", "tools.jackson..",
					"com.fasterxml..", "dev.jobqueue.jdbc..", "dev.jobqueue.sqlite..", "dev.jobqueue.postgresql..",
					"dev.jobqueue.mysql..", "dev.jobqueue.jackson..", "dev.jobqueue.autoconfigure..",
					"dev.jobqueue.actuate..", "dev.jobqueue.dashboard..", "dev.jobqueue.metrics..",
					"dev.jobqueue.observation..")
			.because("the engine talks to a database only through the store interfaces in dev.jobqueue.core.store"));
	}

	@Test
	void storesAndTheJdbcEngineKnowNothingOfSpring() {
		check(noClasses().that()
			.resideInAnyPackage("dev.jobqueue.jdbc", "dev.jobqueue.sqlite..", "dev.jobqueue.postgresql..",
					"dev.jobqueue.mysql..", "dev.jobqueue.jackson..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework..", "dev.jobqueue.autoconfigure..", "dev.jobqueue.actuate..",
					"dev.jobqueue.dashboard..", "dev.jobqueue.metrics..", "dev.jobqueue.observation..")
			.because("a store is used by the auto-configuration, never the other way round, and joins the "
					+ "caller's transactions through CallerTransactions (Spring's are in dev.jobqueue.jdbc.spring)"));
	}

	@Test
	void theJdbcEngineKnowsNoStore() {
		check(noClasses().that()
			.resideInAPackage("dev.jobqueue.jdbc..")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.jobqueue.sqlite..", "dev.jobqueue.postgresql..", "dev.jobqueue.mysql..")
			.because("a store is a dialect of the JDBC engine: what two stores share lives in the engine"));
	}

	@Test
	void storesDoNotKnowEachOther() {
		check(slices().matching("dev.jobqueue.(sqlite|postgresql|mysql)..").should().notDependOnEachOther());
	}

	@Test
	void endpointMetersAndTracesDoNotImportTheAutoConfiguration() {
		check(noClasses().that()
			.resideInAnyPackage("dev.jobqueue.actuate..", "dev.jobqueue.metrics..", "dev.jobqueue.observation..")
			.should()
			.dependOnClassesThat()
			.resideInAPackage("dev.jobqueue.autoconfigure..")
			.because("as Boot keeps ...actuate apart from ...actuate.autoconfigure: the endpoint, health indicator, "
					+ "meters and observations take the queue's services and plain settings, so a user can declare "
					+ "them without the auto-configuration"));
	}

	@Test
	void autoConfigurationsAndTheirPropertiesLiveInAutoconfigurePackages() {
		check(ArchRuleDefinition.classes()
			.that()
			.areAnnotatedWith(AutoConfiguration.class)
			.or()
			.areAnnotatedWith(ConfigurationProperties.class)
			.should()
			.resideInAPackage("..autoconfigure..")
			.because("what is configured stays apart from what it configures, as in Boot's own modules"));
	}

	@Test
	void engineAndStoresNeverReadTheWallClockDirectly() {
		check(noClasses().that()
			.resideInAnyPackage("dev.jobqueue", "dev.jobqueue.core..", "dev.jobqueue.jdbc..", "dev.jobqueue.sqlite..",
					"dev.jobqueue.postgresql..", "dev.jobqueue.mysql..")
			.should()
			.callMethod(Instant.class, "now")
			.orShould()
			.callMethod(System.class, "currentTimeMillis")
			.orShould()
			.callMethod(Clock.class, "systemUTC")
			.orShould()
			.callMethod(Clock.class, "systemDefaultZone")
			.because("time is injected (a Clock), so leases, backoff, retention and cron can be tested without "
					+ "waiting"));
	}

	@Test
	void storeSpiDependsOnNothingElseInTheEngine() {
		// A handler's flow control is a value the store reads (the claim applies it, the
		// insights count what it holds back), as it reads a type name: not engine.
		DescribedPredicate<JavaClass> engine = JavaClass.Predicates
			.resideInAnyPackage("dev.jobqueue.core", "dev.jobqueue.core.worker..", "dev.jobqueue.core.schedule..",
					"dev.jobqueue.core.retention..")
			.and(DescribedPredicate.not(JavaClass.Predicates.belongToAnyOf(FlowControl.class, RateLimit.class)));
		check(noClasses().that()
			.resideInAPackage("dev.jobqueue.core.store..")
			.should()
			.dependOnClassesThat(engine)
			.because("a store module implements the SPI and needs nothing of the engine that uses it"));
	}

	@Test
	void engineRootKnowsNoneOfItsParts() {
		check(noClasses().that()
			.resideInAPackage("dev.jobqueue.core")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.jobqueue.core.worker..", "dev.jobqueue.core.schedule..",
					"dev.jobqueue.core.retention..")
			.because("the worker, the scheduler and retention build on the queue's shared parts, not the reverse"));
	}

	@Test
	void engineSubPackagesHaveNoCycles() {
		check(slices().matching("dev.jobqueue.core.(*)..").should().beFreeOfCycles());
	}

	@Test
	void packagesHaveNoCycles() {
		check(slices().matching("dev.jobqueue.(*)..").should().beFreeOfCycles());
	}

	private static void check(ArchRule rule) {
		rule.check(classes);
	}

}

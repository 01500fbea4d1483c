package dev.jobqueue.dashboard;

import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import com.tngtech.archunit.lang.syntax.ArchRuleDefinition;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.context.properties.ConfigurationProperties;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;

/**
 * The dashboard module's place in the layering (the rules of the modules below it are
 * {@code ArchitectureTests} in the auto-configuration module, which cannot see this one):
 * the dashboard reads the queue through its API and the store interfaces, whatever the
 * database, and needs no actuator; its pages know nothing of how they are configured.
 */
class DashboardArchitectureTests {

	private static JavaClasses dashboard;

	@BeforeAll
	static void importClasses() {
		dashboard = new ClassFileImporter().withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
			.importPackages("dev.jobqueue.dashboard");
	}

	@Test
	void importsNoStore() {
		check(noClasses().should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.jobqueue.sqlite..", "dev.jobqueue.postgresql..", "dev.jobqueue.jackson..",
					"java.sql..", "javax.sql..")
			.because("the dashboard reads the queue through the API and QueueInsights, so it shows any store"));
	}

	@Test
	void needsNoActuator() {
		check(noClasses().should()
			.dependOnClassesThat()
			.resideInAnyPackage("org.springframework.boot.actuate..", "dev.jobqueue.actuate..",
					"dev.jobqueue.autoconfigure.actuate..")
			.because("the dashboard runs in an application without actuator; it follows the endpoint's "
					+ "show-values by the property, not by the endpoint's classes"));
	}

	@Test
	void pagesDoNotImportAnyAutoConfiguration() {
		check(noClasses().that()
			.resideInAPackage("dev.jobqueue.dashboard")
			.should()
			.dependOnClassesThat()
			.resideInAnyPackage("dev.jobqueue.autoconfigure..", "dev.jobqueue.dashboard.autoconfigure..")
			.because("the dashboard takes the queue's services and plain settings (DashboardSettings), so its "
					+ "auto-configuration is the only place that reads properties"));
	}

	@Test
	void autoConfigurationAndItsPropertiesLiveInTheAutoconfigurePackage() {
		check(ArchRuleDefinition.classes()
			.that()
			.areAnnotatedWith(AutoConfiguration.class)
			.or()
			.areAnnotatedWith(ConfigurationProperties.class)
			.should()
			.resideInAPackage("dev.jobqueue.dashboard.autoconfigure")
			.because("what is configured stays apart from what it configures, as in Boot's own modules"));
	}

	private static void check(ArchRule rule) {
		rule.check(dashboard);
	}

}

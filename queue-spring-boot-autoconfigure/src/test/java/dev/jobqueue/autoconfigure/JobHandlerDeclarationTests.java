package dev.jobqueue.autoconfigure;

import java.nio.file.Path;

import kotlin.coroutines.Continuation;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.aop.framework.ProxyFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.context.PropertyPlaceholderAutoConfiguration;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.util.StringUtils;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobErrorCode;
import dev.jobqueue.JobHandler;
import dev.jobqueue.Misfire;
import dev.jobqueue.core.HandlerRegistry;

import static dev.jobqueue.autoconfigure.FailureAnalysisAssertions.assertAnalysis;
import static dev.jobqueue.autoconfigure.FailureAnalysisAssertions.assertFailure;
import static org.assertj.core.api.Assertions.catchThrowable;

/**
 * Each {@link JobHandler} declaration that cannot work (its type, its signature, an
 * attribute, its schedule, two handlers of one type, a proxy that cannot call it) fails
 * start-up in Boot's "Description / Action" form, naming the bean, the method and the
 * attribute or parameter, and saying what to do. Flow control attributes are covered by
 * {@link FlowControlConfigurationTests}.
 */
class JobHandlerDeclarationTests {

	@TempDir
	Path dir;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(PropertyPlaceholderAutoConfiguration.class,
				JacksonAutoConfiguration.class, QueueAutoConfiguration.class))
		.withPropertyValues("jobqueue.worker.auto-startup=false", "jobqueue.scheduling.auto-startup=false");

	/** The context with one bean of {@code handlers}, named after its class. */
	private <T> ApplicationContextRunner runner(Class<T> handlers, String... properties) {
		return this.contextRunner.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("q.db"))
			.withPropertyValues(properties)
			.withBean(StringUtils.uncapitalize(handlers.getSimpleName()), handlers);
	}

	private static String on(String bean, String method) {
		return "Invalid @JobHandler on bean '" + bean + "' method " + StringUtils.capitalize(bean) + "." + method
				+ "(): ";
	}

	@Test
	void aBlankTypeIsRefused() {
		assertFailure(runner(BlankType.class), on("blankType", "run") + "value, the job type, is blank.",
				"Give the job type the method handles, for example @JobHandler(\"thumbnail\").");
	}

	@Test
	void aTypeThatEnqueueWouldRefuseIsRefused() {
		String action = "Write the job type as enqueue takes it: 1 to 200 characters, no control characters, no "
				+ "leading or trailing spaces; for example @JobHandler(\"thumbnail\").";
		assertFailure(runner(SpacedType.class),
				on("spacedType", "run") + "value \" mail\" has leading or trailing spaces.", action);
		assertFailure(runner(TabbedType.class),
				on("tabbedType", "run") + "value holds a control character (such as a line break or tab).", action);
	}

	@Test
	void twoJobContextParametersAreRefused() {
		assertFailure(runner(TwoContexts.class), on("twoContexts", "run") + "it takes 2 JobContext parameters.",
				"Take at most one JobContext, next to the payload parameter.");
	}

	@Test
	void twoPayloadParametersAreRefusedNamingTheirTypes() {
		assertFailure(runner(TwoPayloads.class),
				on("twoPayloads", "run") + "it takes 2 payload parameters [String, Integer].",
				"Take one payload parameter (a record or bean the JSON payload maps to, or String or JsonNode for the "
						+ "raw JSON) and optionally a JobContext; put several values in one record.");
	}

	@Test
	void aSuspendFunWithoutKotlinCoroutinesIsRefused() {
		assertFailure(
				runner(Suspending.class).withClassLoader(new FilteredClassLoader("kotlinx.coroutines.BuildersKt")),
				on("suspending", "run")
						+ "it is a suspend fun, and running one needs kotlinx-coroutines-core on the classpath.",
				"Add org.jetbrains.kotlinx:kotlinx-coroutines-core, or declare the handler without 'suspend'.");
	}

	@Test
	void aThrownExceptionWithAMalformedErrorCodeIsRefused() {
		assertFailure(runner(BadErrorCode.class),
				on("badErrorCode", "run") + "it throws " + Declined.class.getName()
						+ ", whose @JobErrorCode(\"payment declined\") is not an error code.",
				"Give the exception a code of the form " + ErrorCodes.FORM + ".");
	}

	@Test
	void aTimeoutThatIsNoDurationOrNotPositiveIsRefused() {
		assertFailure(runner(UnreadableTimeout.class),
				on("unreadableTimeout", "run") + "timeout \"soon\" is not a duration.",
				"Write it in ISO-8601 (PT2M) or as a value such as 2m or 30s, or leave it empty for no limit.");
		assertFailure(runner(ZeroTimeout.class), on("zeroTimeout", "run") + "timeout \"0s\" is not positive.",
				"Give the longest a run may take, for example PT2M or 30s, or leave it empty for no limit.");
	}

	@Test
	void anUnresolvablePlaceholderNamesTheAttribute() {
		assertFailure(runner(PlaceholderTimeout.class),
				on("placeholderTimeout", "run") + "timeout \"${reports.timeout}\" cannot be resolved: Could not "
						+ "resolve placeholder 'reports.timeout' in value \"${reports.timeout}\".",
				"Set the property it names, or give the placeholder a default after a colon, as in ${name:default}.");
	}

	@Test
	void negativeAttemptsOrConcurrencyAreRefusedOneByOne() {
		assertFailure(runner(NegativeAttempts.class), on("negativeAttempts", "run") + "maxAttempts = -1 is negative.",
				"Set it to the attempts a job of this type may use, for example 3, or to 0 for "
						+ "jobqueue.retry.max-attempts.");
		assertFailure(runner(NegativeConcurrency.class),
				on("negativeConcurrency", "run") + "concurrency = -2 is negative.",
				"Set it to the most runs of this type at once in this process, for example 2, or to 0 for no limit "
						+ "beyond the worker pool.");
		assertFailure(runner(NegativeGlobalConcurrency.class),
				on("negativeGlobalConcurrency", "run") + "globalConcurrency = -1 is negative.",
				"Set it to the most runs of this type at once across every process on the database, for example 4, "
						+ "or to 0 for no such cap.");
	}

	@Test
	void aScheduleThatCannotWorkIsRefused() {
		assertFailure(runner(CronAndEvery.class),
				on("cronAndEvery", "run") + "it declares both cron \"0 0 * * * *\" and every \"5m\".",
				"A handler has one schedule: keep one of them, or register further schedules with "
						+ "JobSchedules.register.");
		assertFailure(runner(ZoneWithoutCron.class),
				on("zoneWithoutCron", "run") + "zone \"Europe/Paris\" is given without cron.",
				"A zone applies to cron only (an interval from every does not depend on a zone): remove zone, or "
						+ "schedule with cron.");
		assertFailure(runner(MisfireWithoutSchedule.class),
				on("misfireWithoutSchedule", "run") + "misfire = SKIP is set without a schedule.",
				"Add cron or every, or remove misfire.");
		assertFailure(runner(UnknownZone.class),
				on("unknownZone", "run") + "zone \"Europe/Pariss\" is not a time zone.",
				"Use a region id such as Europe/Paris, or an offset such as UTC or +02:00.");
	}

	@Test
	void aMalformedCronOrIntervalSaysWhatIsWrongAndHowToWriteIt() {
		assertFailure(runner(BadCron.class),
				on("badCron", "run") + "cron \"0 0 25 * * *\" is not a cron expression: hour field '25': 25 is "
						+ "outside 0-23.",
				"Use Spring's six fields (second minute hour day-of-month month day-of-week) or a macro such as "
						+ "@daily, for example \"0 0 * * * *\" for every hour; \"-\" turns the schedule off.");
		assertFailure(runner(UnreadableEvery.class),
				on("unreadableEvery", "run") + "every \"often\" is not a duration.",
				"Write it in ISO-8601 (PT5M) or as a value such as 5m or 30s.");
		assertFailure(runner(TooFrequent.class), on("tooFrequent", "run") + "every \"500ms\" is shorter than a second.",
				"A schedule ticks at most once a second: use an interval of at least 1s in whole milliseconds, for "
						+ "example 30s or PT5M.");
	}

	@Test
	void aCronThatNeverFiresIsRefused() {
		assertFailure(runner(NeverFires.class),
				"Schedule 'leap' (bean 'neverFires' method NeverFires.run()) never fires: cron:0 0 0 30 2 * has no "
						+ "future tick.",
				"Give it an expression that matches a time to come (a day of the month that the month has, for "
						+ "example), or remove it.");
	}

	@Test
	void aScheduleWithoutASchedulerToDeclareItWithIsRefused() {
		JobHandlerBeanPostProcessor processor = new JobHandlerBeanPostProcessor(HandlerRegistry::new, () -> null);
		Throwable failure = catchThrowable(() -> processor.postProcessAfterInitialization(new Hourly(), "hourly"));
		assertAnalysis(failure,
				on("hourly", "run") + "it declares every \"1h\", but there is no JobScheduler to declare it with.",
				"Give the JobHandlerBeanPostProcessor a JobScheduler, or remove the schedule from the handler (a cron "
						+ "of \"-\" turns it off).");
	}

	@Test
	void twoHandlersOfOneTypeAreNamedBoth() {
		assertFailure(runner(Greeter.class).withBean("otherGreeter", OtherGreeter.class),
				"Job type 'greet' has two handlers: bean 'greeter' method Greeter.greet() and bean 'otherGreeter' "
						+ "method OtherGreeter.hello().",
				"Give each @JobHandler its own type (its value), or remove one of them.");
	}

	@Test
	void aHandlerThatAnInterfaceProxyCannotCallIsRefused() {
		assertFailure(
				this.contextRunner.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("q.db"))
					.withBean("audit", Auditing.class, () -> {
						ProxyFactory proxy = new ProxyFactory(new Audit());
						proxy.addInterface(Auditing.class);
						return (Auditing) proxy.getProxy();
					}),
				"Invalid @JobHandler on bean 'audit' method Audit.record(): the bean is a proxy of its interfaces, and "
						+ "none of them declares record().",
				"Declare the method on an interface the bean implements, or let Spring proxy the bean's class "
						+ "(spring.aop.proxy-target-class=true, Spring Boot's default).");
	}

	@Test
	void aPrivateHandlerOfAClassProxyIsRefused() {
		assertFailure(
				this.contextRunner.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("q.db"))
					.withBean("privateHandler", PrivateHandler.class, () -> {
						ProxyFactory proxy = new ProxyFactory(new PrivateHandler());
						proxy.setProxyTargetClass(true);
						return (PrivateHandler) proxy.getProxy();
					}),
				on("privateHandler", "run")
						+ "it is private, and the bean is a proxy, which cannot pass a call of a private method on to "
						+ "the bean.",
				"Make the method package-private, protected or public.");
	}

	static class BlankType {

		@JobHandler(" ")
		void run(String payload) {
		}

	}

	static class SpacedType {

		@JobHandler(" mail")
		void run(String payload) {
		}

	}

	static class TabbedType {

		@JobHandler("mail\tsend")
		void run(String payload) {
		}

	}

	static class TwoContexts {

		@JobHandler("mail")
		void run(String payload, JobContext context, JobContext again) {
		}

	}

	static class TwoPayloads {

		@JobHandler("mail")
		void run(String to, Integer times) {
		}

	}

	static class Suspending {

		// What the Kotlin compiler makes of: suspend fun run(payload: String)
		@JobHandler("mail")
		Object run(String payload, Continuation<? super kotlin.Unit> continuation) {
			return kotlin.Unit.INSTANCE;
		}

	}

	@JobErrorCode("payment declined")
	static class Declined extends Exception {

	}

	static class BadErrorCode {

		@JobHandler("charge")
		void run(String payload) throws Declined {
		}

	}

	static class UnreadableTimeout {

		@JobHandler(value = "report", timeout = "soon")
		void run(String payload) {
		}

	}

	static class ZeroTimeout {

		@JobHandler(value = "report", timeout = "0s")
		void run(String payload) {
		}

	}

	static class PlaceholderTimeout {

		@JobHandler(value = "report", timeout = "${reports.timeout}")
		void run(String payload) {
		}

	}

	static class NegativeAttempts {

		@JobHandler(value = "report", maxAttempts = -1)
		void run(String payload) {
		}

	}

	static class NegativeConcurrency {

		@JobHandler(value = "report", concurrency = -2)
		void run(String payload) {
		}

	}

	static class NegativeGlobalConcurrency {

		@JobHandler(value = "report", globalConcurrency = -1)
		void run(String payload) {
		}

	}

	static class CronAndEvery {

		@JobHandler(value = "report", cron = "0 0 * * * *", every = "5m")
		void run() {
		}

	}

	static class ZoneWithoutCron {

		@JobHandler(value = "report", every = "5m", zone = "Europe/Paris")
		void run() {
		}

	}

	static class MisfireWithoutSchedule {

		@JobHandler(value = "report", misfire = Misfire.SKIP)
		void run(String payload) {
		}

	}

	static class UnknownZone {

		@JobHandler(value = "report", cron = "0 0 * * * *", zone = "Europe/Pariss")
		void run() {
		}

	}

	static class BadCron {

		@JobHandler(value = "report", cron = "0 0 25 * * *")
		void run() {
		}

	}

	static class UnreadableEvery {

		@JobHandler(value = "report", every = "often")
		void run() {
		}

	}

	static class TooFrequent {

		@JobHandler(value = "report", every = "500ms")
		void run() {
		}

	}

	static class NeverFires {

		@JobHandler(value = "leap", cron = "0 0 0 30 2 *")
		void run() {
		}

	}

	static class Hourly {

		@JobHandler(value = "report", every = "1h")
		void run() {
		}

	}

	static class Greeter {

		@JobHandler("greet")
		void greet(String name) {
		}

	}

	static class OtherGreeter {

		@JobHandler("greet")
		void hello(String name) {
		}

	}

	interface Auditing {

	}

	static class Audit implements Auditing {

		@JobHandler("audit")
		public void record(String entry) {
		}

	}

	static class PrivateHandler {

		@JobHandler("cleanup")
		private void run(String payload) {
		}

	}

}

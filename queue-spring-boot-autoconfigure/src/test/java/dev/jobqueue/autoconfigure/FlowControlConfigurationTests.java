package dev.jobqueue.autoconfigure;

import java.nio.file.Path;
import java.time.Duration;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.jackson.autoconfigure.JacksonAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.util.StringUtils;

import dev.jobqueue.JobHandler;
import dev.jobqueue.core.FlowControl;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.RateLimit;

import static dev.jobqueue.autoconfigure.FailureAnalysisAssertions.assertFailure;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A handler's flow control, as {@code @JobHandler} attributes and
 * {@code jobqueue.handlers.<type>.*} properties give it, and each value that cannot work
 * failing start-up in Boot's "Description / Action" form, naming the handler, the
 * attribute or property, the value and a valid example.
 */
@ExtendWith(OutputCaptureExtension.class)
class FlowControlConfigurationTests {

	private static final String WRITE_IT = "Write it as permits/window, for example " + RateLimit.EXAMPLE + ".";

	@TempDir
	Path dir;

	private final ApplicationContextRunner contextRunner = new ApplicationContextRunner()
		.withConfiguration(AutoConfigurations.of(JacksonAutoConfiguration.class, QueueAutoConfiguration.class))
		.withPropertyValues("jobqueue.worker.auto-startup=false", "jobqueue.scheduling.auto-startup=false");

	/** The context with one bean of {@code handlers}, named after its class. */
	private <T> ApplicationContextRunner runner(Class<T> handlers, String... properties) {
		return this.contextRunner.withPropertyValues("jobqueue.datasource.url=jdbc:sqlite:" + this.dir.resolve("q.db"))
			.withPropertyValues(properties)
			.withBean(StringUtils.uncapitalize(handlers.getSimpleName()), handlers);
	}

	private static FlowControl flowControl(AssertableApplicationContext context, String type) {
		assertThat(context).hasNotFailed();
		return context.getBean(HandlerRegistry.class).find(type).orElseThrow().flowControl();
	}

	private static RateLimit limit(int permits, Duration window) {
		return new RateLimit(permits, window);
	}

	@Test
	void theAttributesBecomeTheHandlersFlowControl() {
		runner(Payments.class).run((context) -> {
			assertThat(flowControl(context, "charge")).isEqualTo(new FlowControl(limit(100, Duration.ofSeconds(1)),
					limit(10, Duration.ofMinutes(1)), 1, false, true));
			assertThat(flowControl(context, "webhook")).isEqualTo(new FlowControl(null, null, 0, true, false));
			assertThat(flowControl(context, "receipt")).isEqualTo(FlowControl.NONE);
			assertThat(flowControl(context, "receipt").limits()).isFalse();
		});
	}

	@Test
	void eachPropertyReplacesItsAttributeAndLeavesTheOthers() {
		runner(Payments.class, "jobqueue.handlers.charge.rate-limit=50/1s", "jobqueue.handlers.charge.key-rate-limit=",
				"jobqueue.handlers.webhook.block-on-failure=true", "jobqueue.handlers.receipt.ordered=true",
				"jobqueue.handlers.receipt.key-rate-limit=5/PT30S", "jobqueue.handlers.receipt.key-concurrency=1")
			.run((context) -> {
				assertThat(flowControl(context, "charge"))
					.isEqualTo(new FlowControl(limit(50, Duration.ofSeconds(1)), null, 1, false, true));
				assertThat(flowControl(context, "webhook")).isEqualTo(new FlowControl(null, null, 0, true, true));
				assertThat(flowControl(context, "receipt"))
					.isEqualTo(new FlowControl(null, limit(5, Duration.ofSeconds(30)), 1, true, true));
			});
		runner(Payments.class, "jobqueue.handlers.charge.key-concurrency=0", "jobqueue.handlers.charge.rate-limit=")
			.run((context) -> assertThat(flowControl(context, "charge"))
				.isEqualTo(new FlowControl(null, limit(10, Duration.ofMinutes(1)), 0, false, true)));
	}

	@Test
	void aTypeWithDotsIsConfiguredInBracketsAndOneWithCapitalsAsWritten() {
		runner(OddTypes.class, "jobqueue.handlers[mail.send].rate-limit=10/1s",
				"jobqueue.handlers.sendSms.key-concurrency=2")
			.run((context) -> {
				assertThat(flowControl(context, "mail.send").rateLimit()).isEqualTo(limit(10, Duration.ofSeconds(1)));
				assertThat(flowControl(context, "sendSms").keyConcurrency()).isEqualTo(2);
			});
	}

	@Test
	void rateLimitsResolvePlaceholders() {
		runner(PlaceholderLimits.class, "payments.rate=20/1s").run((context) -> {
			assertThat(flowControl(context, "charge").rateLimit()).isEqualTo(limit(20, Duration.ofSeconds(1)));
			assertThat(flowControl(context, "charge").keyRateLimit()).isEqualTo(limit(3, Duration.ofMinutes(1)));
		});
	}

	@Test
	void aRateLimitWithoutAWindowNamesTheHandlerAndTheAttribute() {
		assertFailure(runner(MissingWindow.class),
				"Invalid @JobHandler on bean 'missingWindow' method MissingWindow.charge(): rateLimit \"100/\" is not "
						+ "a rate limit: it has no window after the '/'.",
				WRITE_IT);
	}

	@Test
	void aRateLimitOfNoStartsIsRefused() {
		assertFailure(runner(ZeroPermits.class),
				"Invalid @JobHandler on bean 'zeroPermits' method ZeroPermits.charge(): rateLimit \"0/1s\" allows no "
						+ "starts: a rate limit allows at least 1 start per window.",
				WRITE_IT);
	}

	@Test
	void minusOneIsNotALimitNorNoLimit() {
		assertFailure(runner(MinusOne.class),
				"Invalid @JobHandler on bean 'minusOne' method MinusOne.charge(): rateLimit \"-1\" is not a rate "
						+ "limit: it has no window.",
				WRITE_IT);
	}

	@Test
	void aWindowInAnUnknownUnitSaysWhichUnitsThereAre() {
		assertFailure(runner(UnknownUnit.class),
				"Invalid @JobHandler on bean 'unknownUnit' method UnknownUnit.charge(): keyRateLimit \"100/1w\" has "
						+ "the window \"1w\", which is not a duration.",
				"Write the window in ms, s, m, h or d (a number before the unit, or the unit alone for one), or in "
						+ "ISO-8601 such as PT30S; for example " + RateLimit.EXAMPLE + ".");
	}

	@Test
	void aNegativeKeyConcurrencyIsRefused() {
		assertFailure(runner(NegativeKeyConcurrency.class),
				"Invalid @JobHandler on bean 'negativeKeyConcurrency' method NegativeKeyConcurrency.charge(): "
						+ "keyConcurrency -1 is negative.",
				"Set it to the most jobs of one key that may run at once, for example 1, or to 0 for no limit.");
	}

	@Test
	void blockOnFailureWithoutOrderedSaysItAppliesOnlyToOrderedHandlers() {
		assertFailure(runner(UnorderedBlockOnFailure.class),
				"Invalid @JobHandler on bean 'unorderedBlockOnFailure' method UnorderedBlockOnFailure.deliver(): "
						+ "blockOnFailure = false applies only to ordered handlers, and this one is not ordered.",
				"Set ordered to true as well (the jobs of a key then start one after another in enqueue order, and "
						+ "one that failed for good lets the next go), or remove blockOnFailure.");
	}

	@Test
	void orderedWithAKeyConcurrencyAboveOneIsAContradiction() {
		assertFailure(runner(OrderedInParallel.class),
				"Invalid @JobHandler on bean 'orderedInParallel' method OrderedInParallel.deliver(): ordered = true "
						+ "runs one job of a key at a time, which keyConcurrency = 3 contradicts.",
				"Remove keyConcurrency (or set it to 1) to keep the jobs of a key in enqueue order, or drop ordered "
						+ "to run up to 3 jobs of a key at once in any order.");
	}

	@Test
	void aBadPropertyIsNamedWithTheHandlerItConfigures() {
		assertFailure(runner(Payments.class, "jobqueue.handlers.charge.rate-limit=100/"),
				"Invalid @JobHandler on bean 'payments' method Payments.charge(): jobqueue.handlers.charge.rate-limit "
						+ "\"100/\" is not a rate limit: it has no window after the '/'.",
				WRITE_IT);
		assertFailure(runner(Payments.class, "jobqueue.handlers.charge.key-rate-limit=10/1w"),
				"Invalid @JobHandler on bean 'payments' method Payments.charge(): "
						+ "jobqueue.handlers.charge.key-rate-limit \"10/1w\" has the window \"1w\", which is not a "
						+ "duration.",
				"Write the window in ms, s, m, h or d (a number before the unit, or the unit alone for one), or in "
						+ "ISO-8601 such as PT30S; for example " + RateLimit.EXAMPLE + ".");
		assertFailure(runner(Payments.class, "jobqueue.handlers.receipt.key-concurrency=-2"),
				"Invalid @JobHandler on bean 'payments' method Payments.receipt(): "
						+ "jobqueue.handlers.receipt.key-concurrency -2 is negative.",
				"Set it to the most jobs of one key that may run at once, for example 1, or to 0 for no limit.");
		assertFailure(runner(Payments.class, "jobqueue.handlers.receipt.block-on-failure=false"),
				"Invalid @JobHandler on bean 'payments' method Payments.receipt(): "
						+ "jobqueue.handlers.receipt.block-on-failure=false applies only to ordered handlers, and this "
						+ "one is not ordered.",
				"Set ordered to true as well (the jobs of a key then start one after another in enqueue order, and "
						+ "one that failed for good lets the next go), or remove "
						+ "jobqueue.handlers.receipt.block-on-failure.");
		assertFailure(runner(Payments.class, "jobqueue.handlers.webhook.ordered=false"),
				"Invalid @JobHandler on bean 'payments' method Payments.webhook(): blockOnFailure = false applies "
						+ "only to ordered handlers, and jobqueue.handlers.webhook.ordered=false makes this one "
						+ "unordered.",
				"Set jobqueue.handlers.webhook.ordered to true as well (the jobs of a key then start one after "
						+ "another in enqueue order, and one that failed for good lets the next go), or remove "
						+ "blockOnFailure.");
	}

	@Test
	void aBadPropertyOfATypeWithoutAHandlerHereFailsToo() {
		assertFailure(runner(Payments.class, "jobqueue.handlers.refund.rate-limit=0/1s"),
				"Invalid setting for job type 'refund' (no handler of it in this process): "
						+ "jobqueue.handlers.refund.rate-limit \"0/1s\" allows no starts: a rate limit allows at least "
						+ "1 start per window.",
				WRITE_IT);
		// Whether settings fit together is for the process with the handler to say.
		runner(Payments.class, "jobqueue.handlers.refund.block-on-failure=false")
			.run((context) -> assertThat(context).hasNotFailed());
	}

	@Test
	void settingsOfATypeALetterOrACaseAwayFromAHandledOneAreNamedInAWarning(CapturedOutput output) {
		runner(Payments.class, "jobqueue.handlers.chrage.rate-limit=100/1s", "jobqueue.handlers.other-app.ordered=true")
			.run((context) -> assertThat(context).hasNotFailed());
		runner(OddTypes.class, "jobqueue.handlers.sendsms.key-concurrency=1")
			.run((context) -> assertThat(context).hasNotFailed());
		assertThat(output)
			.contains("jobqueue.handlers.chrage.* is set, but no handler in this process handles job type 'chrage', "
					+ "so it is ignored: did you mean 'charge' (jobqueue.handlers.charge.*)?")
			.contains("job type 'sendsms', so it is ignored: did you mean 'sendSms' (jobqueue.handlers.sendSms.*)?")
			.doesNotContain("'other-app'");
	}

	static class Payments {

		@JobHandler(value = "charge", rateLimit = "100/1s", keyRateLimit = "10/1m", keyConcurrency = 1)
		void charge(String customer) {
		}

		@JobHandler(value = "webhook", ordered = true, blockOnFailure = false)
		void webhook(String event) {
		}

		@JobHandler("receipt")
		void receipt(String customer) {
		}

	}

	static class OddTypes {

		@JobHandler(value = "mail.send", rateLimit = "1/1s")
		void mail(String to) {
		}

		@JobHandler("sendSms")
		void sms(String to) {
		}

	}

	static class PlaceholderLimits {

		@JobHandler(value = "charge", rateLimit = "${payments.rate}", keyRateLimit = "${payments.key-rate:3/1m}")
		void charge(String customer) {
		}

	}

	static class MissingWindow {

		@JobHandler(value = "charge", rateLimit = "100/")
		void charge(String customer) {
		}

	}

	static class ZeroPermits {

		@JobHandler(value = "charge", rateLimit = "0/1s")
		void charge(String customer) {
		}

	}

	static class MinusOne {

		@JobHandler(value = "charge", rateLimit = "-1")
		void charge(String customer) {
		}

	}

	static class UnknownUnit {

		@JobHandler(value = "charge", keyRateLimit = "100/1w")
		void charge(String customer) {
		}

	}

	static class NegativeKeyConcurrency {

		@JobHandler(value = "charge", keyConcurrency = -1)
		void charge(String customer) {
		}

	}

	static class UnorderedBlockOnFailure {

		@JobHandler(value = "webhook", blockOnFailure = false)
		void deliver(String event) {
		}

	}

	static class OrderedInParallel {

		@JobHandler(value = "webhook", ordered = true, keyConcurrency = 3)
		void deliver(String event) {
		}

	}

}

package dev.jobqueue.dashboard;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.openqa.selenium.By;
import org.openqa.selenium.Keys;
import org.openqa.selenium.support.ui.ExpectedConditions;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Flow control steered from the dashboard in a real headless Chromium: an ordered type's
 * job fails for good and blocks its key; the overview says so, its keys page shows the
 * blocked key, the key's jobs and the failed job are one click away, and retrying that
 * job (now that the payment provider accepts it) releases the key, whose later jobs then
 * run in order.
 */
@Tag("browser")
@SpringBootTest(classes = { BrowserTestApplication.class, FlowKeysBrowserTests.Charges.class },
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class FlowKeysBrowserTests extends SqliteFileBrowserTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	private static final String KEY = "customer-7";

	@LocalServerPort
	int port;

	@Autowired
	JobQueue jobQueue;

	@Autowired
	OrderedCharges charges;

	@BeforeEach
	void signIn() {
		browser.signIn(url("/"), Browser.OPERATOR, Browser.OPERATOR_PASSWORD);
		browser.clearConsole();
	}

	@AfterEach
	void consoleStayedClean() {
		assertThat(browser.consoleProblems()).as("browser console").isEmpty();
	}

	@Test
	void aBlockedKeyIsSeenFollowedToItsFailedJobAndReleasedByRetryingIt() {
		this.charges.declining.set(true);
		long first = this.jobQueue.enqueue(JobRequest.of("charge", "first").key(KEY).maxAttempts(1));
		long second = this.jobQueue.enqueue(JobRequest.of("charge", "second").key(KEY));
		long third = this.jobQueue.enqueue(JobRequest.of("charge", "third").key(KEY));
		await().atMost(WAIT).until(() -> status(first) == JobStatus.FAILED);
		assertThat(status(second)).as("held behind the failed job").isEqualTo(JobStatus.PENDING);

		browser.open(url("/"));
		browser.waiting(WAIT).until((driver) -> browser.count("li[data-blocked='charge']") > 0);
		assertThat(browser.text("li[data-blocked='charge']")).contains("1 key(s) of charge blocked by a failed job")
			.contains("2 due job(s) behind them");
		assertThat(browser.text("#flow tr[data-type='charge'] td[data-reason='blocked']")).isEqualTo("2");
		browser.click("li[data-blocked='charge'] a");

		assertThat(browser.text("h1")).isEqualTo("Keys of charge");
		String row = "#blocked-keys tr[data-key='" + KEY + "']";
		assertThat(browser.text(row)).contains("#" + first);
		assertThat(browser.text("#busiest-keys tr[data-key='" + KEY + "']")).contains("blocked");
		if (Boolean.getBoolean("jobqueue.dashboard.screenshots")) {
			browser.screenshot(Path.of("").toAbsolutePath().getParent().resolve("docs").resolve("dashboard-keys.png"));
		}
		browser.click(row + " a.job-key");
		assertThat(browser.attribute("input[name='key']", "value")).isEqualTo(KEY);
		assertThat(browser.count("#jobs tbody tr")).isEqualTo(3);

		browser.driver().navigate().back();
		browser.click(row + " a.blocking-job");
		assertThat(browser.text("#job-status")).isEqualTo("failed");
		this.charges.declining.set(false);
		browser.click("#action-retry");
		assertThat(browser.text("h1")).isEqualTo("Retry job #" + first + "?");
		browser.driver().switchTo().activeElement().sendKeys(Keys.ENTER);
		browser.waiting(WAIT).until(ExpectedConditions.textToBe(By.id("job-status"), "succeeded"));

		await().atMost(WAIT).until(() -> status(third) == JobStatus.SUCCEEDED);
		assertThat(this.charges.charged).containsExactly("first", "second", "third");
		browser.open(url("/keys?type=charge"));
		assertThat(browser.count("#blocked-keys")).isZero();
		assertThat(browser.text("#key-counts")).contains("0 blocked");
	}

	private JobStatus status(long id) {
		return this.jobQueue.find(id).orElseThrow().status();
	}

	private String url(String path) {
		return "http://localhost:" + this.port + "/jobqueue" + path;
	}

	@TestConfiguration(proxyBeanMethods = false)
	static class Charges {

		@Bean
		OrderedCharges orderedCharges() {
			return new OrderedCharges();
		}

	}

	/** Charges one customer's payments in order, declining them while told to. */
	static class OrderedCharges {

		final AtomicBoolean declining = new AtomicBoolean();

		final List<String> charged = new CopyOnWriteArrayList<>();

		@JobHandler(value = "charge", ordered = true)
		void charge(String payment) {
			if (this.declining.get()) {
				throw new IllegalStateException("the payment provider declined " + payment);
			}
			this.charged.add(payment);
		}

	}

}

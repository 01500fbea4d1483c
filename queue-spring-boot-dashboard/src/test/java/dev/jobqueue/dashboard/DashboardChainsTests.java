package dev.jobqueue.dashboard;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.SpringBootTest.WebEnvironment;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import dev.jobqueue.ErrorCodes;
import dev.jobqueue.FanOut;
import dev.jobqueue.Job;
import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueue;
import dev.jobqueue.JobRequest;
import dev.jobqueue.JobStatus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Chains and dependencies on the dashboard, with a real worker on a SQLite file: a chain
 * of continuations whose last step nobody handles (so it stays pending), a fan-out whose
 * children stay pending and whose join waits, and one wider than the lists are long. The
 * pages are read as HTML; the cancel-chain action goes through the same confirmation and
 * POST as cancel, and is absent (and refused) on a read-only dashboard.
 */
class DashboardChainsTests {

	static final Duration WAIT = Duration.ofSeconds(20);

	/** A type no process handles: its jobs stay pending until cancelled. */
	static final String HELD = "held";

	@Nested
	@SpringBootTest(classes = ChainsApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "jobqueue.dashboard.enabled=true", "jobqueue.dashboard.read-only=false",
					"jobqueue.worker.poll-interval=100ms" })
	class ActionsOn extends Pages {

		@DynamicPropertySource
		static void queueFile(DynamicPropertyRegistry registry) {
			Pages.queueFile(registry, "actions-on");
		}

		@Test
		void aChainShowsItsStepsInOrderAndIsCancelledFromAStepsPage() throws Exception {
			List<Job> chain = chainOfThree("order-1");
			long first = chain.get(0).id();
			long held = chain.get(2).id();

			String page = get("/jobqueue/jobs/" + first);
			assertThat(page).contains("id=\"chain-summary\"").contains("3 job(s) in all, 1 unfinished");
			// Steps in chain order, each a link with its type and status.
			assertThat(stepsOf(page)).containsExactly(first + " first succeeded",
					chain.get(1).id() + " second succeeded", held + " held pending");
			assertThat(page).contains("href=\"/jobqueue/jobs/" + held + "\"").contains("id=\"action-cancel-chain\"");

			String confirm = get("/jobqueue/jobs/" + first + "/cancel-chain");
			assertThat(confirm).contains("Cancel the chain of job #" + first + "?")
				.contains("3 job(s), 1 of them unfinished");
			HttpResponse<String> cancelled = post("/jobqueue/jobs/" + first + "/cancel-chain");
			assertThat(cancelled.statusCode()).isEqualTo(303);
			assertThat(cancelled.headers().firstValue("Location"))
				.hasValue("/jobqueue/jobs/" + first + "?done=cancel-chain");
			Job step = this.queue.find(held).orElseThrow();
			assertThat(step.status()).isEqualTo(JobStatus.CANCELLED);
			assertThat(step.errorCode()).isEqualTo(ErrorCodes.CANCELLED_CHAIN);

			// Nothing unfinished any more: no button, and a second POST changes nothing.
			page = get("/jobqueue/jobs/" + first + "?done=cancel-chain");
			assertThat(page).contains("Chain cancelled").doesNotContain("id=\"action-cancel-chain\"");
			assertThat(stepsOf(page)).last().isEqualTo(held + " held cancelled");
			HttpResponse<String> again = post("/jobqueue/jobs/" + first + "/cancel-chain");
			assertThat(again.statusCode()).isEqualTo(409);
			assertThat(again.body()).contains("Chain #" + first + " was not cancelled");
		}

		@Test
		void aJobInNoChainHasNoChainToCancel() throws Exception {
			long lone = this.queue.enqueue(HELD, "alone");
			assertThat(get("/jobqueue/jobs/" + lone)).doesNotContain("id=\"chain\"")
				.doesNotContain("action-cancel-chain")
				.contains("id=\"action-cancel\"");
			HttpResponse<String> refused = post("/jobqueue/jobs/" + lone + "/cancel-chain");
			assertThat(refused.statusCode()).isEqualTo(409);
			assertThat(refused.body()).contains("Job #" + lone + " is in no chain");
			assertThat(this.queue.find(lone).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
			this.queue.cancel(lone);
		}

		@Test
		void aWaitingJobIsCountedListedAndShowsWhatItWaitsFor() throws Exception {
			FanOut fanOut = this.queue.enqueueFanOut(
					List.of(JobRequest.of(HELD, "a"), JobRequest.of(HELD, "b"), JobRequest.of(HELD, "c")),
					JobRequest.of("summary", "all"));
			long join = fanOut.joinId();
			assertThat(this.queue.find(join).orElseThrow().status()).isEqualTo(JobStatus.WAITING);

			assertThat(get("/jobqueue/")).containsPattern("data-count=\"waiting\">[1-9]")
				.contains("href=\"/jobqueue/jobs?status=waiting\"");
			String waiting = get("/jobqueue/jobs?status=waiting");
			assertThat(waiting).contains("<h1>Waiting jobs</h1>")
				.contains("data-job=\"" + join + "\"")
				.contains("waits for other jobs");
			assertThat(waiting).doesNotContain("data-job=\"" + fanOut.childIds().get(0) + "\"");

			String page = get("/jobqueue/jobs/" + join);
			assertThat(page).contains("id=\"job-status\">waiting")
				.contains("Waits for 3 job(s), 3 of them unfinished")
				.contains("policy cancel");
			assertThat(idsIn(page, "waits-for")).containsExactlyElementsOf(fanOut.childIds());
			assertThat(page).contains("3 jobs:").contains("3 pending");
			assertThat(idsIn(get("/jobqueue/jobs/" + fanOut.childIds().get(1)), "waited-by")).containsExactly(join);
			// A waiting job can be cancelled like a pending one.
			assertThat(page).contains("id=\"action-cancel\"");
			assertThat(get("/jobqueue/jobs/" + join + "/cancel")).contains("Cancel job #" + join + "?");

			assertThat(post("/jobqueue/jobs/" + join + "/cancel-chain").statusCode()).isEqualTo(303);
			assertThat(this.queue.findChain(fanOut.chainId())).extracting(Job::status)
				.containsOnly(JobStatus.CANCELLED);
		}

		@Test
		void listsLongerThanTheCapSayHowManyThereAre() throws Exception {
			List<JobRequest> children = new ArrayList<>();
			for (int i = 0; i < 150; i++) {
				children.add(JobRequest.of(HELD, i));
			}
			FanOut fanOut = this.queue.enqueueFanOut(children, JobRequest.of("summary", "wide"));
			String page = get("/jobqueue/jobs/" + fanOut.joinId());
			assertThat(page).contains("Waits for 150 job(s), 150 of them unfinished")
				.contains("id=\"waits-for-capped\">100 of 150 listed.")
				.contains("151 job(s) in all, 151 unfinished")
				.contains("150 jobs:")
				.contains("and 140 more");
			assertThat(idsIn(page, "waits-for")).hasSize(100);
			this.queue.cancelChain(fanOut.chainId());
		}

	}

	@Nested
	@SpringBootTest(classes = ChainsApplication.class, webEnvironment = WebEnvironment.RANDOM_PORT,
			properties = { "jobqueue.dashboard.enabled=true", "jobqueue.worker.poll-interval=100ms" })
	class ReadOnly extends Pages {

		@DynamicPropertySource
		static void queueFile(DynamicPropertyRegistry registry) {
			Pages.queueFile(registry, "read-only");
		}

		@Test
		void theChainIsShownButCannotBeCancelled() throws Exception {
			List<Job> chain = chainOfThree("read-only");
			long first = chain.get(0).id();
			String page = get("/jobqueue/jobs/" + first);
			assertThat(stepsOf(page)).hasSize(3);
			assertThat(page).doesNotContain("action-cancel-chain");
			HttpResponse<String> refused = post("/jobqueue/jobs/" + first + "/cancel-chain");
			assertThat(refused.statusCode()).isEqualTo(403);
			assertThat(this.queue.find(chain.get(2).id()).orElseThrow().status()).isEqualTo(JobStatus.PENDING);
			this.queue.cancelChain(first);
		}

	}

	abstract static class Pages {

		private static final Pattern STEP = Pattern.compile(
				"<span class=\"step\"[^>]*data-job=\"(\\d+)\"><a [^>]*>#\\d+</a> ([^<]*) <span class=\"status [a-z]+\">([a-z]+)</span>");

		@LocalServerPort
		int port;

		@Autowired
		JobQueue queue;

		private final HttpClient http = HttpClient.newHttpClient();

		static void queueFile(DynamicPropertyRegistry registry, String name) {
			try {
				Path dir = Files.createTempDirectory("jobqueue-dashboard-chains-" + name);
				registry.add("jobqueue.datasource.url", () -> "jdbc:sqlite:" + dir.resolve("queue.db"));
			}
			catch (IOException ex) {
				throw new IllegalStateException(ex);
			}
		}

		/**
		 * first → second → held: the worker runs the first two, the third stays pending.
		 */
		List<Job> chainOfThree(String name) {
			long first = this.queue.enqueue("first", name);
			await().atMost(WAIT).until(() -> this.queue.findChain(first).size() == 3);
			return this.queue.findChain(first);
		}

		/** "id type status" of each step the page's chain list shows, in order. */
		static List<String> stepsOf(String page) {
			int start = page.indexOf("id=\"chain\"");
			assertThat(start).as("the page has a chain").isNotNegative();
			String chain = page.substring(start, page.indexOf("</ol>", start));
			List<String> steps = new ArrayList<>();
			Matcher step = STEP.matcher(chain);
			while (step.find()) {
				steps.add(step.group(1) + " " + step.group(2) + " " + step.group(3));
			}
			return steps;
		}

		/** The job ids of the list with this id. */
		static List<Long> idsIn(String page, String listId) {
			int start = page.indexOf("id=\"" + listId + "\"");
			assertThat(start).as("the page has #" + listId).isNotNegative();
			String list = page.substring(start, page.indexOf("</ul>", start));
			List<Long> ids = new ArrayList<>();
			Matcher id = Pattern.compile("data-job=\"(\\d+)\"").matcher(list);
			while (id.find()) {
				ids.add(Long.parseLong(id.group(1)));
			}
			return ids;
		}

		String get(String path) throws IOException, InterruptedException {
			HttpResponse<String> response = this.http.send(HttpRequest.newBuilder(uri(path)).GET().build(),
					HttpResponse.BodyHandlers.ofString());
			assertThat(response.statusCode()).as(path).isEqualTo(200);
			return response.body();
		}

		HttpResponse<String> post(String path) throws IOException, InterruptedException {
			return this.http.send(HttpRequest.newBuilder(uri(path))
				.header("Content-Type", "application/x-www-form-urlencoded")
				.POST(HttpRequest.BodyPublishers.ofString(""))
				.build(), HttpResponse.BodyHandlers.ofString());
		}

		private URI uri(String path) {
			return URI.create("http://localhost:" + this.port + path);
		}

	}

	@SpringBootConfiguration
	@EnableAutoConfiguration(excludeName = "org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration")
	static class ChainsApplication {

		@Bean
		ChainJobs chainJobs() {
			return new ChainJobs();
		}

	}

	static class ChainJobs {

		@JobHandler("first")
		void first(String name, JobContext context) {
			context.continueWith("second", name);
		}

		@JobHandler("second")
		void second(String name, JobContext context) {
			context.continueWith(HELD, name);
		}

	}

}

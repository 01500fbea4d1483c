package dev.jobqueue.dashboard;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;

import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.test.annotation.DirtiesContext;

import dev.jobqueue.JobQueue;
import dev.jobqueue.PausedType;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Type names as users write them, in a real browser: the overview's Pause and Resume
 * buttons lead to the confirmation and act; a type with {@code &}, {@code =} and
 * {@code #} in it stays one value in every link; a type with a right-to-left override
 * shows the control as text instead of reversing what follows it.
 */
@Tag("browser")
@SpringBootTest(classes = CrossSiteBrowserTests.UnsecuredApplication.class,
		webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT)
@DirtiesContext
class TypeNamesBrowserTests extends SqliteFileBrowserTests {

	private static final Duration WAIT = Duration.ofSeconds(30);

	/** No handler declares it, so its job stays pending. */
	private static final String AMPERSAND = "a&status=succeeded #x";

	private static final String BIDI = "bidi\u202Egnp.exe";

	@LocalServerPort
	int port;

	@Autowired
	JobQueue queue;

	@Test
	void pauseAndResumeButtonsActOnATypeWhoseNameLooksLikeAQuery() {
		this.queue.enqueue(AMPERSAND, "{}");
		String row = "#types tr[data-type='" + AMPERSAND + "']";
		browser.open(url("/jobqueue/"));
		browser.click(row + " a[data-action='pause']");
		assertThat(browser.text("h1")).isEqualTo("Pause job type " + AMPERSAND + "?");
		browser.click("#confirm");
		browser.waiting(WAIT).until((driver) -> driver.getCurrentUrl().equals(url("/jobqueue/")));
		assertThat(this.queue.pausedTypes()).extracting(PausedType::type).containsExactly(AMPERSAND);
		assertThat(browser.text(row)).contains("paused");

		browser.click(row + " a[data-action='resume']");
		assertThat(browser.text("h1")).isEqualTo("Resume job type " + AMPERSAND + "?");
		browser.click("#confirm");
		browser.waiting(WAIT).until((driver) -> driver.getCurrentUrl().equals(url("/jobqueue/")));
		assertThat(this.queue.pausedTypes()).isEmpty();

		// The type's link filters by the whole name, not by "a" and status succeeded.
		browser.click(row + " td:first-child a");
		assertThat(browser.attribute("input[name='type']", "value")).isEqualTo(AMPERSAND);
		assertThat(browser.attribute("select[name='status'] option[selected]", "value")).isNull();
		assertThat(browser.count("#jobs tbody tr")).isEqualTo(1);
	}

	@Test
	void aRightToLeftOverrideInATypeIsShownAsTextAndReversesNothing() {
		long id = this.queue.enqueue(BIDI, "{\"name\":\"report\u202Efdp.exe\"}");
		browser.open(url("/jobqueue/jobs?type=" + URLEncoder.encode(BIDI, StandardCharsets.UTF_8)));
		assertThat(browser.count("#jobs tbody tr")).isEqualTo(1);
		assertThat(browser.text("#jobs tbody tr td:nth-child(2)")).isEqualTo("bidi[U+202E]gnp.exe");
		browser.open(url("/jobqueue/"));
		assertThat(browser.text("#types tbody")).contains("bidi[U+202E]gnp.exe").doesNotContain("\u202E");
		browser.open(url("/jobqueue/jobs/" + id));
		assertThat(browser.text("main")).contains("bidi[U+202E]gnp.exe").doesNotContain("\u202E");
	}

	private String url(String path) {
		return "http://localhost:" + this.port + path;
	}

}

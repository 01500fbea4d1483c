package dev.jobqueue.docs;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The manual's links: every relative link of the README, the changelog, the sample's
 * README and the guide points to a file that exists, and every anchor to a heading or an
 * id of its page. The same check runs when the site is rendered.
 */
class SiteTests {

	@TempDir
	Path temp;

	@Test
	void theManualHasNoBrokenLinks() throws IOException {
		Site.Report report = Site.check(Path.of(System.getProperty("repository")));
		assertThat(report.broken()).as("broken links").isEmpty();
		assertThat(report.pages()).isGreaterThan(20);
		assertThat(report.linksChecked()).isGreaterThan(100);
	}

	@Test
	void aMissingFileAWrongAnchorAndAMissingPageAreEachReported() throws IOException {
		write("README.md", """
				# Title

				See [the guide](docs/index.md#using-it), [a picture](docs/shot.png), [setup](#which-setup),
				[gone](docs/guide/gone.md), [wrong anchor](docs/index.md#nowhere), [out](../elsewhere.md),
				[web](https://example.com/x.md).

				## Which setup?
				""");
		write("docs/index.md", """
				# Guide

				## Using it

				1. [Handlers](guide/handlers.md#errors-and-retries)
				""");
		write("docs/guide/handlers.md", """
				# Handlers

				<a id="errors-and-retries"></a>Errors.
				""");
		write("docs/shot.png", "");

		Site.Report report = Site.check(this.temp);

		assertThat(report.broken()).containsExactlyInAnyOrder("README.md: docs/guide/gone.md: no such file",
				"README.md: docs/index.md#nowhere: no heading or id 'nowhere' in docs/index.md",
				"README.md: ../elsewhere.md: points outside the repository");
		assertThat(report.linksChecked()).isEqualTo(7);
	}

	@Test
	void pagesRenderToHtmlWithTheGuidesContentsAndWorkingLinks() throws IOException {
		write("README.md", "# Readme\n\nThe [guide](docs/index.md#using-it).\n");
		write("docs/index.md", "# Guide\n\n## Using it\n\n1. [Handlers](guide/handlers.md)\n");
		write("docs/guide/handlers.md", "# Handlers\n\n![shot](../shot.png)\n\n## Errors `and` retries\n");
		write("docs/shot.png", "png");
		Path site = this.temp.resolve("site");

		Site.Report report = Site.render(this.temp, site);

		assertThat(report.broken()).isEmpty();
		assertThat(Files.readString(site.resolve("README.html"))).contains("href=\"docs/index.html#using-it\"");
		String handlers = Files.readString(site.resolve("docs/guide/handlers.html"));
		assertThat(handlers).contains("<a id=\"errors-and-retries\"></a>")
			.contains("<h4>Using it</h4>")
			.contains("href=\"handlers.html\">Handlers</a>")
			.contains("src=\"../shot.png\"");
		assertThat(site.resolve("docs/shot.png")).exists();
		assertThat(site.resolve("index.html")).exists();
	}

	@Test
	void anchorsAreMadeAsGitHubMakesThem() {
		assertThat(Site.slug("Which setup?")).isEqualTo("which-setup");
		assertThat(Site.slug("Where the data lives and transactions"))
			.isEqualTo("where-the-data-lives-and-transactions");
		assertThat(Site.slug("`jobqueue.worker`: run, claim → finish")).isEqualTo("jobqueueworker-run-claim--finish");
	}

	private void write(String path, String content) throws IOException {
		Path file = this.temp.resolve(path);
		Files.createDirectories(file.getParent());
		Files.writeString(file, content);
	}

}

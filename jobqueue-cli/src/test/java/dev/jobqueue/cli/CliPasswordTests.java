package dev.jobqueue.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * Where the command line takes a server's password: {@code JOBQUEUE_PASSWORD} or
 * {@code --password-file} keep it out of the process list; {@code --password} still works
 * but warns that anyone on the machine sees it in {@code ps}.
 */
class CliPasswordTests {

	@TempDir
	Path dir;

	@Test
	void aPasswordOnTheCommandLineWorksButWarnsThatPsShowsIt() {
		String[] answer = run("migrate", "--db=" + this.dir.resolve("queue.db"), "--password=s3cret");
		assertThat(answer[0]).isEqualTo("0");
		assertThat(answer[1]).contains("warning: --password is visible to other users of this machine")
			.contains("JOBQUEUE_PASSWORD")
			.contains("--password-file")
			.doesNotContain("s3cret");
	}

	@Test
	void withoutAPasswordOnTheCommandLineNothingIsSaid() {
		String[] answer = run("migrate", "--db=" + this.dir.resolve("queue.db"));
		assertThat(answer[0]).isEqualTo("0");
		assertThat(answer[1]).doesNotContain("warning");
	}

	@Test
	void aPasswordFileGivesItsFirstLine() throws IOException {
		Path file = Files.writeString(this.dir.resolve("password"), "s3cret\nignored\n", StandardCharsets.UTF_8);
		JobQueueCli tool = new JobQueueCli(Map.of("JOBQUEUE_PASSWORD", "from-the-environment"));
		DatabaseOptions options = new DatabaseOptions();
		assertThat(options.password(tool)).isEqualTo("from-the-environment");
		options.passwordFile = file;
		assertThat(options.password(tool)).isEqualTo("s3cret");
		assertThat(options.passwordWarning()).isNull();
		options.password = "typed";
		assertThatExceptionOfType(CliException.class).isThrownBy(() -> options.password(tool))
			.withMessageContaining("Pass the password once");
	}

	@Test
	void anUnreadablePasswordFileIsBadUsage() {
		String[] answer = run("migrate", "--db=" + this.dir.resolve("queue.db"),
				"--password-file=" + this.dir.resolve("missing"));
		assertThat(answer[0]).isEqualTo(String.valueOf(ExitCodes.USAGE));
		assertThat(answer[1]).contains("Cannot read --password-file=");
	}

	private static String[] run(String... args) {
		StringWriter out = new StringWriter();
		StringWriter err = new StringWriter();
		int exit = JobQueueCli.run(args, new PrintWriter(out, true), new PrintWriter(err, true), Map.of());
		return new String[] { String.valueOf(exit), err.toString(), out.toString() };
	}

}

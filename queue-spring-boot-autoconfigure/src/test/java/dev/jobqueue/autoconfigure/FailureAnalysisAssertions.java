package dev.jobqueue.autoconfigure;

import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Asserts a start-up failure as Boot prints it: the {@link QueueFailureAnalyzer}'s
 * description and action.
 */
final class FailureAnalysisAssertions {

	private FailureAnalysisAssertions() {
	}

	/**
	 * Asserts that the context fails to start and that the failure analysis reads
	 * {@code description} (after "The job queue could not start: ") and {@code action}.
	 */
	static void assertFailure(ApplicationContextRunner runner, String description, String action) {
		runner.run((context) -> {
			assertThat(context).hasFailed();
			assertAnalysis(context.getStartupFailure(), description, action);
		});
	}

	/** Asserts how Boot shows {@code failure}, as {@link #assertFailure} does. */
	static void assertAnalysis(Throwable failure, String description, String action) {
		FailureAnalysis analysis = new QueueFailureAnalyzer().analyze(failure);
		assertThat(analysis).as("the failure analysis of %s", failure).isNotNull();
		assertThat(analysis.getDescription()).isEqualTo("The job queue could not start: " + description);
		assertThat(analysis.getAction()).isEqualTo(action);
	}

}

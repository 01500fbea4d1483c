package dev.jobqueue.test;

import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.ApplicationContext;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

@SpringBootTest(classes = NoQueueTests.NoHandlers.class, properties = "jobqueue.enabled=false")
@AutoConfigureJobQueue
class NoQueueTests {

	@Autowired
	JobQueueTester tester;

	@Autowired
	ApplicationContext context;

	@Test
	void usingTheTesterSaysWhatIsMissing() {
		assertThatIllegalStateException().isThrownBy(this.tester::runDueJobs)
			.withMessageContaining("no job queue in this test's context")
			.withMessageContaining("jobqueue.enabled=false");
	}

	@org.springframework.boot.SpringBootConfiguration
	@org.springframework.boot.autoconfigure.EnableAutoConfiguration
	static class NoHandlers {

	}

}

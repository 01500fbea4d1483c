package dev.jobqueue.core.worker;

import org.junit.jupiter.api.Test;

import dev.jobqueue.JobErrorCode;

import static org.assertj.core.api.Assertions.assertThat;

/** The default classifier's reading of {@link JobErrorCode}. */
class DefaultErrorClassifierTests {

	private final DefaultErrorClassifier classifier = new DefaultErrorClassifier();

	@Test
	void aValidAnnotatedCodeIsUsed() {
		ErrorClassification classification = this.classifier.classify("charge", new Declined());
		assertThat(classification.code()).isEqualTo("DEPENDENCY:PAYMENT_API");
		assertThat(classification.retryable()).isFalse();
	}

	@Test
	void anAnnotatedValueThatIsNotACodeIsPassedOver() {
		ErrorClassification classification = this.classifier.classify("charge",
				new RuntimeException(new BadlyAnnotated()));
		assertThat(classification.code()).isEqualTo("INTERNAL:RuntimeException");
	}

	@JobErrorCode(value = "DEPENDENCY:PAYMENT_API", retryable = false)
	static class Declined extends RuntimeException {

	}

	@JobErrorCode("payment declined")
	static class BadlyAnnotated extends RuntimeException {

	}

}

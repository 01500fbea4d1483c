package dev.jobqueue;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Inherited;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Gives an exception type the error code a job fails with when a handler throws it, so
 * failures aggregate by cause:
 * {@code @JobErrorCode("DEPENDENCY:PAYMENT_API") class PaymentApiDown extends RuntimeException}.
 */
@Target(ElementType.TYPE)
@Retention(RetentionPolicy.RUNTIME)
@Inherited
@Documented
public @interface JobErrorCode {

	/** {@code CATEGORY:SUBCATEGORY}, for example {@code TIMEOUT:UPSTREAM_API}. */
	String value();

	/**
	 * Whether a job failing this way should be tried again while it has attempts left.
	 */
	boolean retryable() default true;

}

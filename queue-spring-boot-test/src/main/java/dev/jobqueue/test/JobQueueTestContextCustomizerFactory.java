package dev.jobqueue.test;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.test.context.ContextConfigurationAttributes;
import org.springframework.test.context.ContextCustomizer;
import org.springframework.test.context.ContextCustomizerFactory;
import org.springframework.test.context.TestContextAnnotationUtils;

/**
 * Finds {@link AutoConfigureJobQueue} on a test class (or an enclosing class) and applies
 * it.
 */
final class JobQueueTestContextCustomizerFactory implements ContextCustomizerFactory {

	@Override
	public @Nullable ContextCustomizer createContextCustomizer(Class<?> testClass,
			List<ContextConfigurationAttributes> configAttributes) {
		AutoConfigureJobQueue annotation = TestContextAnnotationUtils.findMergedAnnotation(testClass,
				AutoConfigureJobQueue.class);
		return (annotation != null)
				? new JobQueueTestContextCustomizer(annotation.runJobs(), annotation.temporaryDatabase()) : null;
	}

}

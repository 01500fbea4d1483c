package dev.jobqueue.autoconfigure;

import java.util.Map;

import org.springframework.beans.factory.config.BeanDefinition;
import org.springframework.boot.LazyInitializationExcludeFilter;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.core.annotation.AnnotationUtils;

import dev.jobqueue.JobHandler;

/**
 * Keeps beans with {@link JobHandler} methods eager under
 * {@code spring.main.lazy-initialization=true}: a handler bean that nothing else asks for
 * would otherwise never be created, its type never registered and its jobs left pending.
 * Boot does the same for {@code @Scheduled} beans.
 */
class JobHandlerBeanLazyInitializationExcludeFilter implements LazyInitializationExcludeFilter {

	@Override
	public boolean isExcluded(String beanName, BeanDefinition beanDefinition, Class<?> beanType) {
		if (!AnnotationUtils.isCandidateClass(beanType, JobHandler.class)) {
			return false;
		}
		Map<?, ?> handlers = MethodIntrospector.selectMethods(beanType,
				(MethodIntrospector.MetadataLookup<JobHandler>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, JobHandler.class));
		return !handlers.isEmpty();
	}

}

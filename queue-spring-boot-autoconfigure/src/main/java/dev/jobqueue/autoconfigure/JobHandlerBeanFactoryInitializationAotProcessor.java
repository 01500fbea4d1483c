package dev.jobqueue.autoconfigure;

import java.lang.reflect.Method;
import java.lang.reflect.Type;
import java.util.LinkedHashSet;
import java.util.Map;
import java.util.Set;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.BindingReflectionHintsRegistrar;
import org.springframework.aot.hint.ExecutableMode;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotContribution;
import org.springframework.beans.factory.aot.BeanFactoryInitializationAotProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.ResolvableType;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.ClassUtils;

import dev.jobqueue.JobContext;
import dev.jobqueue.JobHandler;

/**
 * Registers, for a native image, each {@link JobHandler} method (invoked reflectively by
 * the worker) and the payload and return types it declares (read and written as JSON),
 * found on the beans of the application at build time.
 */
class JobHandlerBeanFactoryInitializationAotProcessor implements BeanFactoryInitializationAotProcessor {

	@Override
	public @Nullable BeanFactoryInitializationAotContribution processAheadOfTime(
			ConfigurableListableBeanFactory beanFactory) {
		Set<Class<?>> handlerClasses = new LinkedHashSet<>();
		for (String name : beanFactory.getBeanDefinitionNames()) {
			Class<?> type = beanFactory.getType(name, false);
			if (type != null && !handlerMethods(ClassUtils.getUserClass(type)).isEmpty()) {
				handlerClasses.add(ClassUtils.getUserClass(type));
			}
		}
		if (handlerClasses.isEmpty()) {
			return null;
		}
		return (generationContext, code) -> handlerClasses
			.forEach((type) -> registerHints(generationContext.getRuntimeHints(), type));
	}

	/**
	 * Registers the handler methods of {@code type} and the types of their payloads and
	 * results.
	 */
	static void registerHints(RuntimeHints hints, Class<?> type) {
		BindingReflectionHintsRegistrar bindings = new BindingReflectionHintsRegistrar();
		handlerMethods(type).keySet().forEach((method) -> {
			hints.reflection().registerMethod(method, ExecutableMode.INVOKE);
			for (Type parameter : method.getGenericParameterTypes()) {
				// A suspend fun's continuation is the compiler's, not data.
				if (parameter != JobContext.class && !ResolvableType.forType(parameter)
					.toClass()
					.getName()
					.equals(SuspendingHandlers.CONTINUATION)) {
					bindings.registerReflectionHints(hints.reflection(), parameter);
				}
			}
			if (method.getReturnType() != void.class) {
				bindings.registerReflectionHints(hints.reflection(), method.getGenericReturnType());
			}
		});
	}

	private static Map<Method, JobHandler> handlerMethods(Class<?> type) {
		return MethodIntrospector.selectMethods(type,
				(MethodIntrospector.MetadataLookup<JobHandler>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, JobHandler.class));
	}

}

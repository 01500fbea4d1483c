package dev.jobqueue.autoconfigure;

import java.lang.reflect.Method;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;

import org.jspecify.annotations.Nullable;

import org.springframework.aop.framework.AopProxyUtils;
import org.springframework.beans.factory.BeanClassLoaderAware;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.context.EmbeddedValueResolverAware;
import org.springframework.core.MethodIntrospector;
import org.springframework.core.annotation.AnnotatedElementUtils;
import org.springframework.util.StringValueResolver;

import dev.jobqueue.JobHandler;
import dev.jobqueue.JobQueueException;
import dev.jobqueue.Schedule;
import dev.jobqueue.core.HandlerDefinition;
import dev.jobqueue.core.HandlerRegistry;
import dev.jobqueue.core.PayloadCodec;
import dev.jobqueue.core.schedule.JobScheduler;

/**
 * Registers every {@link JobHandler} method of every bean, looking at the bean's ultimate
 * target class so that proxied beans ({@code @Transactional}, {@code @Async}) work. Fails
 * start-up, naming bean, method and attribute, on a type with two handlers, a signature
 * or an attribute that cannot work, with a {@link JobQueueException} that Boot's failure
 * analysis shows as description and action.
 */
public class JobHandlerBeanPostProcessor
		implements BeanPostProcessor, EmbeddedValueResolverAware, BeanClassLoaderAware {

	private final Supplier<HandlerRegistry> registry;

	private final Supplier<PayloadCodec> codec;

	private final Supplier<JobScheduler> scheduler;

	private final Supplier<Map<String, QueueProperties.Handler>> settings;

	private final Set<Class<?>> classesWithoutHandlers = ConcurrentHashMap.newKeySet();

	private @Nullable StringValueResolver valueResolver;

	private @Nullable ClassLoader classLoader;

	/**
	 * Without a scheduler: a handler with {@code cron} or {@code every} fails start-up.
	 */
	public JobHandlerBeanPostProcessor(Supplier<HandlerRegistry> registry, Supplier<PayloadCodec> codec) {
		this(registry, codec, () -> null);
	}

	/**
	 * Without settings by job type: the handlers' attributes are what they declare.
	 * @param scheduler where handlers with {@code cron} or {@code every} declare their
	 * schedule; may supply {@code null} (no scheduler), which then fails start-up on such
	 * a handler
	 */
	public JobHandlerBeanPostProcessor(Supplier<HandlerRegistry> registry, Supplier<PayloadCodec> codec,
			Supplier<JobScheduler> scheduler) {
		this(registry, codec, scheduler, Map::of);
	}

	/**
	 * @param scheduler where handlers with {@code cron} or {@code every} declare their
	 * schedule; may supply {@code null} (no scheduler), which then fails start-up on such
	 * a handler
	 * @param settings {@code jobqueue.handlers}: settings by job type that override the
	 * attributes of its handler; asked for when a bean with handlers is found
	 */
	public JobHandlerBeanPostProcessor(Supplier<HandlerRegistry> registry, Supplier<PayloadCodec> codec,
			Supplier<JobScheduler> scheduler, Supplier<Map<String, QueueProperties.Handler>> settings) {
		this.registry = registry;
		this.codec = codec;
		this.scheduler = scheduler;
		this.settings = settings;
	}

	/**
	 * Resolves {@code ${…}} placeholders in {@code cron}, {@code every}, {@code zone},
	 * {@code timeout}, {@code rateLimit} and {@code keyRateLimit}.
	 */
	@Override
	public void setEmbeddedValueResolver(StringValueResolver resolver) {
		this.valueResolver = resolver;
	}

	@Override
	public void setBeanClassLoader(ClassLoader classLoader) {
		this.classLoader = classLoader;
	}

	private void declareSchedule(HandlerDefinition definition, Schedule schedule,
			HandlerMethods.Attributes attributes) {
		JobScheduler target = this.scheduler.get();
		if (target == null) {
			throw HandlerMethods.noScheduler(definition.source(), attributes);
		}
		target.register(definition.type(), definition.type(), schedule, null, definition.source());
	}

	@Override
	public Object postProcessAfterInitialization(Object bean, String beanName) {
		Class<?> targetClass = AopProxyUtils.ultimateTargetClass(bean);
		if (this.classesWithoutHandlers.contains(targetClass)) {
			return bean;
		}
		Map<Method, JobHandler> handlers = MethodIntrospector.selectMethods(targetClass,
				(MethodIntrospector.MetadataLookup<JobHandler>) (method) -> AnnotatedElementUtils
					.findMergedAnnotation(method, JobHandler.class));
		if (handlers.isEmpty()) {
			this.classesWithoutHandlers.add(targetClass);
			return bean;
		}
		HandlerRegistry target = this.registry.get();
		Map<String, QueueProperties.Handler> configured = this.settings.get();
		handlers.forEach((method, annotation) -> {
			String source = HandlerMethods.source(beanName, method);
			HandlerMethods.Attributes attributes = HandlerMethods.Attributes.of(annotation, this.valueResolver, source);
			HandlerDefinition definition = HandlerMethods.definition(bean, source, method, annotation, attributes,
					configured.get(annotation.value()), this.codec, this.classLoader);
			Schedule schedule = HandlerMethods.schedule(annotation, attributes, source);
			target.register(definition);
			if (schedule != null) {
				declareSchedule(definition, schedule, attributes);
			}
		});
		return bean;
	}

}
